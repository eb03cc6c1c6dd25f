/** The worker's own Gemini home (`GEMINI_CLI_HOME`) and its settings (GEMINI-FACTS.md: "Settings layers", "Worker home"); the user's files are only read. */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { HookInstallContext, InstallPlan, InstalledHook, LaunchParts, PreparedInstall } from '@umbel/provider';
import { asRecord, deepMerge, jsonFile, recordAt, settingsWithHooks, valueAt } from '@umbel/provider';
import { geminiBilling } from './facts.js';

/** The worker's Gemini home inside its provider dir (`<workerDir>/gemini-home`). */
export const WORKER_HOME_DIR = 'gemini-home';
/** The worker's settings file, relative to its provider dir. */
export const WORKER_SETTINGS_PATH = `${WORKER_HOME_DIR}/.gemini/settings.json`;
/** The CLI's local telemetry file, relative to the worker's provider dir (./telemetry.ts). */
export const TELEMETRY_PATH = 'telemetry.log';
/** Timeout of umbel's hook commands (ms); the sink writes one file and exits. */
export const HOOK_TIMEOUT_MS = 10_000;

/** Entries of the user's `~/.gemini` that are not shared with a worker's home (GEMINI-FACTS.md: "Worker home"). */
const NOT_LINKED = /^(settings\.json|projects\.json|tmp)$|\.(lock|tmp)$/;

/** Auth types of `security.auth.selectedType`. */
export const GeminiAuthType = {
  ApiKey: 'gemini-api-key',
  Vertex: 'vertex-ai',
  OAuth: 'oauth-personal',
} as const;
export type GeminiAuthType = (typeof GeminiAuthType)[keyof typeof GeminiAuthType];

/** The auth type umbel selects when the user's settings select none (GEMINI-FACTS.md: "Environment and billing"). */
export function chooseAuthType(env: Readonly<Record<string, string>>): GeminiAuthType | undefined {
  if ((env.GOOGLE_GENAI_USE_VERTEXAI ?? '').toLowerCase() === 'true') return GeminiAuthType.Vertex;
  return env.GEMINI_API_KEY ? GeminiAuthType.ApiKey : undefined;
}

/** Input of {@link buildWorkerSettings}. */
export interface WorkerSettingsInput {
  /** The user's settings (parsed); not modified. */
  readonly user: Readonly<Record<string, unknown>>;
  /** umbel's hooks (the kit's: one per `GEMINI_HOOK_EVENTS`, with its command). */
  readonly hooks: readonly InstalledHook[];
  /** The worker's env (for the auth choice). */
  readonly env: Readonly<Record<string, string>>;
  /** Deep-merged last (tests: `{model:{disableLoopDetection:true}}`). */
  readonly overrides?: Readonly<Record<string, unknown>> | undefined;
  /** Where the CLI writes its local telemetry (see {@link workerTelemetry}); none when absent. */
  readonly telemetryOutfile?: string;
}

/** The worker's telemetry: local, into `outfile`, without prompts, unless the user's own is on (GEMINI-FACTS.md: "Telemetry"). */
export function workerTelemetry(user: unknown, outfile: string | undefined): unknown {
  if (asRecord(user)?.enabled === true || outfile === undefined) return user;
  return { enabled: true, target: 'local', outfile, logPrompts: false, useCollector: false };
}

/** What every worker's settings set: hooks on, auto-update off. */
const WORKER_SET = { hooksConfig: { enabled: true }, general: { enableAutoUpdate: false, enableAutoUpdateNotification: false } };

/** The worker's user settings (GEMINI-FACTS.md: "Settings layers"). */
export function buildWorkerSettings(input: WorkerSettingsInput): Record<string, unknown> {
  const s = settingsWithHooks(input.user, input.hooks, { matcher: '', fields: (h) => ({ name: `umbel-${h.kind}`, timeout: HOOK_TIMEOUT_MS }) }, WORKER_SET);
  const disabled = valueAt(s, ['hooksConfig', 'disabled']); // (a user's list never disables umbel's own hooks)
  if (Array.isArray(disabled)) recordAt(s, ['hooksConfig']).disabled = disabled.filter((name) => !(typeof name === 'string' && name.startsWith('umbel-')));
  const selected = valueAt(s, ['security', 'auth', 'selectedType']);
  const chosen = typeof selected === 'string' && selected !== '' ? undefined : chooseAuthType(input.env);
  if (chosen) recordAt(s, ['security', 'auth']).selectedType = chosen;
  const telemetry = workerTelemetry(s.telemetry, input.telemetryOutfile);
  if (telemetry !== undefined) s.telemetry = telemetry;
  return input.overrides ? deepMerge(s, input.overrides) : s;
}

/** The user's own Gemini home (the directory holding `.gemini`). */
export const userGeminiHome = (callerEnv: Readonly<Record<string, string | undefined>>): string => callerEnv.GEMINI_CLI_HOME || callerEnv.HOME || homedir();

/** The provider's settings of the worker home. */
export interface GeminiHomeOptions {
  /** Trust the worker's cwd for the run (`GEMINI_CLI_TRUST_WORKSPACE=true`). Default true. */
  readonly trustWorkspace?: boolean;
  /** Settings deep-merged last into the worker's settings (e.g. `{model:{disableLoopDetection:true}}`). */
  readonly settingsOverrides?: Readonly<Record<string, unknown>>;
}

/** Install the hooks, a plan the kit carries out: the user's settings read, the worker home prepared (GEMINI-FACTS.md: "Worker home"), then its settings file and env. */
export function installGeminiHome({ launch, hooks }: HookInstallContext, options: GeminiHomeOptions): InstallPlan {
  const userDotGemini = join(userGeminiHome(launch.callerEnv), '.gemini');
  const home = join(launch.workerDir, WORKER_HOME_DIR);
  const dotGemini = join(home, '.gemini');
  const telemetryOutfile = join(launch.workerDir, TELEMETRY_PATH);
  const trust: Record<string, string> = options.trustWorkspace !== false ? { GEMINI_CLI_TRUST_WORKSPACE: 'true' } : {};
  const parts = ({ json }: PreparedInstall): LaunchParts => {
    const settings = buildWorkerSettings({ user: json.user ?? {}, hooks, env: launch.env, telemetryOutfile, overrides: options.settingsOverrides });
    return { env: { GEMINI_CLI_HOME: home, ...trust }, files: [jsonFile(join(dotGemini, 'settings.json'), settings)], billing: geminiBilling(settings) };
  };
  const prepare = {
    readJson: { user: { path: join(userDotGemini, 'settings.json'), what: 'Gemini settings' } },
    home: { user: userDotGemini, home: dotGemini, link: (name: string) => !NOT_LINKED.test(name) },
    links: [{ target: join(userDotGemini, 'tmp'), shared: join(launch.sharedDir, 'tmp'), path: join(dotGemini, 'tmp') }],
  };
  return { prepare, parts };
}
