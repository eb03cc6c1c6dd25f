/** What echo-agent's hook payloads say: session and transcript, the turn id, the answer, the error, a permission request. */
import type { HookEvent, ProviderV1EventInfo } from '@umbel/core';

const text = (p: Record<string, unknown>, key: string): string | undefined => (typeof p[key] === 'string' && p[key] !== '' ? (p[key] as string) : undefined);

export function parseEvent(event: HookEvent): ProviderV1EventInfo {
  if (!event.payload || typeof event.payload !== 'object') return {};
  const p = event.payload as Record<string, unknown>;
  const info: Record<string, unknown> = {
    sessionId: text(p, 'session_id'),
    transcriptPath: text(p, 'transcript_path'),
    turnKey: text(p, 'turn_id'),
  };
  if (event.kind === 'stop') info.lastMessage = text(p, 'last_message');
  if (event.kind === 'stop-failure') info.error = text(p, 'error') ?? 'echo-agent reported an error';
  if (event.kind === 'permission') {
    const tool = text(p, 'tool');
    info.needsInput = { kind: 'permission', message: text(p, 'message') ?? 'echo-agent asks for permission', ...(tool ? { tool } : {}) };
  }
  return Object.fromEntries(Object.entries(info).filter(([, v]) => v !== undefined)) as ProviderV1EventInfo;
}
