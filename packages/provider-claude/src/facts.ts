/**
 * Claude Code's facts (reference claude-code.md; verified on 2.1.328 and 2.1.332): env, flags, hooks and the
 * settings file that installs them, screens, prompt rules and hook payload fields. The transcript
 * reader is ./transcript.ts.
 */
import { join } from 'node:path';
import {
  asRecord,
  commandHooks,
  type HookKind,
  jsonFile,
  OptionUnsupportedError,
  type ProviderV1ValidateOptions,
  parseJson,
  readTextIfExists,
  shellQuote,
  splitToolRules,
  statePath,
} from '@umbel/provider';
import { CLAUDE_STATUSLINE_KIND } from './payload.js';
import type { HookInstallContext, LaunchParts } from '@umbel/provider';

/**
 * Variables that switch Claude Code from the subscription login to API or cloud billing
 * (ACCOUNT-FACTS.md §1.1): never inherited; a worker gets one only when the caller passes it by name.
 */
export const CLAUDE_API_BILLING_ENV = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'CLAUDE_CODE_USE_BEDROCK',
  'CLAUDE_CODE_USE_VERTEX',
  'CLAUDE_CODE_USE_FOUNDRY',
  'CLAUDE_CODE_USE_ANTHROPIC_AWS',
  'CLAUDE_CODE_USE_ANTHROPIC_GOOGLE_CLOUD',
  'CLAUDE_CODE_USE_MANTLE',
  'CLAUDE_CODE_API_KEY_FILE_DESCRIPTOR',
] as const;

/** Claude Code's config dir (transcripts, history, settings) and, without `CLAUDE_CONFIG_DIR`, its state file `~/.claude.json` (§2.1). */
export const CLAUDE_CONFIG = { path: '~/.claude', env: 'CLAUDE_CONFIG_DIR' } as const;
export const CLAUDE_STATE_FILE = { path: '~/.claude.json' } as const;

/** A confined worker (`--sandbox`): the API and sign-in hosts; its config dir (transcripts) and `~/.claude.json`. */
export const CLAUDE_SANDBOX = {
  hosts: ['api.anthropic.com', 'console.anthropic.com', 'claude.ai', 'statsig.anthropic.com'],
  writePaths: [CLAUDE_CONFIG, CLAUDE_STATE_FILE],
};

/** Variables naming the endpoint Claude Code calls (status shows it, credentials removed). */
export const CLAUDE_ENDPOINT_ENV = ['ANTHROPIC_BASE_URL'] as const;

/** Configuration variables a worker inherits, named one by one (never `CLAUDE_*`: see the markers; never the API-billing ones). */
export const CLAUDE_INHERIT_ENV = [
  'ANTHROPIC_BASE_URL',
  'ANTHROPIC_MODEL',
  'ANTHROPIC_SMALL_FAST_MODEL',
  'ANTHROPIC_DEFAULT_OPUS_MODEL',
  'ANTHROPIC_DEFAULT_SONNET_MODEL',
  'ANTHROPIC_DEFAULT_HAIKU_MODEL',
  'ANTHROPIC_CUSTOM_HEADERS',
  'CLAUDE_CONFIG_DIR',
  'CLAUDE_CODE_OAUTH_TOKEN',
  'API_TIMEOUT_MS',
  'CLAUDE_CODE_MAX_RETRIES',
  'AWS_REGION',
  'AWS_PROFILE',
  'CLOUD_ML_REGION',
  'ANTHROPIC_VERTEX_PROJECT_ID',
  'DISABLE_TELEMETRY',
] as const;

/** Markers a running Claude Code exports to its children (§3, §8); inheriting `CLAUDE_CODE_CHILD_SESSION` turns the transcript off. */
export const CLAUDE_CHILD_MARKERS = [
  'CLAUDECODE',
  'CLAUDE_CODE_CHILD_SESSION',
  'CLAUDE_CODE_ENTRYPOINT',
  'CLAUDE_CODE_SESSION_ID',
  'CLAUDE_PID',
  'CLAUDE_CODE_SESSION_ATTENDED',
  'CLAUDE_CODE_EXECPATH',
  'CLAUDE_CODE_MESSAGING_SOCKET',
  'CLAUDE_CODE_MESSAGING_TOKEN',
  'CLAUDE_CODE_CHILD_NOTES_DIR',
  'CLAUDE_EFFORT',
  'CLAUDE_PROJECT_DIR',
  'CLAUDE_ENV_FILE',
] as const;

/** Always set: an auto-update must never replace the binary under a fleet. */
export const CLAUDE_RESERVED_ENV: Readonly<Record<string, string>> = Object.freeze({ DISABLE_AUTOUPDATER: '1' });

/** `--permission-mode` values (§6.1; `default` = `manual`). */
export const CLAUDE_PERMISSION_MODES = ['default', 'acceptEdits', 'plan', 'auto', 'dontAsk', 'bypassPermissions', 'manual'] as const;

/** Claude Code hook events umbel listens to, and the neutral kind each is delivered as. */
export const CLAUDE_HOOK_EVENTS = {
  SessionStart: 'session',
  UserPromptSubmit: 'prompt',
  Stop: 'stop',
  StopFailure: 'stop-failure',
  PermissionRequest: 'permission',
  Notification: 'notify',
  SessionEnd: 'session-end',
  PreToolUse: 'tool',
} as const satisfies Record<string, HookKind>;

