/**
 * The facts of {{bin}}, the demo CLI this package ships (bin/{{bin}}.js): how to launch it, which
 * hook events mean what, what its screens mean. `defineProvider` (src/index.ts) compiles them into
 * umbel's ProviderV1. For your own CLI, find each fact by running it, never from memory.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ProviderFacts, ProviderV1LaunchOptions } from '@umbel/provider';
import { readTurn } from './transcript.js';

/** The {{bin}} this package ships (from dist/ and src/ alike): used unless {{binEnv}} names another. */
export const BUNDLED_AGENT = fileURLToPath(new URL('../bin/{{bin}}.js', import.meta.url));

/** {{bin}}'s home in a worker's environment (its transcripts are in sessions/). */
function agentHome(env: Readonly<Record<string, string | undefined>>): string {
  return env['{{homeEnv}}'] || join(env.HOME ?? '/', '.{{bin}}');
}

const transcriptOf = (launch: ProviderV1LaunchOptions) => join(agentHome(launch.env), 'sessions', `${launch.sessionId}.jsonl`);

export const facts: ProviderFacts = {
  id: '{{id}}',
  displayName: '{{title}} agent',
  description: '{{name}}: the demo {{bin}} answers "echo: <prompt>"; no account, no key.',
  verifiedVersions: ['0.1.0'],
  binary: { name: '{{bin}}', configured: BUNDLED_AGENT, install: 'npm install {{name}} (it ships {{bin}})' },
  env: { inherit: ['{{homeEnv}}'] },
  flags: { sessionId: '--session-id', model: '--model', permissionModes: { default: [], bypass: ['--yes'] }, unattended: 'bypass' },
  hooks: {
    events: {
      SessionStart: 'session',
      UserPromptSubmit: 'prompt',
      Stop: 'stop',
      StopFailure: 'stop-failure',
      PermissionRequest: 'permission',
      TurnInterrupted: 'interrupt',
      SessionEnd: 'session-end',
    },
    // the hooks go in a settings file in the worker's folder, given with --settings
    install: ({ launch, hooks }) => {
      const settings = join(launch.workerDir, '{{bin}}-settings.json');
      const byEvent = Object.fromEntries(hooks.map((hook) => [hook.event, [hook.command]]));
      return {
        args: ['--settings', settings],
        files: [{ path: settings, content: `${JSON.stringify({ hooks: byEvent }, null, 2)}\n`, mode: 0o600 }],
        sessionId: launch.sessionId,
        transcriptPath: transcriptOf(launch),
      };
    },
  },
  screens: {
    fatal: [{ match: /^fatal: .*/, message: (line) => `{{bin}} failed to start: ${line.slice('fatal: '.length)}` }],
    signIn: ['Signed out. Run `{{bin}} login`'],
    ready: { inputBox: true },
    inputPrompt: /^ Allow {{bin}} to write \S+\? \[y\] yes {2}\[n\] no$/,
    inputBox: { start: /^ ❯(?: (.*))?$/, clearKeys: ['Escape'] },
  },
  payload: {
    sessionId: 'session_id',
    transcriptPath: 'transcript_path',
    turnKey: 'turn_id',
    lastMessage: { stop: 'last_message' },
    error: { fields: ['error'], fallback: '{{bin}} reported an error' },
    needsInput: (event, payload) =>
      event.kind === 'permission'
        ? { kind: 'permission', message: typeof payload.message === 'string' ? payload.message : '{{bin}} asks for permission', tool: 'write_file' }
        : undefined,
  },
  transcript: { read: readTurn, predict: transcriptOf },
};
