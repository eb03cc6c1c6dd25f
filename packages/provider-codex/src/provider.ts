/** The codex provider value (ProviderV1). */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { OptionUnsupportedError, type ProviderV1, type ProviderV1Launch, SpawnFailedError, UsageError } from '@umbel/core';
import { configuredEnvKey, prepareCodexHome } from './codex-home.js';
import { parseCodexEvent } from './events.js';
import { readCodexMessages, readCodexTurn } from './rollout.js';
import { CODEX_TOOLS } from './tools.js';
import { detectCodexApproval, detectCodexSignIn, detectCodexStartup } from './screens.js';

/** Settings of `createCodex`. */
export interface CodexSettings {
  /** Executable to run. Default: `$UMBEL_CODEX_BIN`, else `codex` found on the caller's PATH. */
  readonly bin?: string;
  /** The user's own CODEX_HOME to derive the managed one from. Default: `$CODEX_HOME`, else `~/.codex`. */
  readonly userHome?: string;
  /** Extra arguments appended to every launch (never env values). */
  readonly extraArgs?: readonly string[];
}

/** Permission modes umbel accepts for codex, and the flags each maps to. */
export const CODEX_PERMISSION_MODES = {
  default: [],
  'on-request': ['--ask-for-approval', 'on-request'],
  never: ['--ask-for-approval', 'never'],
  bypassPermissions: ['--dangerously-bypass-approvals-and-sandbox'],
} as const satisfies Record<string, readonly string[]>;

/**
 * Configuration variables a codex worker inherits, named one by one (reference codex.md §11).
 * `CODEX_API_KEY` is the built-in provider's key. The `env_key` of a custom model provider
 * selected in config.toml is added per launch (see `doBuildLaunch`). Not listed on purpose:
 * `OPENAI_API_KEY` and `OPENAI_BASE_URL` (codex 0.169.0 ignores both), and anything matching
 * `CODEX_*` that codex sets for its own children (`CODEX_THREAD_ID`, `CODEX_CI`, …).
 */
export const CODEX_INHERIT_ENV = ['CODEX_API_KEY'] as const;

/** Prepare a prompt for pasting: CRLF/CR → LF, and a leading space before `/` or `!`. */
export function prepareCodexPrompt(prompt: string): string {
  const text = prompt.replace(/\r\n?/g, '\n');
  if (text.trim() === '') throw new UsageError('codex ignores an empty prompt', { hint: 'send some text' });
  // A composer starting with `/` is a slash command and with `!` a local shell command; a leading
  // space avoids both, and codex trims it before sending (§8).
  return /^[/!]/.test(text) ? ` ${text}` : text;
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Resolve the codex executable to an absolute path. */
export async function resolveCodexBin(callerEnv: Readonly<Record<string, string | undefined>>, configured?: string): Promise<string> {
  const wanted = configured ?? callerEnv.UMBEL_CODEX_BIN ?? 'codex';
  if (wanted.includes('/')) {
    const abs = isAbsolute(wanted) ? wanted : resolve(wanted);
    if (await isExecutable(abs)) return abs;
    throw new SpawnFailedError(`codex executable not found: ${abs}`, { hint: 'check UMBEL_CODEX_BIN' });
  }
  for (const dir of (callerEnv.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, wanted);
    if (await isExecutable(candidate)) return resolve(candidate);
  }
  throw new SpawnFailedError(`'${wanted}' not found on PATH`, { hint: 'install it with `npm install -g @openai/codex`, or set UMBEL_CODEX_BIN' });
}

/** Refuse options codex cannot honour (OptionUnsupportedError), before any I/O. */
export function validateCodexOptions(spawn: { readonly allowedTools?: string; readonly appendSystemPrompt?: string; readonly permissionMode?: string }): void {
  if (spawn.allowedTools !== undefined) throw new OptionUnsupportedError('codex', '--allowed-tools', 'codex has no per-tool allow list');
  if (spawn.appendSystemPrompt !== undefined) throw new OptionUnsupportedError('codex', '--append-system-prompt');
  if (spawn.permissionMode !== undefined && !Object.hasOwn(CODEX_PERMISSION_MODES, spawn.permissionMode)) {
    throw new OptionUnsupportedError('codex', `--permission-mode ${spawn.permissionMode}`, `use one of ${Object.keys(CODEX_PERMISSION_MODES).join(', ')}`);
  }
}

/** Create the codex provider. */
export function createCodex(settings: CodexSettings = {}): ProviderV1 {
  return {
    specificationVersion: 'umbel-provider-v1',
    providerId: 'codex',
    displayName: 'OpenAI Codex',
    capabilities: { unattended: true, allowedTools: false, appendSystemPrompt: false, permissionModes: Object.keys(CODEX_PERMISSION_MODES) },
    inheritEnv: CODEX_INHERIT_ENV,
    // Bracketed paste + Enter submits at once, even for 20,000 characters (§8); the small delay is
    // a margin. UserPromptSubmit runs through `$SHELL -lc`, so confirmation can take a moment.
    input: { submitDelayMs: 50, confirmTimeoutMs: 3000, maxSubmitRetries: 3, alwaysPaste: true },

    doValidate: ({ spawn }) => validateCodexOptions(spawn),

    async doBuildLaunch(options): Promise<ProviderV1Launch> {
      validateCodexOptions(options);
      const bin = await resolveCodexBin(options.callerEnv, settings.bin);
      const callerHome = options.callerEnv.HOME ?? homedir();
      const userHome = resolve(settings.userHome ?? options.callerEnv.CODEX_HOME ?? join(callerHome, '.codex'));
      const home = join(options.sharedDir, 'home');
      const prepared = await prepareCodexHome({ home, userHome, cwd: options.cwd, hookCommand: (kind) => options.hookCommand(kind) });
      const argv: string[] = [bin];
      if (options.unattended) argv.push(...CODEX_PERMISSION_MODES.bypassPermissions);
      else if (options.permissionMode) argv.push(...CODEX_PERMISSION_MODES[options.permissionMode as keyof typeof CODEX_PERMISSION_MODES]);
      if (options.model) argv.push('--model', options.model);
      argv.push(...(settings.extraArgs ?? []));
      const env: Record<string, string> = { CODEX_HOME: home };
      // The key of a custom model provider (`env_key`) is configuration too; pass it by name,
      // unless the caller set it explicitly.
      const envKey = configuredEnvKey(prepared.configText);
      const value = envKey ? options.callerEnv[envKey] : undefined;
      if (envKey && value !== undefined && options.env[envKey] === undefined && envKey !== 'CODEX_HOME') env[envKey] = value;
      return { argv, env };
    },

    doDetectStartup: ({ screen }) => detectCodexStartup(screen),
    doDetectSignIn: (screen) => detectCodexSignIn(screen),
    doDetectInputPrompt: (screen) => detectCodexApproval(screen),
    doPreparePrompt: prepareCodexPrompt,
    doParseEvent: parseCodexEvent,
    doReadTurn: (options) => readCodexTurn(options),
    doReadMessages: (options) => readCodexMessages(options),
    ...CODEX_TOOLS,
  };
}

/** The default codex provider. */
export const codex: ProviderV1 = createCodex();
