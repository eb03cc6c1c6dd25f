/**
 * The settings file umbel gives a Gemini CLI worker.
 *
 * Gemini CLI reads four settings layers: system defaults, user (`$GEMINI_CLI_HOME/.gemini/settings.json`),
 * workspace (`<cwd>/.gemini/settings.json`) and system (`GEMINI_CLI_SYSTEM_SETTINGS_PATH`). The two
 * system layers are skipped unless the file and every parent directory are owned by root and not
 * writable by group/others (verified on 0.61.0), so umbel cannot use them. Instead each worker gets
 * its own `GEMINI_CLI_HOME` whose user settings are a copy of the user's own settings with umbel's
 * hooks appended (hook lists of every layer are concatenated, so the user's and the project's hooks
 * still run). The user's files are only read, never written.
 */
import { asRecord, commandHooks, deepMerge, type HookKind, type ProviderV1BillingReport } from '@umbel/provider';
import { GEMINI_HOOK_EVENTS } from './facts.js';

/** Timeout of umbel's hook commands (ms); the sink writes one file and exits. */
export const HOOK_TIMEOUT_MS = 10_000;

type JsonObject = Record<string, unknown>;

/** Auth types of `security.auth.selectedType`. */
export const GeminiAuthType = {
  ApiKey: 'gemini-api-key',
  Vertex: 'vertex-ai',
  OAuth: 'oauth-personal',
} as const;
export type GeminiAuthType = (typeof GeminiAuthType)[keyof typeof GeminiAuthType];

/**
 * The auth type umbel selects when the user's settings select none: an API key in the worker env
 * means `gemini-api-key` (needed whenever GOOGLE_GEMINI_BASE_URL is set, which otherwise forces the
 * unusable `gateway` type, exit 41); GOOGLE_GENAI_USE_VERTEXAI=true means `vertex-ai`. Otherwise
 * none: the CLI shows its sign-in screen and umbel reports it.
 */
export function chooseAuthType(env: Readonly<Record<string, string>>): GeminiAuthType | undefined {
  if ((env.GOOGLE_GENAI_USE_VERTEXAI ?? '').toLowerCase() === 'true') return GeminiAuthType.Vertex;
  if (env.GEMINI_API_KEY) return GeminiAuthType.ApiKey;
  return undefined;
}

/**
 * How a worker bills, from the auth type its settings select (ACCOUNT-FACTS §3.1): a Google login
 * (`oauth-personal`, Code Assist / Google AI plans) is the subscription; an API key, Vertex AI,
 * ADC or a gateway bill the API or the cloud account; none selected: unknown (the CLI asks).
 */
export function geminiBilling(settings: Readonly<Record<string, unknown>>): ProviderV1BillingReport {
  const type = asRecord(asRecord(settings.security)?.auth)?.selectedType;
  if (typeof type !== 'string' || !type) return { billing: 'unknown', evidence: 'no security.auth.selectedType' };
  const evidence = `security.auth.selectedType "${type}"`;
  if (type === GeminiAuthType.OAuth) return { billing: 'subscription', evidence };
  // Cloud Shell's own credentials: not verified which account they bill
  if (type === 'cloud-shell') return { billing: 'unknown', evidence };
  return { billing: 'api', evidence };
}

/** Input of {@link buildWorkerSettings}. */
export interface WorkerSettingsInput {
  /** The user's settings (parsed); not modified. */
  readonly user: Readonly<Record<string, unknown>>;
  /** Shell command of the hook sink for a kind. */
  readonly hookCommand: (kind: HookKind) => string;
  /** The worker's env (for the auth choice). */
  readonly env: Readonly<Record<string, string>>;
  /** Deep-merged last (tests: `{model:{disableLoopDetection:true}}`). */
  readonly overrides?: Readonly<Record<string, unknown>>;
  /** Where the CLI writes its local telemetry (see {@link workerTelemetry}); none when absent. */
  readonly telemetryOutfile?: string;
}

/**
 * The worker's telemetry: local, into `outfile`, without prompts (ACCOUNT-FACTS §3.2: the only
 * record of each API attempt the TUI retries). A user's own enabled telemetry is kept as it is:
 * umbel never redirects it, and then has no such record.
 */
export function workerTelemetry(user: unknown, outfile: string | undefined): unknown {
  if (asRecord(user)?.enabled === true) return user;
  if (outfile === undefined) return user;
  return { enabled: true, target: 'local', outfile, logPrompts: false, useCollector: false };
}

/**
 * The worker's user settings: the user's settings, plus umbel's hooks appended to each event's
 * list, hooks forced on, the auth type chosen when the user has none, and auto-update off (a
 * worker must never update the CLI under the user's feet).
 */
export function buildWorkerSettings(input: WorkerSettingsInput): JsonObject {
  const s = structuredClone(input.user) as JsonObject;
  const hooks = Object.entries(GEMINI_HOOK_EVENTS).map(([event, kind]) => ({ event, kind, command: input.hookCommand(kind) }));
  s.hooks = commandHooks(hooks, { matcher: '', fields: (h) => ({ name: `umbel-${h.kind}`, timeout: HOOK_TIMEOUT_MS }) }, s.hooks);
  const hooksConfig: JsonObject = { ...asRecord(s.hooksConfig), enabled: true };
  if (Array.isArray(hooksConfig.disabled)) {
    hooksConfig.disabled = hooksConfig.disabled.filter((name) => !(typeof name === 'string' && name.startsWith('umbel-')));
  }
  s.hooksConfig = hooksConfig;
  const security: JsonObject = { ...asRecord(s.security) };
  const auth: JsonObject = { ...asRecord(security.auth) };
  if (typeof auth.selectedType !== 'string' || auth.selectedType === '') {
    const chosen = chooseAuthType(input.env);
    if (chosen) auth.selectedType = chosen;
  }
  if (Object.keys(auth).length > 0) security.auth = auth;
  if (Object.keys(security).length > 0) s.security = security;
  s.general = { ...asRecord(s.general), enableAutoUpdate: false, enableAutoUpdateNotification: false };
  const telemetry = workerTelemetry(s.telemetry, input.telemetryOutfile);
  if (telemetry !== undefined) s.telemetry = telemetry;
  return input.overrides ? deepMerge(s, input.overrides) : s;
}
