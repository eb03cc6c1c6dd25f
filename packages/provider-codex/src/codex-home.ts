/**
 * The CODEX_HOME umbel manages for every codex worker of one state root (`<sharedDir>/home`).
 *
 * - `config.toml` is copied once from the user's own (`$CODEX_HOME` or `~/.codex`), then only
 *   edited: umbel sets the keys it needs (no daemon, bounded retries, no update check, the worker
 *   cwd trusted, its hooks pre-trusted) and leaves everything else — including what codex writes
 *   itself — untouched. The user's files are never written.
 * - `hooks.json` is umbel's alone: one handler per codex event, each calling `umbel-hook <kind>`.
 * - `auth.json` (and `AGENTS.md`) are symlinks to the user's, so no secret is copied and a token
 *   refresh is shared.
 *
 * Concurrency: every spawn runs `prepareCodexHome`, which takes a directory lock
 * (`<sharedDir>/home.lock`, stale after 30 s), re-reads config.toml, applies its edits and writes
 * through a temp file + rename; files that would not change are not written. So two spawns with
 * different cwds both end up trusted, and a reader never sees a half-written file.
 */
import { createHash, randomBytes } from 'node:crypto';
import { lstat, mkdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type HookKind, SpawnFailedError } from '@umbel/core';
import { readTomlScalar, tomlString, upsertTomlKey } from './toml-edit.js';

/** Codex hook events umbel installs, with the neutral kind each one reports. */
export const CODEX_HOOK_EVENTS = [
  { event: 'SessionStart', snake: 'session_start', kind: 'session' },
  { event: 'UserPromptSubmit', snake: 'user_prompt_submit', kind: 'prompt' },
  { event: 'PreToolUse', snake: 'pre_tool_use', kind: 'tool' },
  { event: 'PermissionRequest', snake: 'permission_request', kind: 'permission' },
  { event: 'Stop', snake: 'stop', kind: 'stop' },
  { event: 'Interrupt', snake: 'interrupt', kind: 'interrupt' },
  { event: 'SessionEnd', snake: 'session_end', kind: 'session-end' },
] as const satisfies readonly { event: string; snake: string; kind: HookKind }[];

/** Hook timeout umbel asks for (seconds). Codex clamps Interrupt and SessionEnd to 3 s. */
export const HOOK_TIMEOUT_SECONDS = 30;
const CLAMPED = new Set(['interrupt', 'session_end']);

/** The timeout codex actually uses for an event (also what goes into the trust hash). */
export function effectiveTimeout(snake: string, timeout: number | undefined): number {
  const t = timeout ?? 600;
  return CLAMPED.has(snake) ? Math.min(t, 3) : t;
}

const sortKeys = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(sortKeys)
    : v && typeof v === 'object'
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
        )
      : v;

/**
 * The `trusted_hash` codex expects in `[hooks.state."<key>"]` for one command handler
 * (reference codex.md §6.2): sha256 of the canonical JSON of the handler's identity.
 */
export function codexHookHash(
  snake: string,
  handler: { command: string; timeout?: number; async?: boolean; statusMessage?: string },
  matcher?: string,
): string {
  const h: Record<string, unknown> = {
    async: handler.async ?? false,
    command: handler.command,
    timeout: effectiveTimeout(snake, handler.timeout),
    type: 'command',
  };
  if (handler.statusMessage !== undefined) h.statusMessage = handler.statusMessage;
  const identity: Record<string, unknown> = { event_name: snake, hooks: [h] };
  if (matcher !== undefined) identity.matcher = matcher;
  return `sha256:${createHash('sha256')
    .update(JSON.stringify(sortKeys(identity)))
    .digest('hex')}`;
}

/** One installed hook: where it lives and how it is trusted. */
export interface CodexHookEntry {
  readonly event: string;
  readonly kind: HookKind;
  readonly command: string;
  readonly timeout: number;
  /** `<home>/hooks.json:<event_snake>:0:0` */
  readonly stateKey: string;
  readonly trustedHash: string;
}

/** The hooks umbel installs in `<home>/hooks.json`. Pure. */
export function codexHooks(home: string, hookCommand: (kind: HookKind) => string): CodexHookEntry[] {
  return CODEX_HOOK_EVENTS.map(({ event, snake, kind }) => {
    const timeout = effectiveTimeout(snake, HOOK_TIMEOUT_SECONDS);
    const command = hookCommand(kind);
    return { event, kind, command, timeout, stateKey: `${home}/hooks.json:${snake}:0:0`, trustedHash: codexHookHash(snake, { command, timeout }) };
  });
}

