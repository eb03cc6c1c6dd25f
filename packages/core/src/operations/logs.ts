/** logs: one line per event of a worker, oldest first (its provider says what a hook event meant). */
import { isoOf } from '../engine/clock.js';
import type { EngineContext } from '../engine/context.js';
import { requireWorker } from '../ledger/ledger.js';
import type { LedgerEvent } from '../ledger/ledger-types.js';
import type { LogEntry } from '../contract/schemas.js';

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

function summarize(event: LedgerEvent): string {
  const own = event.own;
  switch (own?.kind) {
    case 'sent':
      if (own.data.command)
        return `turn ${own.data.turn}: command ${JSON.stringify(own.data.prompt.length > 60 ? `${own.data.prompt.slice(0, 60)}…` : own.data.prompt)}`;
      return `turn ${own.data.turn}: ${JSON.stringify(own.data.prompt.length > 60 ? `${own.data.prompt.slice(0, 60)}…` : own.data.prompt)} (${own.data.prompt.length} chars)`;
    case 'send-failed':
      return `turn ${own.data.turn} not submitted (${own.data.reason}${own.data.message ? `: ${oneLine(own.data.message, 80)}` : ''})`;
    case 'ready':
      return 'ready prompt seen';
    case 'keys':
      return `keys ${own.data.keys.join(' ')}`;
    case 'ended':
      if (own.data.reason === 'dead') return `turn ${own.data.turn} closed as dead (its process died; revived after)`;
      return `turn ${own.data.turn} ended in the transcript (${own.data.reason})`;
    case 'revived':
      return `revived: the CLI started again, resuming conversation ${own.data.sessionId}`;
    case 'exit':
      return own.data.signal ? `killed by ${own.data.signal}` : `exited with status ${own.data.status ?? 'unknown'}`;
    case 'dead':
      return own.data.by === 'kill' ? 'killed by umbel kill' : 'found dead';
    case 'snapshot':
      return own.data.tree
        ? `turn ${own.data.turn}: work tree ${own.data.tree.slice(0, 12)}`
        : `turn ${own.data.turn}: no snapshot (${oneLine(own.data.error ?? 'unknown', 80)})`;
    default:
      break;
  }
  const info = event.info;
  if (info.needsInput) {
    return oneLine(
      `needs ${info.needsInput.kind}${info.needsInput.tool ? ` (${info.needsInput.tool})` : ''}${info.needsInput.message ? `: ${info.needsInput.message}` : ''}`,
      120,
    );
  }
  return oneLine(info.error ?? info.activity ?? (info.lastMessage !== undefined ? `answer: ${info.lastMessage}` : ''), 80);
}

/** `logs NAME`. Malformed event files are skipped (status lists them as problems). */
export function workerLogs(ctx: EngineContext, name: string): LogEntry[] {
  return requireWorker(ctx, name).events.map((event) => ({ at: isoOf(event.at), kind: event.kind, summary: summarize(event) }));
}
