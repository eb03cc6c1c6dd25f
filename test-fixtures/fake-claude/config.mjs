// Config root, `.claude.json`, settings and session files of the fake `claude`.
// Reference: /work/shared/reference/claude-code.md §2.1 (config root), §2.2 (seed), §3 (settings, sessions/<pid>.json).
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The version the fake pretends to be. */
export const VERSION = '2.1.328';

/** A user-facing failure: `text` goes to `stream` and the process exits with `code`. */
export class FakeExit extends Error {
  /**
   * @param {number} code exit code
   * @param {string} text message (printed as is, a newline is added)
   * @param {'stdout'|'stderr'} [stream]
   */
  constructor(code, text, stream = 'stderr') {
    super(text);
    this.code = code;
    this.text = text;
    this.stream = stream;
  }
}

/**
 * Paths of the config root (§2.1): `CLAUDE_CONFIG_DIR` holds everything, `.claude.json` included;
 * otherwise `$HOME/.claude` with `$HOME/.claude.json` beside it.
 * @param {NodeJS.ProcessEnv} env
 */
export function configPaths(env) {
  const home = env.HOME || '/root';
  if (env.CLAUDE_CONFIG_DIR) {
    const root = resolve(env.CLAUDE_CONFIG_DIR);
    return { root, globalFile: join(root, '.claude.json') };
  }
  return { root: join(home, '.claude'), globalFile: join(home, '.claude.json') };
}

/** `<enc-cwd>`: every char not `[A-Za-z0-9]` → `-` (§2.1). */
export function encodeCwd(cwd) {
  return cwd.replace(/[^A-Za-z0-9]/g, '-');
}

/** Read a JSON file; `undefined` when missing, `{}`-like fallback when unparsable. */
export function readJson(file, fallback = undefined) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return fallback;
  }
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
}

