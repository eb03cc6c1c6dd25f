/** The CODEX_HOME of every codex worker of one state root (`<sharedDir>/home`; docs/providers/codex.md: "The managed CODEX_HOME"). */
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { parse, patch } from '@decimalturn/toml-patch';
import type { HookInstallContext, HookKind, InstalledHook, InstallPlan, ProviderV1BillingReport, ProviderV1LaunchOptions } from '@umbel/provider';
import { asRecord, attempt, canonicalJson, commandHooks, definedMembers, jsonText, parseJson, recordAt, rememberLast, valueAt } from '@umbel/provider';

/** Codex hook events umbel installs, and the neutral kind each reports. */
export const CODEX_HOOK_EVENTS = {
  SessionStart: 'session',
  UserPromptSubmit: 'prompt',
  PreToolUse: 'tool',
  PermissionRequest: 'permission',
  Stop: 'stop',
  Interrupt: 'interrupt',
  SessionEnd: 'session-end',
} as const satisfies Record<string, HookKind>;

/** Hook timeout umbel asks for (seconds); codex caps Interrupt's and SessionEnd's at 3 s (codex-FACTS.md: "Hook trust"). */
export const HOOK_TIMEOUT_SECONDS = 30;
const CAPPED = new Set(['interrupt', 'session_end']);

/** The timeout codex actually uses for an event (also what goes into the trust hash). */
export const effectiveTimeout = (snake: string, timeout = 600): number => (CAPPED.has(snake) ? Math.min(timeout, 3) : timeout);

/** One command handler of a codex hook, as its trust hash sees it. */
type CodexHookHandler = { command: string; timeout?: number; async?: boolean; statusMessage?: string };

/** The `trusted_hash` codex expects in `[hooks.state."<key>"]` for one command handler (codex-FACTS.md: "Hook trust"). */
export function codexHookHash(snake: string, handler: CodexHookHandler, matcher?: string): string {
  const { command, statusMessage } = handler;
  const hook = { async: handler.async ?? false, command, statusMessage, timeout: effectiveTimeout(snake, handler.timeout), type: 'command' };
  const identity = canonicalJson({ event_name: snake, hooks: [hook], matcher });
  return `sha256:${createHash('sha256').update(identity).digest('hex')}`;
}

/** One installed hook: where it lives and how it is trusted. */
export interface CodexHookEntry extends InstalledHook {
  readonly timeout: number;
  /** `<home>/hooks.json:<event_snake>:0:0` */
  readonly stateKey: string;
  readonly trustedHash: string;
}

/** The hooks umbel installs (the kit's, one per {@link CODEX_HOOK_EVENTS}) as `<home>/hooks.json` keys and trusts them. Pure. */
export function codexHooks(home: string, hooks: readonly InstalledHook[]): CodexHookEntry[] {
  return hooks.map(({ event, kind, command }) => {
    // its name in config keys: UserPromptSubmit → user_prompt_submit
    const snake = event.replace(/(?<!^)([A-Z])/g, '_$1').toLowerCase();
    const timeout = effectiveTimeout(snake, HOOK_TIMEOUT_SECONDS);
    return { event, kind, command, timeout, stateKey: `${home}/hooks.json:${snake}:0:0`, trustedHash: codexHookHash(snake, { command, timeout }) };
  });
}

/** The config as an object (a fresh one: the caller may change it), or undefined when the text is not TOML. */
const parseConfig = (text: string) => attempt(() => parse(text) as Record<string, unknown>);
/** The config to read values from (never changed): a launch reads one text for its env key, billing and endpoint. */
const readConfig = rememberLast(parseConfig);

/** A scalar at `table.key` (string, boolean, number or date) as text; undefined when absent, not a scalar, or the text is not TOML. */
export function readTomlScalar(text: string, table: readonly string[], key: string): string | undefined {
  const value = valueAt(readConfig(text), [...table, key]);
  return value === undefined || value === null || (typeof value === 'object' && !(value instanceof Date)) ? undefined : String(value);
}

/** What umbel sets in the managed config.toml. */
export interface ManagedConfigOptions {
  /** Absolute managed CODEX_HOME. */
  readonly home: string;
  /** Directories to mark `trust_level = "trusted"`. */
  readonly trust: readonly string[];
  readonly hooks: readonly CodexHookEntry[];
  /** The user's CODEX_HOME, to carry their own config.toml hook trust over to the managed path. */
  readonly userHome?: string;
}

/**
 * The managed config.toml from the user's text (or the managed copy): the managed keys set (new tables as `[table]` sections, as codex
 * writes them), the rest kept as it is; a text holding them all comes back unpatched. Pure, idempotent; not TOML: left alone (codex refuses it).
 */
