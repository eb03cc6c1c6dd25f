#!/usr/bin/env node
// Install the pinned real CLIs (test-fixtures/real/pins.json) into a cache folder OUTSIDE the
// repository, one folder per package@version, and print their absolute binary paths as JSON.
//
//   pnpm install:real-clis                 # all pinned CLIs
//   pnpm install:real-clis --only claude   # one (repeat --only, or comma-separate, for several)
//   pnpm install:real-clis --force         # reinstall even when the cache is complete
//
// Cache root: $UMBEL_REAL_CLI_CACHE, default ~/.cache/umbel-real-clis (see test-fixtures/real/clis.mjs).
// A complete folder (marker file present, written last) is reused without touching the network.
// When the registry cannot be reached the script fails loudly (exit 3); it never pretends.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  CLI_IDS,
  EXPECTED_VERSION_OUTPUT,
  MARKER,
  cacheRoot,
  copilotNativeBin,
  opencodePlatformPackage,
  pinInfo,
  readInstalled,
  readPins,
} from '../test-fixtures/real/clis.mjs';

const EXIT_USAGE = 2;
const EXIT_REGISTRY = 3;
const EXIT_INSTALL = 4;

function log(msg) {
  process.stderr.write(`[install-real-clis] ${msg}\n`);
}

function loud(title, details) {
  const bar = '!'.repeat(78);
  process.stderr.write(`\n${bar}\n!! ${title}\n${bar}\n${details}\n${bar}\n\n`);
}

function parseArgs(argv) {
  const only = [];
  let force = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--only') {
      const v = argv[++i];
      if (!v) usage('--only needs a value');
      only.push(...v.split(','));
    } else if (a.startsWith('--only=')) {
      only.push(...a.slice('--only='.length).split(','));
    } else if (a === '--force') {
      force = true;
    } else if (a === '--help' || a === '-h') {
      process.stdout.write('usage: install-real-clis [--only claude|codex|gemini|opencode|copilot|qwen]... [--force]\n');
      process.exit(0);
    } else {
      usage(`unknown argument ${a}`);
    }
  }
  const pins = readPins();
  for (const id of only) if (!pins[id]) usage(`unknown CLI "${id}" (pinned: ${Object.keys(pins).join(', ')})`);
  return { ids: only.length > 0 ? [...new Set(only)] : Object.keys(pins), force };
}

function usage(msg) {
  process.stderr.write(`install-real-clis: ${msg}\nusage: install-real-clis [--only claude|codex|gemini|opencode|copilot|qwen]... [--force]\n`);
  process.exit(EXIT_USAGE);
}

