// Where the pinned real CLIs live once `pnpm install:real-clis` has installed them.
//
// The pins (test-fixtures/real/pins.json) are the single source of truth (for one run,
// `UMBEL_REAL_<ID>_VERSION` replaces one CLI's version: see readPins): one folder per
// package@version under the cache root, outside the repository:
//
//   $UMBEL_REAL_CLI_CACHE (default ~/.cache/umbel-real-clis)/
//     anthropic-ai__claude-code@2.1.328/
//       package.json, node_modules/…          (a private npm project holding only that CLI)
//       .umbel-complete.json                  (marker, written last: {id, package, version, bin, native?, versionOutput})
//     opencode-ai@1.18.33/
//       node_modules/opencode-linux-x64/bin/opencode   (the native binary; opencode-ai's postinstall is skipped)
//
// A folder without its marker is an interrupted install and is reinstalled from scratch.
// Dependency-free on purpose (plain Node ESM), so scripts and tests can both import it.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** Absolute path of the pins file. */
export const PINS_FILE = join(here, 'pins.json');

/** Name of the marker file written last into a complete install folder. */
export const MARKER = '.umbel-complete.json';

/** The CLI ids that have a pin. */
export const CLI_IDS = /** @type {const} */ (['claude', 'codex', 'gemini', 'opencode', 'copilot', 'qwen']);

/**
 * What `<bin> --version` must print (first line, trimmed) for each pinned CLI.
 * @type {Record<string, (version: string) => string>}
 */
export const EXPECTED_VERSION_OUTPUT = {
  claude: (v) => `${v} (Claude Code)`,
  codex: (v) => `codex-cli ${v}`,
  gemini: (v) => v,
  opencode: (v) => v,
  copilot: (v) => `GitHub Copilot CLI ${v}.`,
  qwen: (v) => v,
};

const OPENCODE_PLATFORMS = { linux: 'linux', darwin: 'darwin', win32: 'windows' };
const OPENCODE_ARCHES = { x64: 'x64', arm64: 'arm64' };

/**
 * The npm package that ships opencode's native binary (`bin/opencode`) for a host, e.g.
 * `opencode-linux-x64`. `opencode-ai` itself only holds a placeholder that its postinstall replaces
 * (by copying this binary, or by running `npm install` of it when it is missing), so the installer
 * skips that postinstall and launches the platform package's binary directly.
 * @param {string} [platform] default `process.platform`
 * @param {string} [arch] default `process.arch`
 * @returns {string}
 */
export function opencodePlatformPackage(platform = process.platform, arch = process.arch) {
  const p = OPENCODE_PLATFORMS[platform];
  const a = OPENCODE_ARCHES[arch];
  if (!p || !a) throw new Error(`no opencode binary package for ${platform}-${arch}`);
  return `opencode-${p}-${a}`;
}

/**
 * Where `@github/copilot`'s native binary is for a host: the optional platform package
 * `@github/copilot-<platform>-<arch>` (`linuxmusl` on a non-glibc Linux) ships `copilot`; the
 * package's own bin (`npm-loader.js`) only spawns it.
 * @param {string} dir the install folder
 * @returns {string | undefined}
 */
export function copilotNativeBin(dir, platform = process.platform, arch = process.arch) {
  const names = platform === 'linux' ? ['linux', 'linuxmusl'] : [platform];
  return names.map((p) => join(dir, 'node_modules', '@github', `copilot-${p}-${arch}`, 'copilot')).find((f) => existsSync(f));
}

/**
 * Read pins.json as committed, ignoring every override.
 * @returns {Record<string, {package: string, version: string}>}
 */
export function readPinsFile() {
  return JSON.parse(readFileSync(PINS_FILE, 'utf8'));
}

/** The env variable that overrides the version of one CLI, e.g. `UMBEL_REAL_CLAUDE_VERSION`. */
export function versionOverrideVar(id) {
  return `UMBEL_REAL_${id.toUpperCase()}_VERSION`;
}

const VERSION_RE = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

/**
 * The pins the real tier uses: pins.json, where `UMBEL_REAL_<ID>_VERSION` (e.g.
 * `UMBEL_REAL_CLAUDE_VERSION=2.1.332`) replaces that CLI's version. `pnpm test:latest` sets it to
 * run the tier on the newest release, installed next to the pinned one; unset, nothing changes.
 * @param {NodeJS.ProcessEnv} [env] default `process.env`
 * @returns {Record<string, {package: string, version: string}>}
 */
export function readPins(env = process.env) {
  const pins = readPinsFile();
  for (const [id, pin] of Object.entries(pins)) {
    const raw = env[versionOverrideVar(id)];
    if (raw === undefined || raw.trim() === '') continue;
    const version = raw.trim();
    if (!VERSION_RE.test(version)) throw new Error(`${versionOverrideVar(id)}=${JSON.stringify(raw)} is not a version like 1.2.3`);
    pins[id] = { ...pin, version };
  }
  return pins;
}

/** Cache root: `$UMBEL_REAL_CLI_CACHE`, else `~/.cache/umbel-real-clis` (always absolute). */
export function cacheRoot() {
  const fromEnv = process.env.UMBEL_REAL_CLI_CACHE;
  return resolve(fromEnv && fromEnv.trim() !== '' ? fromEnv : join(homedir(), '.cache', 'umbel-real-clis'));
}

/** Folder name for one package@version (`@scope/name` → `scope__name@version`). */
export function pinFolderName(pkg, version) {
  return `${pkg.replace(/^@/, '').replace(/\//g, '__')}@${version}`;
}

/**
 * The install folder and pin of one CLI id.
 * @param {string} id
 * @returns {{id: string, package: string, version: string, dir: string, marker: string}}
 */
export function pinInfo(id) {
  const pins = readPins();
  const pin = pins[id];
  if (!pin) {
    throw new Error(`unknown real CLI id "${id}" (pinned: ${Object.keys(pins).join(', ')}; see ${PINS_FILE})`);
  }
  const dir = join(cacheRoot(), pinFolderName(pin.package, pin.version));
  return { id, package: pin.package, version: pin.version, dir, marker: join(dir, MARKER) };
}

/**
 * The marker of a complete install of `id`, or undefined when the pinned version is not installed.
 * @param {string} id
 * @returns {{id: string, package: string, version: string, bin: string, native?: string, versionOutput: string} | undefined}
 */
export function readInstalled(id) {
  const info = pinInfo(id);
  if (!existsSync(info.marker)) return undefined;
  let marker;
  try {
    marker = JSON.parse(readFileSync(info.marker, 'utf8'));
  } catch {
    return undefined;
  }
  if (marker.package !== info.package || marker.version !== info.version) return undefined;
  if (typeof marker.bin !== 'string' || !existsSync(marker.bin)) return undefined;
  return marker;
}

/**
 * Absolute path of the pinned real CLI binary `id` ('claude' | 'codex' | 'gemini' | 'opencode' | 'copilot' | 'qwen').
 * Throws a clear error when the pinned version is not installed in the cache.
 * @param {string} id
 * @returns {string}
 */
export function realCliPath(id) {
  const info = pinInfo(id);
  const installed = readInstalled(id);
  if (!installed) {
    throw new Error(
      `The real ${id} CLI (${info.package}@${info.version}) is not installed in ${info.dir}.\n` +
        `Run \`pnpm install:real-clis\` (or \`pnpm install:real-clis --only ${id}\`) first. ` +
        `The cache root is $UMBEL_REAL_CLI_CACHE (default ~/.cache/umbel-real-clis).`,
    );
  }
  return installed.bin;
}
