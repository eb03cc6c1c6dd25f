/**
 * The echo provider: a ProviderV1 written by hand against the public `@umbel/core` entry point
 * (no provider kit), for echo-agent. It states the CLI's facts — how to launch it, which hook
 * events mean what, what its screens mean — and reads its transcript; umbel does the rest.
 */
import { join } from 'node:path';
import type { HookKind, ProviderV1, ProviderV1Launch, ProviderV1LaunchOptions } from '@umbel/core';
import { findEchoAgent } from './binary.js';
import { parseEvent } from './events.js';
import { detectInputPrompt, detectSignIn, detectStartup, readInputBox } from './screens.js';
import { readMessages, readTurn } from './transcript.js';

/** echo-agent's hook events, and the neutral kind each one is for umbel. */
export const ECHO_HOOK_EVENTS = {
  SessionStart: 'session',
  UserPromptSubmit: 'prompt',
  Stop: 'stop',
  StopFailure: 'stop-failure',
  PermissionRequest: 'permission',
  TurnInterrupted: 'interrupt',
  SessionEnd: 'session-end',
} as const satisfies Record<string, HookKind>;

/** echo-agent's home for a worker's environment (where its transcripts are). */
function agentHome(env: Readonly<Record<string, string | undefined>>): string {
  return env.ECHO_AGENT_HOME || join(env.HOME ?? '/', '.echo-agent');
}

async function buildLaunch(options: ProviderV1LaunchOptions): Promise<ProviderV1Launch> {
  const binary = await findEchoAgent(options.callerEnv);
  const settings = join(options.workerDir, 'echo-settings.json');
  const hooks = Object.fromEntries(Object.entries(ECHO_HOOK_EVENTS).map(([event, kind]) => [event, [options.hookCommand(kind)]]));
  return {
    argv: [
      binary,
      '--settings',
      settings,
      '--session-id',
      options.sessionId,
      ...(options.model ? ['--model', options.model] : []),
      ...(options.unattended ? ['--yes'] : []),
    ],
    files: [{ path: settings, content: `${JSON.stringify({ hooks }, null, 2)}\n`, mode: 0o600 }],
    sessionId: options.sessionId,
    transcriptPath: join(agentHome(options.env), 'sessions', `${options.sessionId}.jsonl`),
  };
}

/** The provider. */
export const echo: ProviderV1 = {
  specificationVersion: 'umbel-provider-v1',
  providerId: 'echo',
  displayName: 'Echo agent',
  description: 'The umbel-provider-echo example: echo-agent answers "echo: <prompt>"; no account, no key.',
  verifiedVersions: ['1.0.0'],
  capabilities: { unattended: true, allowedTools: false, appendSystemPrompt: false, permissionModes: [], model: true },
  inheritEnv: ['ECHO_AGENT_HOME'],
  input: { clearKeys: ['Escape'] },
  doFindBinary: findEchoAgent,
  doBuildLaunch: buildLaunch,
  doDetectStartup: ({ screen }) => detectStartup(screen),
  doParseEvent: parseEvent,
  doReadTurn: readTurn,
  doReadMessages: readMessages,
  doDetectSignIn: detectSignIn,
  doDetectInputPrompt: detectInputPrompt,
  doReadInputBox: readInputBox,
};