/** Ask the registry whether package@version exists. Returns undefined on success, else the reason. */
function checkRegistry(pkg, version) {
  const r = spawnSync('npm', ['view', `${pkg}@${version}`, 'version', '--json', '--fetch-retries=1', '--fetch-timeout=30000'], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (r.error) return `could not run npm: ${r.error.message}`;
  if (r.status !== 0) return (r.stderr || r.stdout || `npm view exited ${r.status}`).trim();
  let v;
  try {
    v = JSON.parse(r.stdout);
  } catch {
    return `unexpected npm view output: ${r.stdout.trim()}`;
  }
  if (v !== version) return `registry answered version ${JSON.stringify(v)} for ${pkg}@${version}`;
  return undefined;
}

function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** The package's declared bin for `name`, as an absolute path. */
function declaredBin(dir, pkg, name) {
  const pkgDir = join(dir, 'node_modules', ...pkg.split('/'));
  const manifest = readJson(join(pkgDir, 'package.json'));
  const rel = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.[name];
  if (!rel) throw new Error(`${pkg} declares no bin "${name}"`);
  return resolve(pkgDir, rel);
}

function isElf(file) {
  let fd;
  try {
    fd = openSync(file, 'r');
    const head = Buffer.alloc(4);
    readSync(fd, head, 0, 4, 0);
    return head[0] === 0x7f && head[1] === 0x45 && head[2] === 0x4c && head[3] === 0x46;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Find the codex vendor binary (…/vendor/<triple>/bin/codex) anywhere under node_modules/@openai. */
function findCodexNative(dir) {
  const scope = join(dir, 'node_modules', '@openai');
  if (!existsSync(scope)) return undefined;
  for (const p of readdirSync(scope)) {
    const vendor = join(scope, p, 'vendor');
    if (!existsSync(vendor)) continue;
    for (const triple of readdirSync(vendor)) {
      const bin = join(vendor, triple, 'bin', 'codex');
      if (existsSync(bin) && statSync(bin).isFile()) return bin;
    }
  }
  return undefined;
}

/** Resolve the binary to launch (absolute) and, where one exists, the native executable behind it. */
function resolveBinaries(id, dir, pkg) {
  if (id === 'claude') {
    // The package's bin is bin/claude.exe; its postinstall (install.cjs) puts the native binary of
    // the platform package (@anthropic-ai/claude-code-<platform>) there. Verify it really is native.
    // If npm skipped install scripts (ignore-scripts, or npm 11's allowScripts), bin/claude.exe
    // is still the placeholder stub: then launch the platform package's binary directly.
    const bin = declaredBin(dir, pkg, 'claude');
    if (isElf(bin)) return { bin, native: bin };
    const scope = join(dir, 'node_modules', '@anthropic-ai');
    const platform = existsSync(scope)
      ? readdirSync(scope)
          .filter((p) => p.startsWith('claude-code-'))
          .map((p) => join(scope, p, 'claude'))
          .find((f) => isElf(f))
      : undefined;
    if (!platform) {
      throw new Error(`${bin} is not a native (ELF) binary and no platform package ships one (postinstall skipped?)`);
    }
    log(`claude: ${bin} is the placeholder stub (postinstall did not run); using ${platform}`);
    return { bin: platform, native: platform };
  }
  if (id === 'codex') {
    // bin/codex.js is a Node launcher that spawns the vendor binary from the optional platform package.
    const bin = declaredBin(dir, pkg, 'codex');
    return { bin, native: findCodexNative(dir) };
  }
  if (id === 'opencode') {
    // opencode-ai's bin is a placeholder its (skipped) postinstall would overwrite; the native
    // binary is the platform package's bin/opencode.
    const bin = join(dir, 'node_modules', opencodePlatformPackage(), 'bin', 'opencode');
    if (!existsSync(bin)) throw new Error(`${bin} is missing (the platform package did not install)`);
    return { bin, native: bin };
  }
  if (id === 'copilot') {
    // npm-loader.js only spawns the native binary of the platform package: launch that directly.
    const bin = copilotNativeBin(dir);
    if (!bin) throw new Error(`no @github/copilot-<platform>-${process.arch}/copilot under ${dir} (the platform package did not install)`);
    return { bin, native: bin };
  }
  // gemini and qwen: one esbuild bundle with a node shebang (bundle/gemini.js, cli.js).
  return { bin: declaredBin(dir, pkg, id) };
}

/**
 * What `npm install` gets for one CLI. opencode: its postinstall only copies (or, when missing,
 * npm-installs) the platform binary, and npm would fetch every platform's optional binary package;
 * so scripts are off, optional dependencies omitted, and this host's platform package named.
 */
function installSpecs(id, info) {
  if (id === 'opencode') {
    return { flags: ['--ignore-scripts', '--omit=optional'], specs: [`${info.package}@${info.version}`, `${opencodePlatformPackage()}@${info.version}`] };
  }
  return { flags: [], specs: [`${info.package}@${info.version}`] };
}

/** Run `<bin> --version` in a scratch home and return the first stdout line. */
function versionOf(bin, dir) {
  const home = join(dir, '.version-check-home');
  rmSync(home, { recursive: true, force: true });
  mkdirSync(home, { recursive: true });
  try {
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      LANG: 'C.UTF-8',
      CLAUDE_CONFIG_DIR: join(home, 'claude'),
      DISABLE_AUTOUPDATER: '1',
      CODEX_HOME: join(home, 'codex'),
      GEMINI_CLI_HOME: home,
      GEMINI_CLI_NO_RELAUNCH: 'true',
      XDG_CONFIG_HOME: join(home, 'xdg-config'),
      XDG_DATA_HOME: join(home, 'xdg-data'),
      XDG_CACHE_HOME: join(home, 'xdg-cache'),
      XDG_STATE_HOME: join(home, 'xdg-state'),
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      // Qwen Code's auto-update runs `npm install --global` (QWEN-FACTS §2): off
      QWEN_CODE_SYSTEM_SETTINGS_PATH: join(home, 'qwen-settings.json'),
    };
    mkdirSync(env.CODEX_HOME, { recursive: true });
    writeFileSync(env.QWEN_CODE_SYSTEM_SETTINGS_PATH, '{"general":{"enableAutoUpdate":false}}\n');
    const r = spawnSync(bin, ['--version'], { encoding: 'utf8', env, timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'] });
    if (r.error) throw new Error(`${bin} --version failed: ${r.error.message}`);
    if (r.status !== 0) throw new Error(`${bin} --version exited ${r.status}: ${r.stderr.trim()}`);
    return (r.stdout.split('\n')[0] ?? '').trim();
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

function install(id, force) {
  const info = pinInfo(id);
  const existing = readInstalled(id);
  if (existing && !force) {
    log(`${id}: reusing ${info.dir}`);
    return existing;
  }
  log(`${id}: checking the registry for ${info.package}@${info.version} …`);
  const problem = checkRegistry(info.package, info.version);
  if (problem) {
    loud(
      `CANNOT REACH THE NPM REGISTRY for ${info.package}@${info.version}`,
      `${problem}\n\nThe real ${id} CLI was NOT installed. The real-CLI tests (pnpm test:real) cannot run without it.\n` +
        `Fix network/registry access (npm config get registry) or pre-populate ${info.dir}, then rerun.`,
    );
    process.exit(EXIT_REGISTRY);
  }
  rmSync(info.dir, { recursive: true, force: true });
  mkdirSync(info.dir, { recursive: true });
  writeFileSync(
    join(info.dir, 'package.json'),
    `${JSON.stringify({ name: `umbel-real-cli-${id}`, private: true, description: `umbel real-CLI cache: ${info.package}@${info.version}` }, null, 2)}\n`,
  );
  const { flags, specs } = installSpecs(id, info);
  log(`${id}: npm install ${[...flags, ...specs].join(' ')} into ${info.dir} (this can take a while) …`);
  const r = spawnSync(
    'npm',
    ['install', '--save-exact', '--no-audit', '--no-fund', '--loglevel=warn', '--fetch-retries=2', ...flags, ...specs],
    // npm's own stdout ("added N packages") goes to stderr: stdout carries only the JSON answer
    { cwd: info.dir, stdio: ['ignore', 2, 'inherit'], timeout: 30 * 60_000 },
  );
  if (r.error || r.status !== 0) {
    loud(
      `npm install FAILED for ${info.package}@${info.version}`,
      `${r.error ? r.error.message : `npm exited ${r.status}${r.signal ? ` (${r.signal})` : ''}`}\n` +
        `The folder ${info.dir} is left without its marker and will be reinstalled next time.`,
    );
    process.exit(EXIT_INSTALL);
  }
  let bins;
  let versionOutput;
  try {
    bins = resolveBinaries(id, info.dir, info.package);
    versionOutput = versionOf(bins.bin, info.dir);
  } catch (err) {
    loud(`${id}: installed but the binary does not work`, String(err?.message ?? err));
    process.exit(EXIT_INSTALL);
  }
  const expected = EXPECTED_VERSION_OUTPUT[id]?.(info.version);
  if (expected !== undefined && versionOutput !== expected) {
    loud(`${id}: version mismatch`, `${bins.bin} --version printed "${versionOutput}", expected "${expected}".`);
    process.exit(EXIT_INSTALL);
  }
  const marker = {
    id,
    package: info.package,
    version: info.version,
    bin: bins.bin,
    ...(bins.native ? { native: bins.native } : {}),
    versionOutput,
    installedAt: new Date().toISOString(),
  };
  const tmp = join(info.dir, `${MARKER}.tmp-${process.pid}`);
  writeFileSync(tmp, `${JSON.stringify(marker, null, 2)}\n`);
  renameSync(tmp, join(info.dir, MARKER));
  log(`${id}: ok (${versionOutput}) → ${bins.bin}`);
  return marker;
}

const { ids, force } = parseArgs(process.argv.slice(2));
mkdirSync(cacheRoot(), { recursive: true });
const out = {};
for (const id of ids) {
  if (!CLI_IDS.includes(id)) log(`warning: ${id} has a pin but no known binary layout; using its declared bin`);
  out[id] = install(id, force).bin;
}
process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