export function renderManagedConfig(existing: string, options: ManagedConfigOptions): string {
  const config = parseConfig(existing);
  if (!config) return existing;
  const before = attempt(() => canonicalJson(config));
  const state = recordAt(config, ['hooks', 'state']);
  if (options.userHome && options.userHome !== options.home) {
    // The user's own config.toml hooks are keyed by their file's path; keep them trusted here.
    const from = `${options.userHome}/config.toml:`;
    for (const key of Object.keys(state).filter((k) => k.startsWith(from))) {
      state[`${options.home}/config.toml:${key.slice(from.length)}`] = state[key];
      delete state[key];
    }
  }
  config.check_for_update_on_startup = false;
  Object.assign(recordAt(config, ['features']), { daemon_auto_start: false, unbounded_connection_retries: false });
  // hides the blocking "Approaching rate limits" dialog after a plan limit (ACCOUNT-FACTS.md §2.2)
  recordAt(config, ['notice']).hide_rate_limit_model_nudge = true;
  for (const dir of options.trust) recordAt(config, ['projects', dir]).trust_level = 'trusted';
  for (const h of options.hooks) recordAt(state, [h.stateKey]).trusted_hash = h.trustedHash;
  const text = before !== undefined && attempt(() => canonicalJson(config)) === before ? existing : patch(existing, config, { inlineTableStart: 8 });
  return text.endsWith('\n') ? text : `${text}\n`;
}

/** The `env_key` of the model provider a config selects, if it is a custom provider with one. */
export function configuredEnvKey(configText: string): string | undefined {
  const id = readTomlScalar(configText, [], 'model_provider');
  const key = id ? readTomlScalar(configText, ['model_providers', id], 'env_key') : undefined;
  return key && /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? key : undefined;
}

/** Install the hooks, a plan the kit carries out: the managed home (from `userHome`, `$CODEX_HOME` or `~/.codex`; shared: locked), a temp dir, auth.json. */
export function installCodexHome({ launch, hooks: installed }: HookInstallContext, userHomeSetting?: string): InstallPlan {
  const userHome = resolve(userHomeSetting ?? launch.callerEnv.CODEX_HOME ?? join(launch.callerEnv.HOME ?? homedir(), '.codex'));
  const home = join(launch.sharedDir, 'home');
  const hooks = codexHooks(home, installed);
  const config = (current = '') => renderManagedConfig(current, { home, trust: [launch.cwd], hooks, userHome });
  const files = { 'hooks.json': () => jsonText({ hooks: commandHooks(hooks, { fields: (h) => ({ timeout: h.timeout }) }) }), 'config.toml': config };
  const tmp = codexTempDir(home, launch);
  const managed = { user: userHome, home, lock: true, files, link: ['auth.json', 'AGENTS.md'] };
  return {
    prepare: { home: managed, dirs: tmp ? [tmp] : [], read: { auth: join(home, 'auth.json') } },
    parts: ({ home: { 'config.toml': configText = '' }, read }) => {
      const envKey = configuredEnvKey(configText);
      // a custom provider's `env_key` passed by name (unless the caller set it); the billing and endpoint by the config
      const passed = envKey && envKey !== 'CODEX_HOME' && launch.env[envKey] === undefined ? { [envKey]: launch.callerEnv[envKey] } : {};
      const env = definedMembers({ CODEX_HOME: home, TMPDIR: tmp, ...passed }) as Record<string, string>;
      return definedMembers({ env, billing: codexBilling(configText, read.auth), endpoint: codexEndpoint(configText) });
    },
  };
}

/** A private TMPDIR when the home lies inside the worker's temp dir, unless the caller names one (docs/providers/codex.md: "Pitfalls handled for you"). */
export function codexTempDir(home: string, launch: Pick<ProviderV1LaunchOptions, 'env' | 'callerEnv' | 'workerDir'>): string | undefined {
  if (launch.env.TMPDIR !== undefined) return undefined;
  const temp = resolve(launch.callerEnv.TMPDIR || '/tmp');
  const rel = relative(temp, resolve(home));
  const inside = rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  return inside ? join(launch.workerDir, 'tmp') : undefined;
}

/** The base URL the config sends requests to: the selected custom provider's `base_url`, else `openai_base_url`. */
export function codexEndpoint(configText: string): string | undefined {
  const provider = readTomlScalar(configText, [], 'model_provider');
  const custom = provider && provider !== 'openai' ? readTomlScalar(configText, ['model_providers', provider], 'base_url') : undefined;
  return custom || readTomlScalar(configText, [], 'openai_base_url') || undefined;
}

/** How the worker bills: a custom model provider its own API, the built-in one by auth.json (ACCOUNT-FACTS §2.1; docs/providers/codex.md: "Billing"). */
export function codexBilling(configText: string, authText: string | undefined): ProviderV1BillingReport {
  const provider = readTomlScalar(configText, [], 'model_provider');
  if (provider && provider !== 'openai') {
    const key = configuredEnvKey(configText);
    return { billing: 'api', evidence: `model_provider "${provider}"${key ? ` (env_key ${key})` : ''}: a custom provider bills its own API` };
  }
  const mode = authModeOf(authText);
  if (mode === 'chatgpt') return { billing: 'subscription', evidence: 'auth.json auth_mode "chatgpt" (ChatGPT login)' };
  if (mode === 'apikey') return { billing: 'api', evidence: 'auth.json auth_mode "apikey" (codex login --with-api-key)' };
  return { billing: 'unknown', evidence: authText === undefined ? 'no auth.json' : 'auth.json names no auth mode' };
}

function authModeOf(text: string | undefined): 'chatgpt' | 'apikey' | undefined {
  const auth = asRecord(text === undefined ? undefined : parseJson(text));
  if (auth?.auth_mode === 'chatgpt' || auth?.auth_mode === 'apikey') return auth.auth_mode;
  if (asRecord(auth?.tokens)) return 'chatgpt';
  return typeof auth?.OPENAI_API_KEY === 'string' && auth.OPENAI_API_KEY ? 'apikey' : undefined;
}
