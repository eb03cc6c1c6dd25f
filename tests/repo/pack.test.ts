/**
 * Pack check: pack every public package as it would be published, inspect the tarballs, then
 * install them into an empty project (our own packages only from the tarballs — lookups of our
 * names would hit a dead registry) and run `npx umbel --version` there. Needs built packages
 * (`pnpm test` builds first).
 *
 * The worked example of a third-party provider package (examples/umbel-provider-echo: its own
 * echo-agent CLI and a hand-written ProviderV1) is packed with `npm pack` and installed beside
 * the packed umbel, then loaded through UMBEL_PROVIDERS and through the config file and driven on
 * every face: spawn/send/wait/read/kill, `umbel -p`, umbel-mcp over stdio, and a workflow.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUp, runCommand, testEnv } from '../../test-fixtures/real/umbel-helpers.mjs';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const EXAMPLE = join(root, 'examples', 'umbel-provider-echo');
const T = 300_000;
let work: string;
let project: string;
const tarballs: { name: string; file: string; dir: string; manifest: Record<string, unknown> }[] = [];
let example: { file: string; dir: string; manifest: Record<string, unknown> };

function targets(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(targets);
  return [];
}

async function unpack(file: string, name: string): Promise<{ dir: string; manifest: Record<string, unknown> }> {
  const out = join(work, `x-${name.replace(/[@/]/g, '_')}`);
  await mkdir(out);
  await run('tar', ['-xzf', file, '-C', out]);
  return { dir: join(out, 'package'), manifest: JSON.parse(await readFile(join(out, 'package', 'package.json'), 'utf8')) };
}

beforeAll(async () => {
  work = await realpath(await mkdtemp(join(tmpdir(), 'umbel-pack-')));
  for (const dir of (await readdir(join(root, 'packages'))).sort()) {
    const pkg = JSON.parse(await readFile(join(root, 'packages', dir, 'package.json'), 'utf8'));
    if (pkg.private) continue;
    const { stdout } = await run('pnpm', ['pack', '--pack-destination', work], { cwd: join(root, 'packages', dir) });
    const file = stdout.trim().split('\n').pop() as string;
    tarballs.push({ name: pkg.name, file, ...(await unpack(file, pkg.name)) });
  }
  // A third party packs its package with npm (prepack builds it with tsup).
  const { stdout } = await run('npm', ['pack', '--pack-destination', work], { cwd: EXAMPLE, maxBuffer: 16 * 1024 * 1024 });
  const file = join(work, stdout.trim().split('\n').pop() as string);
  example = { file, ...(await unpack(file, 'umbel-provider-echo')) };
  // One project with the packed umbel and the packed provider package beside it. Our packages
  // come only from the tarballs: as direct dependencies and, for the edges between them, as
  // overrides (npm would otherwise look their ranges up in the registry, which here is a dead
  // address, so a lookup fails the test instead of fetching a published copy).
  project = join(work, 'project');
  await mkdir(project);
  const ours = tarballOverrides();
  const dependencies = { ...ours, 'umbel-provider-echo': `file:${example.file}` };
  await npmInstall(project, dependencies, ours);
}, 900_000);

/** Each package of ours → its tarball (the dependencies and overrides of a project installed from them). */
function tarballOverrides(): Record<string, string> {
  return Object.fromEntries(tarballs.map((t) => [t.name, `file:${t.file}`]));
}

/** A project of `dependencies`, installed by npm; our packages only from the tarballs (`ours`: overrides). */
async function npmInstall(dir: string, dependencies: Record<string, string>, ours: Record<string, string>): Promise<void> {
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'pack-check', private: true, type: 'module', dependencies, overrides: ours }));
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--fetch-retries=0', '--@umbel:registry=http://127.0.0.1:9/'], {
    cwd: dir,
    env: { ...process.env, npm_config_update_notifier: 'false' },
    maxBuffer: 64 * 1024 * 1024,
  });
}

afterAll(async () => {
  if (!work) return;
  const umbel = (args: string[]) =>
    runCommand(process.execPath, [join(project, 'node_modules', 'umbel', 'bin', 'umbel.js'), ...args], { cwd: project, env: echoEnv() });
  await cleanUp({ workers: project && existsSync(join(project, 'node_modules', 'umbel')) ? [umbel] : [], reap: [work], remove: [work] });
}, T);

