/**
 * `@umbel/provider-gemini`: Google Gemini CLI (`gemini`) as an umbel provider (spec v1).
 *
 * Launch: `gemini --session-id <uuid> [--model M] [--approval-mode …]` with a per-worker
 * `GEMINI_CLI_HOME` (settings = the user's settings + umbel's hooks; everything else in the user's
 * `~/.gemini` is symlinked), `GEMINI_CLI_NO_RELAUNCH=true` (one process, so killing the pane leaves
 * no orphan), `GEMINI_CLI_TRUST_WORKSPACE=true` (the worker's cwd is trusted for this run only), and
 * `CI`/`GITHUB_ACTIONS` removed (either one forces headless mode even on a terminal).
 */
import { constants } from 'node:fs';
import { access, mkdir, readdir, readFile, stat, symlink } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import type {
  HookEvent,
  ProviderV1,
  ProviderV1EventInfo,
  ProviderV1Launch,
  ProviderV1LaunchOptions,
  ProviderV1Message,
  ProviderV1ReadTurnOptions,
  ProviderV1StartupState,
  ProviderV1TurnRead,
} from '@umbel/core';
import { OptionUnsupportedError, SpawnFailedError } from '@umbel/core';
import { readGeminiMessages, readGeminiTurn } from './chat.js';
import { GEMINI_TOOLS } from './tools.js';
import { parseGeminiEvent } from './events.js';
import { prepareGeminiPrompt } from './prompt.js';
import { detectGeminiApproval, detectGeminiSignIn, detectGeminiStartup } from './screens.js';
import { buildWorkerSettings, parseUserSettings } from './settings.js';

/** Version of this package. */
export const VERSION = '0.1.0';
/** The Gemini CLI release these facts were verified on. */
export const GEMINI_CLI_VERIFIED_VERSION = '0.61.0';

/** `--approval-mode` values of Gemini CLI. */
export const GEMINI_APPROVAL_MODES = ['default', 'auto_edit', 'yolo', 'plan'] as const;

/**
 * Configuration variables a worker inherits from umbel's environment, named one by one (never a
 * prefix: `GEMINI_CLI` and `GEMINI_CLI_*` hold markers and IDE/session state of a parent CLI).
 */
export const GEMINI_INHERIT_ENV = [
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'GOOGLE_GEMINI_BASE_URL',
  'GOOGLE_VERTEX_BASE_URL',
  'GOOGLE_GENAI_USE_VERTEXAI',
  'GOOGLE_GENAI_USE_GCA',
  'GOOGLE_GENAI_API_VERSION',
  'GOOGLE_CLOUD_PROJECT',
  'GOOGLE_CLOUD_LOCATION',
  'GOOGLE_APPLICATION_CREDENTIALS',
  'GEMINI_MODEL',
  'GEMINI_SYSTEM_MD',
  'GEMINI_CLI_CUSTOM_HEADERS',
  'GEMINI_CLI_TRUSTED_FOLDERS_PATH',
  'GEMINI_CLI_SYSTEM_SETTINGS_PATH',
  'GEMINI_CLI_SYSTEM_DEFAULTS_PATH',
  'NO_BROWSER',
] as const;

/** Variables removed from a worker's env: each one makes gemini run headless even on a terminal. */
export const GEMINI_UNSET_ENV = ['CI', 'GITHUB_ACTIONS'] as const;

/** Entries of the user's `~/.gemini` that are not shared with a worker's home. */
const NOT_LINKED = new Set(['settings.json', 'projects.json', 'tmp']);

