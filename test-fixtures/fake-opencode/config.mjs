// Config of the fake opencode, loaded like opencode 1.18.33 does (FACTS.md §a): the global dir,
// OPENCODE_CONFIG, project opencode.json(c), the config directories (global, .opencode up from the
// cwd, ~/.opencode, OPENCODE_CONFIG_DIR) with their plugins/, then OPENCODE_CONFIG_CONTENT and
// OPENCODE_PERMISSION. Every config dir gets opencode's .gitignore and the background
// "@opencode-ai/plugin" install check — the plugin-install trap: with a plugin present, startup
// waits for every dir that needs an install; offline (always, in tests) that costs
// FAKE_OPENCODE_INSTALL_STALL_MS (default 65000) and logs the real WARN line.
import { accessSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export const VERSION = '1.18.33';
const GITIGNORE = ['node_modules', 'package.json', 'package-lock.json', 'bun.lock', '.gitignore'].join('\n');

/** XDG base dirs as opencode resolves them. */
export function paths(env = process.env) {
  const home = env.HOME || homedir();
  return {
    home,
    config: join(env.XDG_CONFIG_HOME || join(home, '.config'), 'opencode'),
    data: join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'opencode'),
    state: join(env.XDG_STATE_HOME || join(home, '.local', 'state'), 'opencode'),
  };
}

/** JSON with // and /* comments and trailing commas (enough of jsonc for config files). */
export function parseJsonc(text, file) {
  const stripped = text.replace(/("(?:\\.|[^"\\])*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (_m, str) => str ?? '').replace(/,(\s*[}\]])/g, '$1');
  try {
    return JSON.parse(stripped);
  } catch (err) {
    throw new Error(`Config file at ${file} is not valid JSON(C): ${err.message}`);
  }
}

function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Deep merge (objects merged, everything else replaced); `plugin` arrays are concatenated. */
export function merge(a, b) {
  const out = { ...a };
  for (const [k, v] of Object.entries(b ?? {})) {
    if (k === 'plugin' && Array.isArray(v)) out[k] = [...new Set([...(a?.[k] ?? []), ...v])];
    else out[k] = isObject(v) && isObject(a?.[k]) ? merge(a[k], v) : v;
  }
  return out;
}

function readConfigFile(file) {
  if (!existsSync(file)) return {};
  return parseJsonc(readFileSync(file, 'utf8'), file);
}

/** Existing `target` dirs from `start` up to `stop` (inclusive), nearest first. */
function up(target, start, stop) {
  const out = [];
  let dir = resolve(start);
  for (;;) {
    const p = join(dir, target);
    if (existsSync(p)) out.push(p);
    if (dir === stop || dirname(dir) === dir) break;
    dir = dirname(dir);
  }
  return out;
}

/** The project's worktree: the nearest dir with .git, else "/" (opencode's "global" project). */
export function worktreeOf(cwd) {
  let dir = resolve(cwd);
  for (;;) {
    if (existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return '/';
    dir = dirname(dir);
  }
}

/** Config directories in load order (ConfigPaths.directories). */
export function configDirs(cwd, env = process.env) {
  const p = paths(env);
  const worktree = worktreeOf(cwd);
  const project = env.OPENCODE_DISABLE_PROJECT_CONFIG ? [] : up('.opencode', cwd, worktree).reverse();
  const homeDot = existsSync(join(p.home, '.opencode')) ? [join(p.home, '.opencode')] : [];
  const dirs = [p.config, ...project, ...homeDot, ...(env.OPENCODE_CONFIG_DIR ? [resolve(env.OPENCODE_CONFIG_DIR)] : [])];
  return [...new Set(dirs)];
}

/** Plugin files of one config dir: `{plugin,plugins}/*.{js,mjs,ts}` (the fake loads .js/.mjs). */
export function pluginFiles(dir) {
  const out = [];
  for (const sub of ['plugin', 'plugins']) {
    const d = join(dir, sub);
    if (!existsSync(d)) continue;
    for (const f of readdirSync(d).sort()) if (/\.(m?js|ts)$/.test(f)) out.push(join(d, f));
  }
  return out;
}

/**
 * Whether opencode would run an npm install in `dir` (Npm.install): writable, and either no
 * node_modules or a package.json dependency / @opencode-ai/plugin missing from the lock's root.
 */
export function needsInstall(dir) {
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    return false;
  }
  if (!existsSync(join(dir, 'node_modules'))) return true;
  const read = (f) => {
    try {
      return JSON.parse(readFileSync(join(dir, f), 'utf8'));
    } catch {
      return {};
    }
  };
  const pkg = read('package.json');
  const root = read('package-lock.json')?.packages?.[''] ?? {};
  const locked = new Set(['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'].flatMap((k) => Object.keys(root[k] ?? {})));
  const wanted = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'].flatMap((k) => Object.keys(pkg[k] ?? {}));
  return [...wanted, '@opencode-ai/plugin'].some((name) => !locked.has(name));
}