/** Atomic write (temp file + rename), creating the parent directory. */
export function writeJsonAtomic(file, value) {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.tmp.${process.pid}.${Date.now()}`;
  writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(tmp, file);
}

/** Read-modify-write of `.claude.json` (re-read right before writing, like the real lock+write). */
export function updateGlobalConfig(paths, mutate) {
  const current = readJson(paths.globalFile, {}) ?? {};
  mutate(current);
  writeJsonAtomic(paths.globalFile, current);
  return current;
}

/** True when `projects[<cwd or any ancestor>].hasTrustDialogAccepted` (§2.2). */
export function isTrusted(globalConfig, cwd) {
  const projects = globalConfig?.projects ?? {};
  let dir = cwd;
  for (;;) {
    if (projects[dir]?.hasTrustDialogAccepted === true) return true;
    const parent = dirname(dir);
    if (parent === dir) return false;
    dir = parent;
  }
}

/** The part of an API key that `customApiKeyResponses` stores: its last 20 chars (or all of it). */
export function keyTail(key) {
  return key.length > 20 ? key.slice(-20) : key;
}

/**
 * Load one settings source: a path, or inline JSON when it starts with `{` (`--settings <file-or-json>`).
 * @returns {object}
 */
export function loadSettingsArg(value) {
  const trimmed = value.trim();
  if (trimmed.startsWith('{')) {
    try {
      return JSON.parse(trimmed);
    } catch {
      throw new FakeExit(1, `Error: Invalid JSON provided to --settings`);
    }
  }
  if (!existsSync(value)) throw new FakeExit(1, `Error: Settings file not found: ${value}`);
  const parsed = readJson(value, null);
  if (parsed === null || typeof parsed !== 'object') throw new FakeExit(1, `Error: Invalid settings file: ${value}`);
  return parsed;
}

/**
 * All settings sources in precedence order (user, project, local, --settings); hooks from all of them fire.
 * @returns {object[]}
 */
export function loadSettings(paths, cwd, settingsArg) {
  const sources = [
    readJson(join(paths.root, 'settings.json'), null),
    readJson(join(cwd, '.claude', 'settings.json'), null),
    readJson(join(cwd, '.claude', 'settings.local.json'), null),
  ].filter((s) => s && typeof s === 'object');
  if (settingsArg !== undefined) sources.push(loadSettingsArg(settingsArg));
  return sources;
}

/** Merge the fields the fake uses from the settings sources (later wins; lists concatenate). */
export function mergeSettings(sources) {
  const merged = { hooks: {}, allow: [], defaultMode: undefined, skipDangerousModePermissionPrompt: false, statusLine: undefined };
  for (const s of sources) {
    // statusLine: the highest-precedence source that sets one wins (--settings over the user's own).
    if (s.statusLine && typeof s.statusLine === 'object' && typeof s.statusLine.command === 'string') merged.statusLine = s.statusLine;
    for (const [event, groups] of Object.entries(s.hooks ?? {})) {
      if (Array.isArray(groups)) merged.hooks[event] = [...(merged.hooks[event] ?? []), ...groups];
    }
    if (Array.isArray(s.permissions?.allow)) merged.allow.push(...s.permissions.allow.map(String));
    if (typeof s.permissions?.defaultMode === 'string') merged.defaultMode = s.permissions.defaultMode;
    if (s.skipDangerousModePermissionPrompt === true) merged.skipDangerousModePermissionPrompt = true;
    if (s.disableAllHooks === true) merged.disableAllHooks = true;
  }
  return merged;
}

/** Model aliases (§1). */
export function resolveModel(flag, env) {
  const aliases = { sonnet: 'claude-sonnet-5-5', opus: 'claude-opus-5-5', haiku: 'claude-haiku-5-5', fable: 'claude-fable-5-2' };
  const chosen = flag ?? env.ANTHROPIC_MODEL ?? 'opus';
  return aliases[chosen] ?? chosen;
}

/** Where a session's transcript lives. */
export function transcriptPathFor(paths, cwd, sessionId) {
  return join(paths.root, 'projects', encodeCwd(cwd), `${sessionId}.jsonl`);
}

/** Find an existing transcript for `sessionId` in any project directory. */
export function findTranscript(paths, cwd, sessionId) {
  const own = transcriptPathFor(paths, cwd, sessionId);
  if (existsSync(own)) return own;
  const projects = join(paths.root, 'projects');
  let dirs = [];
  try {
    dirs = readdirSync(projects);
  } catch {
    return undefined;
  }
  for (const d of dirs) {
    const file = join(projects, d, `${sessionId}.jsonl`);
    if (existsSync(file)) return file;
  }
  return undefined;
}

/** Newest transcript in the cwd's project directory (`--continue`). */
export function newestSession(paths, cwd) {
  const dir = join(paths.root, 'projects', encodeCwd(cwd));
  let best;
  try {
    for (const f of readdirSync(dir)) {
      if (!f.endsWith('.jsonl')) continue;
      const m = statSync(join(dir, f)).mtimeMs;
      if (!best || m > best.m) best = { m, id: f.slice(0, -6) };
    }
  } catch {
    return undefined;
  }
  return best?.id;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a canonical UUID string. */
/** A fake-only knob in ms: the env value when it is a whole number, else `fallback`. */
export function envMs(env, name, fallback) {
  return /^\d+$/.test(env[name] ?? '') ? Number(env[name]) : fallback;
}

export function isUuid(value) {
  return UUID_RE.test(value);
}

/** Live registry `<config>/sessions/<pid>.json` (§3 state signals). */
export class SessionRegistry {
  constructor(paths, info) {
    this.file = join(paths.root, 'sessions', `${process.pid}.json`);
    this.info = { pid: process.pid, ...info, startedAt: Date.now(), version: VERSION, kind: 'interactive', entrypoint: 'cli', name: null };
    this.status = undefined;
  }

  /** Write with a new status (idle|busy|waiting). */
  set(status, extra = {}) {
    const now = Date.now();
    if (status !== this.status) this.statusUpdatedAt = now;
    this.status = status;
    Object.assign(this.info, extra);
    try {
      writeJsonAtomic(this.file, { ...this.info, status, updatedAt: now, statusUpdatedAt: this.statusUpdatedAt });
    } catch {
      // best effort, like the real registry
    }
  }

  remove() {
    rmSync(this.file, { force: true });
  }
}

/** A fresh UUID. */
export function uuid() {
  return randomUUID();
}