/** Settings of {@link createGemini}. */
export interface GeminiSettings {
  /** The `gemini` executable; default `UMBEL_GEMINI_BIN` from umbel's env, else `gemini` on PATH. */
  readonly bin?: string;
  /** Extra arguments appended to every launch. */
  readonly args?: readonly string[];
  /** Trust the worker's cwd for the run (`GEMINI_CLI_TRUST_WORKSPACE=true`). Default true. */
  readonly trustWorkspace?: boolean;
  /** Settings deep-merged last into the worker's settings (e.g. `{model:{disableLoopDetection:true}}`). */
  readonly settingsOverrides?: Readonly<Record<string, unknown>>;
  /** Provider id (default `gemini`), to register a second configuration. */
  readonly providerId?: string;
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * The absolute path of the `gemini` executable: `settings.bin`, else `UMBEL_GEMINI_BIN`, else the
 * first `gemini` on the caller's PATH.
 * @throws SpawnFailedError when none is found.
 */
export async function resolveGeminiBin(callerEnv: Readonly<Record<string, string | undefined>>, bin?: string): Promise<string> {
  const explicit = bin ?? callerEnv.UMBEL_GEMINI_BIN;
  if (explicit) {
    if (isAbsolute(explicit) || explicit.includes('/')) return resolve(explicit);
    return findOnPath(explicit, callerEnv);
  }
  return findOnPath('gemini', callerEnv);
}

async function findOnPath(name: string, callerEnv: Readonly<Record<string, string | undefined>>): Promise<string> {
  for (const dir of (callerEnv.PATH ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    if (await isExecutable(candidate)) return candidate;
  }
  throw new SpawnFailedError(`'${name}' was not found on PATH`, {
    hint: 'install it with `npm install -g @google/gemini-cli`, or set UMBEL_GEMINI_BIN to its absolute path',
  });
}

/** The user's own Gemini home (the directory holding `.gemini`). */
export function userGeminiHome(callerEnv: Readonly<Record<string, string | undefined>>): string {
  return callerEnv.GEMINI_CLI_HOME || callerEnv.HOME || homedir();
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Prepare the worker's home: `<home>/.gemini/*` are symlinks to the user's entries (credentials,
 * GEMINI.md, commands, extensions, trusted folders, history…), except settings.json (written by
 * the engine from `files`), projects.json (per worker, so a stale lock of another process never
 * stalls this one) and `tmp`, which points at the user's `~/.gemini/tmp` when it exists (chats then
 * show up in the user's `gemini --resume`) or else at a directory shared by umbel's workers (so a
 * chat outlives its worker).
 */
async function prepareHome(userDotGemini: string, workerDotGemini: string, sharedDir: string): Promise<void> {
  await mkdir(workerDotGemini, { recursive: true, mode: 0o700 });
  let entries: string[] = [];
  try {
    entries = await readdir(userDotGemini);
  } catch {
    entries = [];
  }
  const link = async (target: string, name: string) => {
    const path = join(workerDotGemini, name);
    if (await exists(path)) return;
    try {
      await symlink(target, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  };
  for (const name of entries) {
    if (NOT_LINKED.has(name) || name.endsWith('.lock') || name.endsWith('.tmp')) continue;
    await link(join(userDotGemini, name), name);
  }
  const userTmp = join(userDotGemini, 'tmp');
  if (entries.includes('tmp')) {
    await link(userTmp, 'tmp');
  } else {
    const sharedTmp = join(sharedDir, 'tmp');
    await mkdir(sharedTmp, { recursive: true, mode: 0o700 });
    await link(sharedTmp, 'tmp');
  }
}

function isIsoTime(text: string | undefined): text is string {
  return typeof text === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(text) && !Number.isNaN(Date.parse(text));
}

/**
 * Create the Gemini CLI provider.
 * @example
 * const engine = createUmbel({ substrate, providers: [createGemini()] });
 */
export function createGemini(settings: GeminiSettings = {}): ProviderV1 {
  const providerId = settings.providerId ?? 'gemini';
  return {
    specificationVersion: 'umbel-provider-v1',
    providerId,
    displayName: 'Gemini CLI',
    capabilities: {
      unattended: true,
      allowedTools: false,
      appendSystemPrompt: false,
      permissionModes: GEMINI_APPROVAL_MODES,
    },
    inheritEnv: GEMINI_INHERIT_ENV,
    // An Enter within ~45 ms of a paste becomes a newline (§6): wait, then confirm by BeforeAgent.
    input: { submitDelayMs: 150, confirmTimeoutMs: 1000, maxSubmitRetries: 3, alwaysPaste: true },

    doValidate({ spawn }) {
      if (spawn.allowedTools !== undefined) {
        throw new OptionUnsupportedError(providerId, 'allowedTools', 'use --approval-mode / policies in gemini settings');
      }
      if (spawn.appendSystemPrompt !== undefined) {
        throw new OptionUnsupportedError(providerId, 'appendSystemPrompt', 'gemini can only replace its system prompt (GEMINI_SYSTEM_MD)');
      }
      if (spawn.permissionMode !== undefined && !(GEMINI_APPROVAL_MODES as readonly string[]).includes(spawn.permissionMode)) {
        throw new OptionUnsupportedError(providerId, `permissionMode '${spawn.permissionMode}'`, `use one of ${GEMINI_APPROVAL_MODES.join(', ')}`);
      }
    },

    async doBuildLaunch(options: ProviderV1LaunchOptions): Promise<ProviderV1Launch> {
      const bin = await resolveGeminiBin(options.callerEnv, settings.bin);
      const userDotGemini = join(userGeminiHome(options.callerEnv), '.gemini');
      const userSettingsPath = join(userDotGemini, 'settings.json');
      const user = parseUserSettings((await readText(userSettingsPath)) ?? '', userSettingsPath);
      const home = join(options.workerDir, 'gemini-home');
      const dotGemini = join(home, '.gemini');
      await prepareHome(userDotGemini, dotGemini, options.sharedDir);
      const workerSettings = buildWorkerSettings({
        user,
        hookCommand: (kind) => options.hookCommand(kind),
        env: options.env,
        ...(settings.settingsOverrides ? { overrides: settings.settingsOverrides } : {}),
      });
      const args = ['--session-id', options.sessionId];
      if (options.model) args.push('--model', options.model);
      const mode = options.permissionMode ?? (options.unattended ? 'yolo' : undefined);
      if (mode && mode !== 'default') args.push('--approval-mode', mode);
      args.push(...(settings.args ?? []));
      const env: Record<string, string> = { GEMINI_CLI_HOME: home, GEMINI_CLI_NO_RELAUNCH: 'true' };
      if (settings.trustWorkspace !== false) env.GEMINI_CLI_TRUST_WORKSPACE = 'true';
      return {
        argv: [bin, ...args],
        env,
        unsetEnv: GEMINI_UNSET_ENV,
        files: [{ path: join(dotGemini, 'settings.json'), content: `${JSON.stringify(workerSettings, null, 2)}\n`, mode: 0o600 }],
        sessionId: options.sessionId,
      };
    },

    doDetectStartup(input): ProviderV1StartupState {
      return detectGeminiStartup(input);
    },

    doDetectSignIn(screen: string): string | undefined {
      return detectGeminiSignIn(screen);
    },

    doDetectInputPrompt(screen: string): boolean {
      return detectGeminiApproval(screen);
    },

    doPreparePrompt(prompt: string): string {
      return prepareGeminiPrompt(prompt);
    },

    doParseEvent(event: HookEvent): ProviderV1EventInfo {
      return parseGeminiEvent(event);
    },

    doReadTurn(options: ProviderV1ReadTurnOptions): ProviderV1TurnRead {
      return readGeminiTurn(options.content, {
        ...(options.prompt !== undefined ? { prompt: options.prompt } : {}),
        ...(isIsoTime(options.turnKey) ? { acceptedAt: options.turnKey } : {}),
        stopSeen: options.stopSeen,
      });
    },

    ...GEMINI_TOOLS,
    doReadMessages(options: ProviderV1ReadTurnOptions): readonly ProviderV1Message[] {
      return readGeminiMessages(options.content, {
        ...(options.prompt !== undefined ? { prompt: options.prompt } : {}),
        ...(isIsoTime(options.turnKey) ? { acceptedAt: options.turnKey } : {}),
        stopSeen: options.stopSeen,
      });
    },
  };
}

/** The default Gemini CLI provider. */
export const gemini: ProviderV1 = createGemini();