describe('packed packages', () => {
  it('packs every package', () => {
    expect(tarballs.map((t) => t.name).sort()).toEqual([
      '@umbel/cli',
      '@umbel/core',
      '@umbel/mcp',
      '@umbel/provider',
      '@umbel/provider-claude',
      '@umbel/provider-codex',
      '@umbel/provider-copilot',
      '@umbel/provider-gemini',
      '@umbel/provider-opencode',
      '@umbel/provider-qwen',
      '@umbel/remote',
      '@umbel/runtime',
      '@umbel/tmux',
      '@umbel/top',
      '@umbel/workflow',
      'create-umbel-provider',
      'umbel',
    ]);
  });

  it('ships a README and a LICENSE in every tarball', () => {
    for (const t of tarballs) for (const file of ['README.md', 'LICENSE']) expect(existsSync(join(t.dir, file)), `${t.name}: ${file}`).toBe(true);
  });

  it('leaks no workspace: range', () => {
    for (const t of [...tarballs, { name: 'umbel-provider-echo', ...example }]) expect(JSON.stringify(t.manifest), t.name).not.toContain('workspace:');
  });

  it('ships every exports and bin target; bins start with a shebang', async () => {
    for (const t of [...tarballs, { name: 'umbel-provider-echo', ...example }]) {
      for (const target of targets(t.manifest.exports)) expect(existsSync(join(t.dir, target)), `${t.name}: ${target}`).toBe(true);
      for (const target of targets(t.manifest.bin)) {
        expect(existsSync(join(t.dir, target)), `${t.name}: bin ${target}`).toBe(true);
        expect((await readFile(join(t.dir, target), 'utf8')).startsWith('#!/usr/bin/env node\n'), `${t.name}: ${target} shebang`).toBe(true);
      }
      expect(t.manifest.engines, t.name).toEqual({ node: '>=20.19' });
    }
  });

  it('installs from the tarballs into an empty project: `npx umbel --version`, the MCP library, the MCP server', async () => {
    const { stdout } = await run('npx', ['--no', '--', 'umbel', '--version'], { cwd: project });
    expect(stdout.trim()).toBe('umbel 0.1.0');
    const mcp = await run('node', ['-e', "import('@umbel/mcp').then((m) => console.log(typeof m.createMcpServer))"], { cwd: project });
    expect(mcp.stdout.trim()).toBe('function');
    // The MCP server runs from the tarballs, standalone and through `umbel mcp`.
    for (const argv of [['umbel-mcp'], ['umbel', 'mcp']]) {
      const answer = await initializeOverStdio(project, argv, join(work, `home-${argv.length}`));
      expect(answer, argv.join(' ')).toMatchObject({ id: 1, result: { serverInfo: { name: 'umbel' } } });
    }
  });
});

describe('@umbel/mcp as a library, from its tarball alone', () => {
  it(
    'installs neither the runtime, tmux nor a provider (the runtime is an optional peer of its bin); umbel-mcp alone says what to install',
    async () => {
      const mcp = tarballs.find((t) => t.name === '@umbel/mcp')?.manifest as {
        dependencies?: Record<string, string>;
        peerDependencies?: Record<string, string>;
        peerDependenciesMeta?: Record<string, { optional?: boolean }>;
      };
      expect(Object.keys(mcp.dependencies ?? {}).filter((name) => name.startsWith('@umbel/'))).toEqual(['@umbel/core']);
      expect(Object.keys(mcp.peerDependencies ?? {})).toEqual(['@umbel/runtime']);
      expect(mcp.peerDependenciesMeta).toEqual({ '@umbel/runtime': { optional: true } });
      const alone = join(work, 'mcp-alone');
      await mkdir(alone);
      const ours = tarballOverrides();
      await npmInstall(alone, { '@umbel/mcp': ours['@umbel/mcp'] as string }, ours);
      expect((await readdir(join(alone, 'node_modules', '@umbel'))).sort()).toEqual(['core', 'mcp', 'provider']);
      const library = await run('node', ['-e', "import('@umbel/mcp').then((m) => console.log(typeof m.createMcpServer))"], { cwd: alone });
      expect(library.stdout.trim()).toBe('function');
      const bin = await runCommand(process.execPath, [join(alone, 'node_modules', '@umbel', 'mcp', 'bin', 'umbel-mcp.js')], {
        cwd: alone,
        env: { PATH: process.env.PATH ?? '', HOME: alone, UMBEL_HOME: join(alone, 'state') },
      });
      expect(bin.code).toBe(2);
      expect(bin.stderr).toContain('@umbel/runtime');
      expect(bin.stderr).toContain('umbel mcp');
    },
    T,
  );
});