/**
 * Load the merged config, the config dirs and the plugin files. Side effects like the real one:
 * the global opencode.jsonc when no config exists, a .gitignore in every config dir.
 * @returns {{config: object, dirs: string[], plugins: string[], installDirs: string[], worktree: string}}
 */
export function loadConfig(cwd, env = process.env) {
  const p = paths(env);
  const globalFiles = ['config.json', 'opencode.json', 'opencode.jsonc'].map((f) => join(p.config, f));
  if (!env.OPENCODE_CONFIG && !env.OPENCODE_CONFIG_DIR && !env.OPENCODE_CONFIG_CONTENT && !globalFiles.some((f) => existsSync(f))) {
    mkdirSync(p.config, { recursive: true });
    writeFileSync(join(p.config, 'opencode.jsonc'), JSON.stringify({ $schema: 'https://opencode.ai/config.json' }, null, 2));
  }
  let config = {};
  for (const f of globalFiles) config = merge(config, readConfigFile(f));
  if (env.OPENCODE_CONFIG) config = merge(config, readConfigFile(env.OPENCODE_CONFIG));
  const worktree = worktreeOf(cwd);
  if (!env.OPENCODE_DISABLE_PROJECT_CONFIG) {
    for (const d of up('', cwd, worktree).reverse()) {
      for (const f of ['opencode.json', 'opencode.jsonc']) config = merge(config, readConfigFile(join(d, f)));
    }
  }
  const dirs = configDirs(cwd, env);
  const plugins = [];
  const installDirs = [];
  for (const d of dirs) {
    if (d.endsWith('.opencode') || d === resolve(env.OPENCODE_CONFIG_DIR ?? '\0')) {
      for (const f of ['opencode.json', 'opencode.jsonc']) config = merge(config, readConfigFile(join(d, f)));
    }
    mkdirSync(d, { recursive: true });
    if (!existsSync(join(d, '.gitignore'))) writeFileSync(join(d, '.gitignore'), GITIGNORE);
    if (needsInstall(d)) installDirs.push(d);
    plugins.push(...pluginFiles(d));
  }
  if (env.OPENCODE_CONFIG_CONTENT) config = merge(config, parseJsonc(env.OPENCODE_CONFIG_CONTENT, 'OPENCODE_CONFIG_CONTENT'));
  if (env.OPENCODE_PERMISSION) {
    try {
      config = merge(config, { permission: JSON.parse(env.OPENCODE_PERMISSION) });
    } catch {}
  }
  for (const spec of config.plugin ?? []) if (typeof spec === 'string' && spec.startsWith('file://')) plugins.push(new URL(spec).pathname);
  return { config, dirs, plugins, installDirs, worktree };
}

/** The configured models as `provider/model` ids, with their display names. */
export function configuredModels(config) {
  const out = [];
  for (const [pid, prov] of Object.entries(config.provider ?? {})) {
    for (const [mid, m] of Object.entries(prov?.models ?? {}))
      out.push({ id: `${pid}/${mid}`, providerID: pid, modelID: mid, name: m?.name ?? mid, provider: prov });
  }
  return out;
}

/** The models opencode 1.18.33 lists offline besides the configured ones (its bundled catalogue). */
export const BUNDLED_MODELS = [
  'opencode/big-pickle',
  'opencode/ling-3.0-flash-fin-free',
  'opencode/longcat-2.5-preview-free',
  'opencode/mimo-v2.6-flash-free',
  'opencode/muse-spark-1.3-contributor-free',
  'opencode/nemotron-3-ultra-free',
  'opencode/nemotron-3.5-lightning-free',
  'opencode/space-bunny-free',
];
