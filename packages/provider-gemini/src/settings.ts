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
import { deepMerge, type HookKind, isRecord, type ProviderV1BillingReport } from '@umbel/provider';
import { GEMINI_HOOK_EVENTS } from './facts.js';

/** Timeout of umbel's hook commands (ms); the sink writes one file and exits. */
export const HOOK_TIMEOUT_MS = 10_000;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (value: unknown): value is JsonObject => isRecord(value);

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
  const security = isObject(settings.security) ? settings.security : {};
  const auth = isObject(security.auth) ? security.auth : {};
  const type = typeof auth.selectedType === 'string' ? auth.selectedType : undefined;
  if (!type) return { billing: 'unknown', evidence: 'no security.auth.selectedType' };
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
export function workerTelemetry(user: Json | undefined, outfile: string | undefined): Json | undefined {
  if (isObject(user) && user.enabled === true) return user;
  if (outfile === undefined) return user;
  return { enabled: true, target: 'local', outfile, logPrompts: false, useCollector: false };
}

/** Deep merge of plain objects (arrays and scalars of `b` replace): the kit's. */
export { deepMerge };

/**
 * The worker's user settings: the user's settings, plus umbel's hooks appended to each event's
 * list, hooks forced on, the auth type chosen when the user has none, and auto-update off (a
 * worker must never update the CLI under the user's feet).
 */
export function buildWorkerSettings(input: WorkerSettingsInput): JsonObject {
  const s = structuredClone(input.user) as JsonObject;
  const hooks: JsonObject = isObject(s.hooks) ? s.hooks : {};
  for (const [event, kind] of Object.entries(GEMINI_HOOK_EVENTS)) {
    const existing = Array.isArray(hooks[event]) ? (hooks[event] as Json[]) : [];
    hooks[event] = [
      ...existing,
      { matcher: '', hooks: [{ name: `umbel-${kind}`, type: 'command', command: input.hookCommand(kind), timeout: HOOK_TIMEOUT_MS }] },
    ];
  }
  s.hooks = hooks;
  const hooksConfig: JsonObject = isObject(s.hooksConfig) ? s.hooksConfig : {};
  hooksConfig.enabled = true;
  if (Array.isArray(hooksConfig.disabled)) {
    hooksConfig.disabled = hooksConfig.disabled.filter((name) => !(typeof name === 'string' && name.startsWith('umbel-')));
  }
  s.hooksConfig = hooksConfig;
  const security: JsonObject = isObject(s.security) ? s.security : {};
  const auth: JsonObject = isObject(security.auth) ? security.auth : {};
  if (typeof auth.selectedType !== 'string' || auth.selectedType === '') {
    const chosen = chooseAuthType(input.env);
    if (chosen) auth.selectedType = chosen;
  }
  if (Object.keys(auth).length > 0) security.auth = auth;
  if (Object.keys(security).length > 0) s.security = security;
  const general: JsonObject = isObject(s.general) ? s.general : {};
  general.enableAutoUpdate = false;
  general.enableAutoUpdateNotification = false;
  s.general = general;
  const telemetry = workerTelemetry(s.telemetry, input.telemetryOutfile);
  if (telemetry !== undefined) s.telemetry = telemetry;
  return input.overrides ? (deepMerge(s, input.overrides) as JsonObject) : s;
}