describe('create-umbel-provider from its tarball', () => {
  it('npx create-umbel-provider NAME generates a provider package (--help first)', async () => {
    const help = await run('npx', ['--no', '--', 'create-umbel-provider', '--help'], { cwd: project });
    expect(help.stdout).toContain('Usage: npm create umbel-provider@latest NAME');
    await run('npx', ['--no', '--', 'create-umbel-provider', 'umbel-provider-packed'], { cwd: project });
    const manifest = JSON.parse(await readFile(join(project, 'umbel-provider-packed', 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: 'umbel-provider-packed', peerDependencies: { '@umbel/provider': '>=0.1.0 <1' } });
    expect(existsSync(join(project, 'umbel-provider-packed', 'src', '__fixtures__', 'conformance.json'))).toBe(true);
  });
});

describe("the README's embedding example, as written, from the tarballs", () => {
  it(
    'spawns a worker, sends, waits and prints the answer (on the fake claude)',
    async () => {
      const readme = await readFile(join(root, 'README.md'), 'utf8');
      const block = /## Embedding\n[\s\S]*?```ts\n([\s\S]*?)\n```/.exec(readme)?.[1];
      expect(block, 'README.md has a ```ts block under ## Embedding').toBeDefined();
      const { outputText } = ts.transpileModule(block as string, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
      await writeFile(join(project, 'embed.mjs'), outputText);
      const env = testEnv({
        home: join(work, 'embed-home'),
        umbelHome: join(work, 'embed-state'),
        PATH: `${join(root, 'test-fixtures', 'bin')}:${process.env.PATH}`,
      });
      await mkdir(env.HOME as string, { recursive: true });
      // a user who ran claude once (onboarding done): what the README's reader has
      await writeFile(join(env.HOME as string, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true }));
      const ran = await runCommand(process.execPath, ['embed.mjs'], { cwd: project, env });
      expect(ran, ran.stderr).toMatchObject({ code: 0, stdout: 'MOCK-REPLY: Review the last commit\n' });
    },
    T,
  );
});

// --- the worked example of a provider package ---

/** umbel's environment for the echo runs: private HOME, state root and echo-agent home; `extra` on top. */
function echoEnv(extra: Record<string, string> = {}): Record<string, string> {
  return testEnv({ home: join(work, 'home'), umbelHome: join(work, 'state'), ECHO_AGENT_HOME: join(work, 'echo-home'), ...extra });
}

/** The installed `umbel` in the project, with exactly `env`. */
function umbelIn(env: Record<string, string>) {
  const bin = join(project, 'node_modules', 'umbel', 'bin', 'umbel.js');
  return (args: string[], input = '') => runCommand(process.execPath, [bin, ...args], { cwd: project, env, input });
}

const viaEnv = () => umbelIn(echoEnv({ UMBEL_PROVIDERS: 'umbel-provider-echo' }));

describe('a third-party provider package (examples/umbel-provider-echo) beside the packed umbel', () => {
  it('is a package of its own: @umbel/core as its only peer, no other dependency of ours, an executable echo-agent', () => {
    const m = example.manifest as { name: string; private?: boolean; peerDependencies?: Record<string, string>; dependencies?: Record<string, string> };
    expect(m.name).toBe('umbel-provider-echo');
    expect(m.private).toBeUndefined();
    expect(m.peerDependencies).toEqual({ '@umbel/core': '>=0.1.0 <1' });
    expect(m.dependencies ?? {}).toEqual({});
    expect(statSync(join(example.dir, 'bin', 'echo-agent.js')).mode & 0o111).not.toBe(0);
  });

  it(
    'UMBEL_PROVIDERS: umbel providers, then spawn → send → wait → read → kill, and a failing turn',
    async () => {
      const umbel = viaEnv();
      const providers = await umbel(['providers', '--json']);
      expect(providers.code, providers.stderr).toBe(0);
      const echo = JSON.parse(providers.stdout).providers.find((p: { id: string }) => p.id === 'echo');
      expect(echo).toMatchObject({
        source: 'env',
        specifier: 'umbel-provider-echo',
        packageName: 'umbel-provider-echo',
        packageVersion: '0.1.0',
        module: join(project, 'node_modules', 'umbel-provider-echo', 'dist', 'index.js'),
        binary: { status: 'found', path: join(project, 'node_modules', 'umbel-provider-echo', 'bin', 'echo-agent.js'), version: 'echo-agent 1.0.0' },
        verifiedVersions: ['1.0.0'],
      });
      const spawned = await umbel(['spawn', 'echo-1', '--provider', 'echo', '--cwd', project, '--json']);
      expect(spawned.code, spawned.stderr).toBe(0);
      expect(JSON.parse(spawned.stdout)).toMatchObject({ name: 'echo-1', provider: 'echo', state: 'ready' });
      expect((await umbel(['send', 'echo-1', 'hello from the CLI'])).stdout.trim()).toBe('1');
      const waited = await umbel(['wait', 'echo-1', '--timeout', '120s']);
      expect(waited.code, waited.stderr).toBe(0);
      expect(waited.stdout.trim()).toBe('echo: hello from the CLI');
      expect((await umbel(['read', 'echo-1'])).stdout.trim()).toBe('echo: hello from the CLI');
      await umbel(['send', 'echo-1', 'FAIL rate limited']);
      const failed = await umbel(['wait', 'echo-1', '--timeout', '120s', '--json']);
      expect(failed.code).toBe(122);
      expect(JSON.parse(failed.stdout)).toMatchObject({ reason: 'provider-error', message: expect.stringContaining('simulated API error: rate limited') });
      const killed = await umbel(['kill', 'echo-1', '--purge']);
      expect(killed.code, killed.stderr).toBe(0);
    },
    T,
  );

  it(
    'the config file: umbel -p --provider echo',
    async () => {
      const xdg = join(work, 'xdg');
      await mkdir(join(xdg, 'umbel'), { recursive: true });
      await writeFile(join(xdg, 'umbel', 'config.json'), JSON.stringify({ providers: ['umbel-provider-echo'] }));
      const umbel = umbelIn(echoEnv({ XDG_CONFIG_HOME: xdg }));
      const listed = JSON.parse((await umbel(['providers', '--json'])).stdout);
      expect(listed.providers.find((p: { id: string }) => p.id === 'echo')).toMatchObject({ source: 'config', specifier: 'umbel-provider-echo' });
      const printed = await umbel(['-p', '--provider', 'echo', '--cwd', project, 'hello from -p']);
      expect(printed.code, printed.stderr).toBe(0);
      expect(printed.stdout).toBe('echo: hello from -p\n');
      const json = await umbel(['-p', '--provider', 'echo', '--cwd', project, '--output-format', 'json', 'as json']);
      expect(json.code, json.stderr).toBe(0);
      expect(JSON.parse(json.stdout)).toMatchObject({ type: 'result', is_error: false, result: 'echo: as json' });
    },
    T,
  );

  it(
    'MCP: umbel-mcp over stdio with the SDK client lists echo and drives it',
    async () => {
      const req = createRequire(join(root, 'packages', 'mcp', 'package.json'));
      const { Client } = await import(req.resolve('@modelcontextprotocol/sdk/client/index.js'));
      const { StdioClientTransport } = await import(req.resolve('@modelcontextprotocol/sdk/client/stdio.js'));
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [join(project, 'node_modules', '@umbel', 'mcp', 'bin', 'umbel-mcp.js')],
        env: echoEnv({ UMBEL_PROVIDERS: 'umbel-provider-echo' }),
        cwd: project,
        stderr: 'pipe',
      });
      const client = new Client({ name: 'pack-check', version: '0' });
      await client.connect(transport);
      try {
        const { tools } = await client.listTools();
        const spawnTool = tools.find((t: { name: string }) => t.name === 'umbel_spawn');
        expect(spawnTool.inputSchema.properties.provider.description).toContain('echo (Echo agent): The umbel-provider-echo example');
        const call = async (name: string, args: Record<string, unknown>) => {
          const result = await client.callTool({ name, arguments: args }, undefined, { timeout: T });
          expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
          return result.structuredContent as Record<string, unknown>;
        };
        expect(await call('umbel_spawn', { name: 'echo-mcp', provider: 'echo', cwd: project })).toMatchObject({ name: 'echo-mcp', provider: 'echo' });
        expect(await call('umbel_send', { name: 'echo-mcp', prompt: 'hello over MCP' })).toEqual({ worker: 'echo-mcp', turn: 1 });
        expect(await call('umbel_wait', { name: 'echo-mcp', timeout: '120s' })).toMatchObject({ reason: 'completed', result: 'echo: hello over MCP' });
        expect(await call('umbel_read', { name: 'echo-mcp' })).toMatchObject({ result: 'echo: hello over MCP' });
        expect(await call('umbel_kill', { name: 'echo-mcp', purge: true })).toMatchObject({ worker: 'echo-mcp', purged: true });
      } finally {
        await client.close();
      }
    },
    T,
  );

  it(
    'a workflow: umbel run with a worker on provider echo, a template and a check',
    async () => {
      const flow = join(project, 'echo-flow.yaml');
      await writeFile(
        flow,
        [
          'workers:',
          '  echoer:',
          '    provider: echo',
          'steps:',
          '  - id: first',
          '    worker: echoer',
          '    prompt: hello from a workflow',
          '  - id: second',
          '    worker: echoer',
          '    needs: [first]',
          '    prompt: "again: {{ steps.first.output }}"',
          '    check: |',
          `      grep -q '^echo: again: echo: hello from a workflow$' "$UMBEL_ANSWER_FILE"`,
          '',
        ].join('\n'),
      );
      const result = await viaEnv()(['run', flow, '--json']);
      expect(result.code, result.stderr).toBe(0);
      const summary = JSON.parse(result.stdout);
      expect(summary).toMatchObject({ ok: true, exitCode: 0 });
      expect(summary.steps.map((s: { id: string; status: string }) => [s.id, s.status])).toEqual([
        ['first', 'accepted'],
        ['second', 'accepted'],
      ]);
    },
    T,
  );

  it('a provider package that is not installed makes only its own provider unusable: the CLI and umbel-mcp serve, `providers` names it', async () => {
    const env = echoEnv({ UMBEL_PROVIDERS: 'umbel-provider-nope' });
    const result = await umbelIn(env)(['ls']);
    expect(result.code, result.stderr).toBe(0);
    const providers = await umbelIn(env)(['providers']);
    expect(providers.stdout).toContain("cannot load provider package 'umbel-provider-nope' (from UMBEL_PROVIDERS): not installed");
    const initialize = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`;
    const mcp = await runCommand(process.execPath, [join(project, 'node_modules', '@umbel', 'mcp', 'bin', 'umbel-mcp.js')], {
      cwd: project,
      env,
      input: initialize,
    });
    expect(mcp.stdout).toContain('"serverInfo"');
  });
});

/** Start `npx --no -- <argv>`, send an MCP initialize, return the first answer; the server must exit once stdin closes. */
function initializeOverStdio(cwd: string, argv: string[], home: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['--no', '--', ...argv], { cwd, env: { ...process.env, UMBEL_HOME: home }, stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    let answer: unknown;
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const line = out.split('\n')[0];
      if (answer === undefined && out.includes('\n') && line) {
        answer = JSON.parse(line);
        child.stdin.end();
      }
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 && answer !== undefined ? resolve(answer) : reject(new Error(`${argv.join(' ')} exited ${code}; stdout: ${out}`))));
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pack-check', version: '0' } } })}\n`,
    );
  });
}