/** The text of `<home>/hooks.json`. Pure. */
export function renderHooksJson(hooks: readonly CodexHookEntry[]): string {
  const out: Record<string, unknown> = {};
  for (const h of hooks) out[h.event] = [{ hooks: [{ type: 'command', command: h.command, timeout: h.timeout }] }];
  return `${JSON.stringify({ hooks: out }, null, 2)}\n`;
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
 * Turn the user's config.toml text (or the managed copy) into the managed one. Pure and
 * idempotent: applying it to its own output changes nothing.
 */
export function renderManagedConfig(existing: string, options: ManagedConfigOptions): string {
  let text = existing;
  if (options.userHome && options.userHome !== options.home) {
    // The user's own config.toml hooks are keyed by their file's path; keep them trusted here.
    const from = `[hooks.state.${tomlString(`${options.userHome}/config.toml:`).slice(0, -1)}`;
    const to = `[hooks.state.${tomlString(`${options.home}/config.toml:`).slice(0, -1)}`;
    text = text.split(from).join(to);
  }
  text = upsertTomlKey(text, [], 'check_for_update_on_startup', 'false');
  text = upsertTomlKey(text, ['features'], 'daemon_auto_start', 'false');
  text = upsertTomlKey(text, ['features'], 'unbounded_connection_retries', 'false');
  for (const dir of options.trust) text = upsertTomlKey(text, ['projects', dir], 'trust_level', tomlString('trusted'));
  for (const h of options.hooks) text = upsertTomlKey(text, ['hooks', 'state', h.stateKey], 'trusted_hash', tomlString(h.trustedHash));
  return text.endsWith('\n') ? text : `${text}\n`;
}

/** The `env_key` of the model provider a config selects, if it is a custom provider with one. */
export function configuredEnvKey(configText: string): string | undefined {
  const id = readTomlScalar(configText, [], 'model_provider');
  if (!id) return undefined;
  const key = readTomlScalar(configText, ['model_providers', id], 'env_key');
  return key && /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? key : undefined;
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function writeIfChanged(path: string, content: string): Promise<boolean> {
  if ((await readText(path)) === content) return false;
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  await writeFile(tmp, content, { mode: 0o600 });
  try {
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
  return true;
}

async function withLock<T>(lockDir: string, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
    try {
      await mkdir(lockDir);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      try {
        const st = await stat(lockDir);
        if (Date.now() - st.mtimeMs > 30_000) {
          await rm(lockDir, { recursive: true, force: true });
          continue;
        }
      } catch {
        continue;
      }
      if (Date.now() > deadline)
        throw new SpawnFailedError(`timed out waiting for the codex home lock ${lockDir}`, { hint: `remove ${lockDir} if no umbel spawn is running` });
      await new Promise((r) => setTimeout(r, delay));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lockDir, { recursive: true, force: true });
  }
}

async function linkIfAbsent(target: string, path: string): Promise<void> {
  try {
    await lstat(path);
    return; // already there (a link, or a file codex wrote after `codex login`)
  } catch {}
  try {
    await stat(target);
  } catch {
    return;
  }
  try {
    await symlink(target, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** Inputs of `prepareCodexHome`. */
export interface PrepareCodexHomeOptions {
  readonly home: string;
  readonly userHome: string;
  readonly cwd: string;
  readonly hookCommand: (kind: HookKind) => string;
}

/** What `prepareCodexHome` produced. */
export interface PreparedCodexHome {
  readonly home: string;
  readonly configText: string;
  readonly hooks: readonly CodexHookEntry[];
}

/** Create or update the managed CODEX_HOME (see the module comment). Safe to run concurrently. */
export async function prepareCodexHome(options: PrepareCodexHomeOptions): Promise<PreparedCodexHome> {
  const { home, userHome, cwd } = options;
  await mkdir(home, { recursive: true, mode: 0o700 });
  const hooks = codexHooks(home, options.hookCommand);
  return withLock(`${home}.lock`, async () => {
    await writeIfChanged(join(home, 'hooks.json'), renderHooksJson(hooks));
    const configPath = join(home, 'config.toml');
    const current = (await readText(configPath)) ?? (userHome !== home ? await readText(join(userHome, 'config.toml')) : undefined) ?? '';
    const configText = renderManagedConfig(current, { home, trust: [cwd], hooks, userHome });
    await writeIfChanged(configPath, configText);
    if (userHome !== home) {
      await linkIfAbsent(join(userHome, 'auth.json'), join(home, 'auth.json'));
      await linkIfAbsent(join(userHome, 'AGENTS.md'), join(home, 'AGENTS.md'));
    }
    return { home, configText, hooks };
  });
}