/** The settings file written into the worker directory. */
export const CLAUDE_SETTINGS_FILE = 'claude-settings.json';

/** With both, Claude Code sends both headers and stops on its "custom API key" dialog (upstream.md §2.5): the token wins. */
export function reconcileClaudeEnv(env: Readonly<Record<string, string>>): Record<string, string> {
  const result: Record<string, string> = { ...env };
  if (result.ANTHROPIC_AUTH_TOKEN) delete result.ANTHROPIC_API_KEY;
  return result;
}

/** Bypass mode as root without `IS_SANDBOX=1`: Claude Code exits "cannot be used with root/sudo privileges". umbel never sets it. */
export function validateClaudeOptions({ spawn, isRoot }: ProviderV1ValidateOptions): void {
  const mode = spawn.permissionMode ?? (spawn.unattended ? 'bypassPermissions' : undefined);
  if (mode !== 'bypassPermissions' || !isRoot || spawn.env.IS_SANDBOX === '1') return;
  const option = spawn.permissionMode === undefined ? 'unattended mode (--permission-mode bypassPermissions)' : 'permission mode bypassPermissions';
  throw new OptionUnsupportedError(
    'claude',
    `${option} when running as root`,
    'Claude Code refuses bypass mode as root unless IS_SANDBOX=1 is set in its environment. ' +
      'Run the worker with --sandbox (umbel then sets it inside its own sandbox), or, if this machine is a disposable sandbox, pass --env IS_SANDBOX=1 yourself; ' +
      'otherwise run umbel as a non-root user or choose another --permission-mode',
  );
}

/** Split `--allowedTools` into rules on commas and whitespace outside parentheses (`Bash(git diff:*) Edit,Read`). */
export const splitAllowedTools: (value: string) => string[] = splitToolRules;

/** The statusLine script written into the worker directory. */
export const CLAUDE_STATUSLINE_FILE = 'claude-statusline.sh';

/** The user's own `statusLine` (their `<config>/settings.json`, read tolerantly), if it runs a command. */
export async function userStatusLine(launch: HookInstallContext['launch']): Promise<Record<string, unknown> | undefined> {
  const config = statePath(CLAUDE_CONFIG, { ...launch.env, HOME: launch.callerEnv.HOME });
  const text = config ? await readTextIfExists(join(config, 'settings.json')).catch(() => undefined) : undefined;
  const line = asRecord(asRecord(parseJson(text ?? ''))?.statusLine);
  return typeof line?.command === 'string' && line.command !== '' ? line : undefined;
}

/**
 * umbel's statusLine command (a `--settings` statusLine replaces the user's: ACCOUNT-FACTS §1.4):
 * it hands the input to the hook sink as a `statusline` event (the plan usage), then runs the
 * user's own command with the same input, so what they see is unchanged.
 */
export function statusLineScript(sinkPath: string, userCommand: string | undefined): string {
  return [
    '#!/bin/sh',
    "# umbel: deliver the statusLine input, then run the user's own statusLine command with it",
    'input=$(cat)',
    `printf '%s\n' "$input" | ${shellQuote(sinkPath)} ${CLAUDE_STATUSLINE_KIND}`,
    ...(userCommand ? [`printf '%s\n' "$input" | exec /bin/sh -c ${shellQuote(userCommand)}`] : []),
    '',
  ].join('\n');
}

/** The `--settings` file: umbel's hooks, its statusLine, the allowed tools, the bypass consent pre-accepted when bypassing. */
export async function installClaudeHooks({ launch, hooks, permissionMode }: HookInstallContext): Promise<LaunchParts> {
  const user = await userStatusLine(launch);
  const script = join(launch.workerDir, CLAUDE_STATUSLINE_FILE);
  const settings: Record<string, unknown> = {
    hooks: commandHooks(hooks, { matcher: '*' }),
    statusLine: { ...user, type: 'command', command: `/bin/sh ${shellQuote(script)}` },
  };
  const allow = launch.allowedTools === undefined ? [] : splitAllowedTools(launch.allowedTools);
  if (allow.length > 0) settings.permissions = { allow };
  if (permissionMode === 'bypassPermissions') settings.skipDangerousModePermissionPrompt = true;
  const path = join(launch.workerDir, CLAUDE_SETTINGS_FILE);
  const statusLine = { path: script, content: statusLineScript(launch.hookSinkPath, user?.command as string | undefined), mode: 0o700 };
  return { args: ['--settings', path], files: [jsonFile(path, settings), statusLine] };
}

/** Claude Code's project directory name for a cwd: every character outside `[A-Za-z0-9]` becomes `-` (§2.1). */
export function encodeClaudeProjectDir(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, '-');
}

/** Where the transcript will be: `<CLAUDE_CONFIG_DIR or HOME/.claude>/projects/<enc-cwd>/<session>.jsonl` (hooks name it too). */
export function predictClaudeTranscript(launch: { readonly env: Readonly<Record<string, string>>; readonly cwd: string; readonly sessionId: string }) {
  const config = statePath(CLAUDE_CONFIG, launch.env);
  return config === undefined ? undefined : join(config, 'projects', encodeClaudeProjectDir(launch.cwd), `${launch.sessionId}.jsonl`);
}
