// Settings, trust and auth resolution of the fake `gemini`, as Gemini CLI 0.61.0 does it
// (reference gemini.md §1.1, §3.2, §4, §9; the layering was read in the bundled source):
//   schema defaults < system defaults < user < workspace (only when trusted) < system
// Hook lists of every layer are concatenated; other objects merge deeply; scalars and arrays replace.
// The two system layers are skipped (with a warning) unless the file and every parent directory
// are owned by root and not writable by group/others.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir as osHomedir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';

/** The Gemini home (GEMINI_CLI_HOME replaces HOME for all CLI state). */
export function geminiHome(env = process.env) {
  return env.GEMINI_CLI_HOME || osHomedir();
}

/** `$HOME/.gemini`. */
export function geminiDir(env = process.env) {
  return join(geminiHome(env), '.gemini');
}

export function stripJsonComments(text) {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      i += 2;
      while (i < text.length && !(text[i] === '*' && text[i + 1] === '/')) i++;
      i++;
    } else out += c;
  }
  return out.replace(/,(\s*[}\]])/g, '$1');
}

function isObject(v) {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Merge like the CLI: `hooks.<event>` arrays concatenate. */
export function mergeSettings(...layers) {
  const out = {};
  const merge = (target, src, path) => {
    for (const [k, v] of Object.entries(src ?? {})) {
      const p = [...path, k];
      if (p.length === 2 && p[0] === 'hooks' && Array.isArray(v)) {
        target[k] = [...(Array.isArray(target[k]) ? target[k] : []), ...structuredClone(v)];
      } else if (isObject(v)) {
        if (!isObject(target[k])) target[k] = {};
        merge(target[k], v, p);
      } else target[k] = structuredClone(v);
    }
  };
  for (const layer of layers) merge(out, layer, []);
  return out;
}

/** Read one settings file: {settings, error?}. A missing file is `{}`. */
export function loadSettingsFile(path) {
  if (!existsSync(path)) return { settings: {} };
  try {
    const text = readFileSync(path, 'utf8');
    if (text.trim() === '') return { settings: {} };
    const value = JSON.parse(stripJsonComments(text));
    if (!isObject(value)) return { settings: {}, error: `${path}: not an object` };
    return { settings: value };
  } catch (error) {
    return { settings: {}, error: `${path}: ${error.message}` };
  }
}

function insecureReason(path) {
  let p = resolve(path);
  for (;;) {
    let st;
    try {
      st = statSync(p);
    } catch {
      return undefined;
    }
    const what = st.isDirectory() ? 'Directory' : 'File';
    if (st.uid !== 0) return `${what} '${p}' is not owned by root (uid 0). Current uid: ${st.uid}.`;
    if ((st.mode & 0o022) !== 0) return `${what} '${p}' is writable by group or others (mode: ${st.mode.toString(8)}).`;
    const parent = dirname(p);
    if (parent === p) return undefined;
    p = parent;
  }
}

export function systemSettingsPath(env = process.env) {
  return env.GEMINI_CLI_SYSTEM_SETTINGS_PATH || '/etc/gemini-cli/settings.json';
}

export function systemDefaultsPath(env = process.env) {
  return env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH || join(dirname(systemSettingsPath(env)), 'system-defaults.json');
}

/** Trust of `cwd`: true, false, or undefined (ask). */
export function workspaceTrust(cwd, merged, env = process.env) {
  if (env.GEMINI_CLI_TRUST_WORKSPACE === 'false') return false;
  if (env.GEMINI_CLI_TRUST_WORKSPACE === 'true') return true;
  if (env.GEMINI_CLI_INTEGRATION_TEST === 'true') return true;
  if (merged?.security?.folderTrust?.enabled === false) return true;
  const file = trustedFoldersPath(env);
  const { settings: rules } = loadSettingsFile(file);
  let best;
  let bestLen = -1;
  const target = resolve(cwd);
  for (const [dir, level] of Object.entries(rules)) {
    const d = resolve(dir);
    const base = level === 'TRUST_PARENT' ? dirname(d) : d;
    if (target === base || target.startsWith(base.endsWith(sep) ? base : base + sep)) {
      if (base.length > bestLen) {
        bestLen = base.length;
        best = level;
      }
    }
  }
  if (best === undefined) return undefined;
  return best !== 'DO_NOT_TRUST';
}

export function trustedFoldersPath(env = process.env) {
  return env.GEMINI_CLI_TRUSTED_FOLDERS_PATH || join(geminiDir(env), 'trustedFolders.json');
}

/** Write `{cwd: TRUST_FOLDER}` into trustedFolders.json (mode 0600), as the trust dialog does. */
export function trustFolder(cwd, env = process.env) {
  const file = trustedFoldersPath(env);
  const { settings } = loadSettingsFile(file);
  settings[resolve(cwd)] = 'TRUST_FOLDER';
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
}

/** Write a key into the *user* settings (what the auth dialog does). */
export function saveUserSetting(env, path, value) {
  const file = join(geminiDir(env), 'settings.json');
  const { settings } = loadSettingsFile(file);
  let cur = settings;
  const keys = path.split('.');
  for (const k of keys.slice(0, -1)) {
    if (!isObject(cur[k])) cur[k] = {};
    cur = cur[k];
  }
  cur[keys.at(-1)] = value;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`);
}

/**
 * Load every layer. Returns {merged, trusted, warnings, errors}.
 */
export function loadSettings(cwd, env = process.env) {
  const warnings = [];
  const errors = [];
  const system = (path, label) => {
    if (!existsSync(path)) return {};
    const reason = insecureReason(path);
    if (reason) {
      warnings.push(`Security Warning: Skipping ${label} file '${path}': ${reason}`);
      return {};
    }
    const r = loadSettingsFile(path);
    if (r.error) errors.push(r.error);
    return r.settings;
  };
  const sys = system(systemSettingsPath(env), 'system settings');
  const sysDefaults = system(systemDefaultsPath(env), 'system defaults');
  const userR = loadSettingsFile(join(geminiDir(env), 'settings.json'));
  if (userR.error) errors.push(userR.error);
  const isHome = resolve(cwd) === resolve(geminiHome(env));
  const wsR = isHome ? { settings: {} } : loadSettingsFile(join(cwd, '.gemini', 'settings.json'));
  if (wsR.error) errors.push(wsR.error);
  const trusted = workspaceTrust(cwd, mergeSettings(sysDefaults, userR.settings, sys), env);
  const merged = mergeSettings(sysDefaults, userR.settings, trusted ? wsR.settings : {}, sys);
  return { merged, trusted, warnings, errors, projectHooks: trusted ? Object.keys(wsR.settings.hooks ?? {}) : [] };
}

/**
 * The auth type in effect: `security.auth.selectedType`, else derived from the env the way 0.61.0
 * does (GOOGLE_GEMINI_BASE_URL wins and gives the unusable `gateway`).
 */
export function authType(merged, env = process.env) {
  const selected = merged?.security?.auth?.selectedType;
  if (selected) return { type: selected, explicit: true };
  if (env.GOOGLE_GEMINI_BASE_URL) return { type: 'gateway', explicit: false };
  if (env.GOOGLE_GENAI_USE_VERTEXAI === 'true') return { type: 'vertex-ai', explicit: false };
  if (env.GEMINI_API_KEY) return { type: 'gemini-api-key', explicit: false };
  return { type: undefined, explicit: false };
}

/** Validate an auth type against the env: undefined when usable, else the CLI's message. */
export function authProblem(type, env = process.env) {
  if (type === 'gemini-api-key') {
    return env.GEMINI_API_KEY
      ? undefined
      : 'When using Gemini API, you must specify the GEMINI_API_KEY environment variable.\nUpdate your environment and try again (no reload needed if using .env)!';
  }
  if (type === 'vertex-ai')
    return env.GOOGLE_API_KEY || env.GOOGLE_CLOUD_PROJECT ? undefined : 'When using Vertex AI, you must specify either GOOGLE_API_KEY or GOOGLE_CLOUD_PROJECT.';
  if (type === 'oauth-personal') return env.FAKE_GEMINI_OAUTH_OK === '1' ? undefined : 'Not signed in with Google.';
  return 'Invalid auth method selected.';
}
