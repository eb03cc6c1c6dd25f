import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM fixture without type declarations
import * as clis from './clis.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { MOCK_API_KEY, approvedKeySuffix, claudeEnv, seedClaudeConfig } from './seed-claude.mjs';
import { purgeWorkers, startProcess } from './umbel-helpers.mjs';

const { CLI_IDS, EXPECTED_VERSION_OUTPUT, MARKER, opencodePlatformPackage, pinInfo, readPins, readPinsFile, realCliPath, versionOverrideVar } = clis;

const INSTALL_SCRIPT = fileURLToPath(new URL('../../scripts/install-real-clis.mjs', import.meta.url));
const dirs: string[] = [];
const savedCache = process.env.UMBEL_REAL_CLI_CACHE;

function scratch(prefix: string) {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

afterEach(() => {
  if (savedCache === undefined) delete process.env.UMBEL_REAL_CLI_CACHE;
  else process.env.UMBEL_REAL_CLI_CACHE = savedCache;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv) {
  return startProcess(cmd, args, { env: env as Record<string, string> }).done;
}

describe('pins.json', () => {
  it('pins the six CLIs at the versions the references verified', () => {
    expect(readPinsFile()).toEqual({
      claude: { package: '@anthropic-ai/claude-code', version: '2.1.332' },
      codex: { package: '@openai/codex', version: '0.171.0' },
      gemini: { package: '@google/gemini-cli', version: '0.61.0' },
      opencode: { package: 'opencode-ai', version: '1.18.33' },
      copilot: { package: '@github/copilot', version: '1.0.102' },
      qwen: { package: '@qwen-code/qwen-code', version: '0.15.10' },
    });
    expect(CLI_IDS).toEqual(['claude', 'codex', 'gemini', 'opencode', 'copilot', 'qwen']);
    expect(EXPECTED_VERSION_OUTPUT.opencode('1.18.33')).toBe('1.18.33');
    // `copilot --version` (1.0.102): "GitHub Copilot CLI 1.0.102." then an update hint
    expect(EXPECTED_VERSION_OUTPUT.copilot('1.0.102')).toBe('GitHub Copilot CLI 1.0.102.');
  });

  it('names the native opencode platform package of each host (the binary lives there, not in opencode-ai)', () => {
    expect(opencodePlatformPackage('linux', 'x64')).toBe('opencode-linux-x64');
    expect(opencodePlatformPackage('linux', 'arm64')).toBe('opencode-linux-arm64');
    expect(opencodePlatformPackage('darwin', 'arm64')).toBe('opencode-darwin-arm64');
    expect(() => opencodePlatformPackage('sunos', 'x64')).toThrow(/no opencode binary package for sunos-x64/);
  });
});

describe('UMBEL_REAL_<ID>_VERSION (how `pnpm test:latest` points the real tier at another release)', () => {
  it("replaces only that CLI's version; unset or blank changes nothing", () => {
    expect(versionOverrideVar('claude')).toBe('UMBEL_REAL_CLAUDE_VERSION');
    expect(readPins({})).toEqual(readPinsFile());
    expect(readPins({ UMBEL_REAL_CODEX_VERSION: '  ' })).toEqual(readPinsFile());
    const pins = readPins({ UMBEL_REAL_CODEX_VERSION: '0.999.1' });
    expect(pins.codex).toEqual({ package: '@openai/codex', version: '0.999.1' });
    expect(pins.claude).toEqual(readPinsFile().claude);
  });

  it('rejects a value that is not a version', () => {
    expect(() => readPins({ UMBEL_REAL_GEMINI_VERSION: 'latest' })).toThrow(/UMBEL_REAL_GEMINI_VERSION="latest" is not a version/);
  });

  it('moves the install folder and realCliPath to that version, next to the pinned one', () => {
    process.env.UMBEL_REAL_CLI_CACHE = scratch('umbel-override-cache-');
    const saved = process.env.UMBEL_REAL_CLAUDE_VERSION;
    process.env.UMBEL_REAL_CLAUDE_VERSION = '2.1.999';
    try {
      expect(pinInfo('claude').dir).toBe(join(process.env.UMBEL_REAL_CLI_CACHE, 'anthropic-ai__claude-code@2.1.999'));
      expect(() => realCliPath('claude')).toThrow(/@anthropic-ai\/claude-code@2\.1\.999/);
    } finally {
      if (saved === undefined) delete process.env.UMBEL_REAL_CLAUDE_VERSION;
      else process.env.UMBEL_REAL_CLAUDE_VERSION = saved;
    }
  });
});

describe('realCliPath', () => {
  it('throws a clear error naming `pnpm install:real-clis` when the cache lacks the pinned version', () => {
    process.env.UMBEL_REAL_CLI_CACHE = scratch('umbel-empty-cache-');
    expect(() => realCliPath('claude')).toThrow(/pnpm install:real-clis/);
    expect(() => realCliPath('claude')).toThrow(/@anthropic-ai\/claude-code@2\.1\.332/);
    expect(() => realCliPath('nope')).toThrow(/unknown real CLI id "nope"/);
  });

  it('reads the binary path from a complete install (marker) and ignores incomplete or stale ones', () => {
    process.env.UMBEL_REAL_CLI_CACHE = scratch('umbel-fake-cache-');
    const info = pinInfo('gemini');
    mkdirSync(info.dir, { recursive: true });
    const bin = join(info.dir, 'gemini-bin');
    writeFileSync(bin, '#!/bin/sh\n');
    expect(() => realCliPath('gemini')).toThrow(/not installed/); // no marker yet
    writeFileSync(info.marker, JSON.stringify({ package: info.package, version: '0.0.1', bin }));
    expect(() => realCliPath('gemini')).toThrow(/not installed/); // marker of another version
    writeFileSync(info.marker, JSON.stringify({ package: info.package, version: info.version, bin }));
    expect(realCliPath('gemini')).toBe(bin);
    expect(info.dir.endsWith('google__gemini-cli@0.61.0')).toBe(true);
    expect(info.marker.endsWith(MARKER)).toBe(true);
  });
});

describe('install-real-clis.mjs', () => {
  it('rejects an unknown --only id with a usage error', async () => {
    const r = await run(process.execPath, [INSTALL_SCRIPT, '--only', 'bogus'], {
      ...process.env,
      UMBEL_REAL_CLI_CACHE: scratch('umbel-cache-'),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown CLI "bogus"/);
  });

  it('fails LOUDLY (exit 3, nothing printed as installed) when the registry cannot be reached', async () => {
    // A local server that answers every registry request with 503: no network needed, nothing leaves the host.
    const server = createServer((_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end('{"error":"mock registry down"}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const addr = server.address();
    const port = typeof addr === 'object' && addr ? addr.port : 0;
    try {
      const cache = scratch('umbel-cache-');
      const r = await run(process.execPath, [INSTALL_SCRIPT, '--only', 'gemini'], {
        ...process.env,
        UMBEL_REAL_CLI_CACHE: cache,
        npm_config_registry: `http://127.0.0.1:${port}/`,
        npm_config_cache: join(cache, 'npm-cache'),
        npm_config_fetch_retry_mintimeout: '10',
        npm_config_fetch_retry_maxtimeout: '50',
      });
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/CANNOT REACH THE NPM REGISTRY/);
      expect(r.stdout).toBe('');
      process.env.UMBEL_REAL_CLI_CACHE = cache;
      expect(() => realCliPath('gemini')).toThrow(/not installed/);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('reuses a complete cache folder without asking the registry, and prints absolute paths as JSON', async () => {
    const cache = scratch('umbel-cache-');
    process.env.UMBEL_REAL_CLI_CACHE = cache;
    const info = pinInfo('codex');
    mkdirSync(info.dir, { recursive: true });
    const bin = join(info.dir, 'codex-bin');
    writeFileSync(bin, '#!/bin/sh\n');
    writeFileSync(info.marker, JSON.stringify({ id: 'codex', package: info.package, version: info.version, bin }));
    const r = await run(process.execPath, [INSTALL_SCRIPT, '--only=codex'], {
      ...process.env,
      UMBEL_REAL_CLI_CACHE: cache,
      npm_config_registry: 'http://127.0.0.1:9/', // would fail if it were asked
    });
    expect(r.stderr).toMatch(/reusing/);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ codex: bin });
  });
});

describe('seedClaudeConfig / claudeEnv', () => {
  it('writes the §2.2 minimal seed, trusting only the given dirs', () => {
    const config = scratch('umbel-claude-config-');
    const file = seedClaudeConfig({ configDir: config, apiKey: 'sk-ant-api03-XXXXabcdefghij0123456789', trustedDirs: ['/srv/a'] });
    expect(file).toBe(join(config, '.claude.json'));
    const seed = JSON.parse(readFileSync(file, 'utf8'));
    expect(seed).toEqual({
      hasCompletedOnboarding: true,
      customApiKeyResponses: { approved: ['abcdefghij0123456789'], rejected: [] },
      projects: { '/srv/a': { hasTrustDialogAccepted: true } },
      hasSeenAutoDefaultNotice: true,
      autoModeClassifierBillingNoticeAcknowledgedAt: 4102444800000,
    });
  });

  it('leaves the workspace untrusted by default and approves short keys whole', () => {
    const config = scratch('umbel-claude-config-');
    seedClaudeConfig({ configDir: config, apiKey: 'sk-short' });
    const seed = JSON.parse(readFileSync(join(config, '.claude.json'), 'utf8'));
    expect(seed.projects).toEqual({});
    expect(seed.customApiKeyResponses.approved).toEqual(['sk-short']);
    expect(approvedKeySuffix(MOCK_API_KEY)).toBe(MOCK_API_KEY.slice(-20));
  });

  it('returns the test env: mock URL, config dir, no auto-update, few retries, nonessential traffic kept', () => {
    const env = claudeEnv({ configDir: '/c', baseUrl: 'http://127.0.0.1:1' });
    expect(env).toEqual({
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:1',
      ANTHROPIC_API_KEY: MOCK_API_KEY,
      CLAUDE_CONFIG_DIR: '/c',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_MAX_RETRIES: '1',
    });
    expect(claudeEnv({ configDir: '/c', baseUrl: 'u', nonessentialTraffic: false }).CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC).toBe('1');
  });
});

describe('install-real-clis.mjs --only opencode (against a local stand-in registry)', () => {
  /** A tarball `package/<files>` as npm packs it, with its integrity fields. */
  function tarball(root: string, name: string, files: Record<string, string>) {
    const src = join(root, `src-${name}`);
    for (const [rel, text] of Object.entries(files)) {
      const file = join(src, 'package', rel);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text, { mode: 0o755 });
    }
    const tgz = join(root, `${name}.tgz`);
    execFileSync('tar', ['-czf', tgz, '-C', src, 'package']);
    const data = readFileSync(tgz);
    return {
      data,
      shasum: createHash('sha1').update(data).digest('hex'),
      integrity: `sha512-${createHash('sha512').update(data).digest('base64')}`,
    };
  }

  it('installs opencode-ai without its postinstall and launches the platform package binary', async () => {
    const root = scratch('umbel-oc-registry-');
    const platformPkg = opencodePlatformPackage(process.platform, process.arch);
    const other = platformPkg === 'opencode-linux-x64' ? 'opencode-linux-arm64' : 'opencode-linux-x64';
    const version = '1.18.33';
    const manifests: Record<string, Record<string, unknown>> = {
      'opencode-ai': {
        name: 'opencode-ai',
        version,
        bin: { opencode: './bin/opencode.exe' },
        scripts: { postinstall: 'node ./postinstall.mjs' },
        optionalDependencies: { [platformPkg]: version, [other]: version, 'opencode-linux-x64-baseline': version },
      },
      [platformPkg]: { name: platformPkg, version },
      [other]: { name: other, version },
      'opencode-linux-x64-baseline': { name: 'opencode-linux-x64-baseline', version },
    };
    const files: Record<string, Record<string, string>> = {
      'opencode-ai': {
        'bin/opencode.exe': '#!/bin/sh\necho "placeholder: postinstall was not run" >&2\nexit 1\n',
        'postinstall.mjs': `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(join(root, 'POSTINSTALL-RAN'))}, 'yes');\n`,
      },
      [platformPkg]: { 'bin/opencode': `#!/bin/sh\necho ${version}\n` },
      [other]: { 'bin/opencode': '#!/bin/sh\necho wrong platform\n' },
      'opencode-linux-x64-baseline': { 'bin/opencode': '#!/bin/sh\necho baseline\n' },
    };
    // built once: a tarball rebuilt per request could differ (file mtimes) from the integrity announced
    const tarballs = Object.fromEntries(Object.keys(manifests).map((name) => [name, tarball(root, name, files[name] ?? {})]));
    const hits: string[] = [];
    const server = createServer((req, res) => {
      const url = decodeURIComponent(req.url ?? '/');
      hits.push(url);
      const tgz = /^\/([^/]+)\/-\/[^/]+\.tgz$/.exec(url);
      const name = tgz ? tgz[1] : url.slice(1);
      const manifest = name ? manifests[name] : undefined;
      if (!manifest || !name) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":"not found"}');
        return;
      }
      const t = tarballs[name] as ReturnType<typeof tarball>;
      if (tgz) {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.end(t.data);
        return;
      }
      const dist = { tarball: `http://127.0.0.1:${port}/${name}/-/${name}-${version}.tgz`, shasum: t.shasum, integrity: t.integrity };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ name, 'dist-tags': { latest: version }, versions: { [version]: { ...manifest, dist } } }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const addr = server.address();
    const port = typeof addr === 'object' && addr ? addr.port : 0;
    try {
      const cache = join(root, 'cache');
      const r = await run(process.execPath, [INSTALL_SCRIPT, '--only', 'opencode'], {
        PATH: process.env.PATH,
        HOME: join(root, 'home'),
        UMBEL_REAL_CLI_CACHE: cache,
        npm_config_registry: `http://127.0.0.1:${port}/`,
        npm_config_cache: join(root, 'npm-cache'),
        npm_config_userconfig: join(root, 'npmrc'),
      });
      expect(r.stderr).toContain('opencode: ok (1.18.33)');
      expect(r.code).toBe(0);
      process.env.UMBEL_REAL_CLI_CACHE = cache;
      const bin = realCliPath('opencode');
      expect(bin).toBe(join(pinInfo('opencode').dir, 'node_modules', platformPkg, 'bin', 'opencode'));
      expect(JSON.parse(r.stdout)).toEqual({ opencode: bin });
      expect(existsSync(join(root, 'POSTINSTALL-RAN'))).toBe(false);
      // only the two packages it needs were downloaded: no other platform's binary
      expect(hits.filter((h) => h.endsWith('.tgz')).sort()).toEqual(
        [`/opencode-ai/-/opencode-ai-${version}.tgz`, `/${platformPkg}/-/${platformPkg}-${version}.tgz`].sort(),
      );
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe('purgeWorkers', () => {
  it('kills what is listed several at a time (at most 8), listing again until nothing is left', async () => {
    // one `umbel kill` is ~0.45 s of CPU: a file's 20 workers one after the other took an afterAll past 60 s on a loaded box
    let listed = Array.from({ length: 20 }, (_, i) => `w${i}`);
    let running = 0;
    let most = 0;
    const calls: string[][] = [];
    const run = async (args: string[]) => {
      calls.push(args);
      if (args[0] === 'ls') return { code: 0, stdout: JSON.stringify(listed.map((name) => ({ name }))), stderr: '' };
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, 20));
      running--;
      listed = listed.filter((n) => n !== args[1]);
      return { code: 0, stdout: '', stderr: '' };
    };
    await purgeWorkers(run);
    expect(listed).toEqual([]);
    expect(calls.filter((c) => c[0] === 'kill')).toHaveLength(20);
    expect(calls.filter((c) => c[0] === 'kill').every((c) => c[2] === '--purge')).toBe(true);
    expect(most).toBe(8);
  });
});
