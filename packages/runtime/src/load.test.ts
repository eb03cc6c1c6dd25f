/**
 * Loading provider packages: where a name is looked up, which exports count, and every refusal
 * (a typed ProviderLoadError naming the package, where it came from and why; exit 2).
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorExitCode, UmbelErrorCode } from '@umbel/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProviders, ProviderLoadError } from './load.js';

let scratch: string;
let project: string;
let deep: string;
let prefix: string;
let n = 0;

/** JS source of a module exporting test providers in one of the accepted (or refused) forms. */
function providerModule(ids: readonly string[], form: 'default' | 'provider' | 'providers' | 'none' | 'cjs', spec = 'umbel-provider-v1'): string {
  const make = `(id) => ({
    specificationVersion: ${JSON.stringify(spec)}, providerId: id, displayName: id.toUpperCase(), description: 'the ' + id + ' test provider',
    capabilities: { unattended: false, allowedTools: false, appendSystemPrompt: false, permissionModes: [] }, inheritEnv: [],
    async doBuildLaunch() { return { argv: ['/bin/true'] }; }, doDetectStartup() { return { state: 'starting' }; },
    doParseEvent() { return {}; }, doReadTurn() { return { status: 'missing' }; },
  })`;
  const list = JSON.stringify(ids);
  switch (form) {
    case 'default':
      return `const make = ${make};\nexport default make(${JSON.stringify(ids[0])});\n`;
    case 'provider':
      return `const make = ${make};\nexport const provider = make(${JSON.stringify(ids[0])});\nexport const other = 1;\n`;
    case 'providers':
      return `const make = ${make};\nexport const providers = ${list}.map(make);\n`;
    case 'cjs':
      return `const make = ${make};\nmodule.exports = { provider: make(${JSON.stringify(ids[0])}) };\n`;
    case 'none':
      return `export const notAProvider = 1;\nexport default function () {}\n`;
  }
}

/** A package `name` in `<dir>/node_modules`, its entry `index.js`. */
async function installPackage(dir: string, name: string, source: string, manifest: Record<string, unknown> = {}): Promise<string> {
  const pkgDir = join(dir, 'node_modules', name);
  await mkdir(pkgDir, { recursive: true });
  await writeFile(join(pkgDir, 'package.json'), JSON.stringify({ name, version: '1.2.3', type: 'module', main: 'index.js', ...manifest }));
  await writeFile(join(pkgDir, manifest.type === 'commonjs' ? 'index.cjs' : 'index.js'), source);
  return pkgDir;
}

/** The environment of one test: no config file unless given, the test's own global prefix. */
function env(extra: Record<string, string> = {}): Record<string, string> {
  return { HOME: join(scratch, 'home'), npm_config_prefix: prefix, ...extra };
}

/** The one package of `environment` that failed to load (the built-ins and the rest still load). */
async function refusal(environment: Record<string, string>, cwd = deep): Promise<ProviderLoadError> {
  const loaded = await loadProviders({ env: environment, cwd });
  expect(loaded.providers.map((p) => p.provider.providerId)).toEqual(expect.arrayContaining(['claude', 'codex', 'gemini', 'opencode', 'copilot']));
  const error = loaded.failures?.at(-1);
  expect(error, 'loadProviders should have refused a package').toBeInstanceOf(ProviderLoadError);
  expect((error as ProviderLoadError).code).toBe(UmbelErrorCode.ProviderInvalid);
  expect(errorExitCode(error)).toBe(2);
  return error as ProviderLoadError;
}

beforeAll(async () => {
  scratch = await realpath(await mkdtemp(join(tmpdir(), 'umbel-load-')));
  project = join(scratch, 'project');
  deep = join(project, 'src', 'deeper');
  prefix = join(scratch, 'global-prefix');
  await mkdir(deep, { recursive: true });
  await mkdir(join(prefix, 'lib', 'node_modules'), { recursive: true });
  await mkdir(join(scratch, 'home'), { recursive: true });
  await installPackage(project, 'umbel-provider-alpha', providerModule(['alpha'], 'default'));
  await installPackage(project, '@acme/umbel-provider-beta', providerModule(['beta'], 'provider'));
  await installPackage(project, 'umbel-provider-pair', providerModule(['gamma', 'delta'], 'providers'));
  await installPackage(project, 'umbel-provider-none', providerModule([], 'none'));
  await installPackage(project, 'umbel-provider-v2', providerModule(['future'], 'default', 'umbel-provider-v2'));
  await installPackage(project, 'umbel-provider-claude-clone', providerModule(['claude'], 'default'));
  await installPackage(project, 'umbel-provider-alpha-clone', providerModule(['alpha'], 'provider'));
  await installPackage(project, 'umbel-provider-throws', `throw new Error('boom at import');\n`);
  await installPackage(project, 'umbel-provider-broken', `const make = ${'{'};\n`);
  await installPackage(project, 'umbel-provider-shapeless', `export default { specificationVersion: 'umbel-provider-v1', providerId: 'Shape Less' };\n`);
  await installPackage(project, 'umbel-provider-cjs', providerModule(['cjs'], 'cjs'), { type: 'commonjs', main: 'index.cjs' });
  // exports with only an `import` condition: a require.resolve would not find it.
  await installPackage(project, 'umbel-provider-esm-only', '', { main: undefined, exports: { '.': { types: './x.d.ts', import: './esm.js' } } });
  await writeFile(join(project, 'node_modules', 'umbel-provider-esm-only', 'esm.js'), providerModule(['esm-only'], 'default'));
  // the same name in the project and in the global install: the project's wins.
  await installPackage(project, 'umbel-provider-both', providerModule(['both-local'], 'default'));
  await installPackage(join(prefix, 'lib'), 'umbel-provider-both', providerModule(['both-global'], 'default'));
  await installPackage(join(prefix, 'lib'), 'umbel-provider-global', providerModule(['global'], 'default'));
  // loose files and a package directory, given by path
  await mkdir(join(project, 'local', 'pkg'), { recursive: true });
  await writeFile(join(project, 'local', 'loose.mjs'), providerModule(['loose'], 'default'));
  await writeFile(join(project, 'local', 'pkg', 'package.json'), JSON.stringify({ name: 'local-pkg', version: '0.0.7', type: 'module', exports: './main.js' }));
  await writeFile(join(project, 'local', 'pkg', 'main.js'), providerModule(['local-pkg'], 'provider'));
}, 60_000);

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('loadProviders', () => {
  it('without UMBEL_PROVIDERS or a config file: the built-ins, with their packages and versions', async () => {
    const loaded = await loadProviders({ env: env(), cwd: deep });
    expect(loaded.providers.map((p) => [p.provider.providerId, p.source, p.packageName])).toEqual([
      ['claude', 'built-in', '@umbel/provider-claude'],
      ['codex', 'built-in', '@umbel/provider-codex'],
      ['gemini', 'built-in', '@umbel/provider-gemini'],
      ['opencode', 'built-in', '@umbel/provider-opencode'],
      ['copilot', 'built-in', '@umbel/provider-copilot'],
      ['qwen', 'built-in', '@umbel/provider-qwen'],
    ]);
    for (const p of loaded.providers) expect(p.packageVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(loaded.config.exists).toBe(false);
  });

  it('loads packages named in UMBEL_PROVIDERS from the cwd upward: default export, `provider`, `providers`, CommonJS, import-only exports', async () => {
    const loaded = await loadProviders({
      env: env({ UMBEL_PROVIDERS: ' umbel-provider-alpha,@acme/umbel-provider-beta,, umbel-provider-pair,umbel-provider-cjs,umbel-provider-esm-only ' }),
      cwd: deep,
    });
    const extra = loaded.providers.filter((p) => p.source !== 'built-in');
    expect(extra.map((p) => [p.provider.providerId, p.source, p.specifier, p.packageName, p.packageVersion])).toEqual([
      ['alpha', 'env', 'umbel-provider-alpha', 'umbel-provider-alpha', '1.2.3'],
      ['beta', 'env', '@acme/umbel-provider-beta', '@acme/umbel-provider-beta', '1.2.3'],
      ['gamma', 'env', 'umbel-provider-pair', 'umbel-provider-pair', '1.2.3'],
      ['delta', 'env', 'umbel-provider-pair', 'umbel-provider-pair', '1.2.3'],
      ['cjs', 'env', 'umbel-provider-cjs', 'umbel-provider-cjs', '1.2.3'],
      ['esm-only', 'env', 'umbel-provider-esm-only', 'umbel-provider-esm-only', '1.2.3'],
    ]);
    expect(extra[0]?.module).toBe(join(project, 'node_modules', 'umbel-provider-alpha', 'index.js'));
  });

  it('loads paths: absolute, relative to the cwd, a package directory', async () => {
    const loaded = await loadProviders({
      env: env({ UMBEL_PROVIDERS: `${join(project, 'local', 'loose.mjs')},../../local/pkg` }),
      cwd: deep,
    });
    const extra = loaded.providers.filter((p) => p.source === 'env');
    expect(extra.map((p) => [p.provider.providerId, p.packageName, p.packageVersion])).toEqual([
      ['loose', undefined, undefined],
      ['local-pkg', 'local-pkg', '0.0.7'],
    ]);
    expect(extra[1]?.module).toBe(join(project, 'local', 'pkg', 'main.js'));
  });

  it("loads the config file's providers (paths relative to the file), before UMBEL_PROVIDERS; a package in both loads once", async () => {
    const configDir = join(scratch, 'xdg', 'umbel');
    await mkdir(configDir, { recursive: true });
    await writeFile(join(configDir, 'config.json'), JSON.stringify({ providers: ['umbel-provider-alpha', '../../project/local/loose.mjs'] }));
    const loaded = await loadProviders({
      env: env({ XDG_CONFIG_HOME: join(scratch, 'xdg'), UMBEL_PROVIDERS: 'umbel-provider-alpha,@acme/umbel-provider-beta' }),
      cwd: deep,
    });
    expect(loaded.providers.filter((p) => p.source !== 'built-in').map((p) => [p.provider.providerId, p.source])).toEqual([
      ['alpha', 'config'],
      ['loose', 'config'],
      ['beta', 'env'],
    ]);
    expect(loaded.config).toMatchObject({ path: join(configDir, 'config.json'), exists: true });
  });

  it('looks a name up from the cwd upward first, then where umbel is installed, then in the global install', async () => {
    const both = await loadProviders({ env: env({ UMBEL_PROVIDERS: 'umbel-provider-both,umbel-provider-global' }), cwd: deep });
    expect(both.providers.filter((p) => p.source === 'env').map((p) => p.provider.providerId)).toEqual(['both-local', 'global']);
    const elsewhere = join(scratch, 'elsewhere');
    await mkdir(elsewhere, { recursive: true });
    const global = await loadProviders({ env: env({ UMBEL_PROVIDERS: 'umbel-provider-both' }), cwd: elsewhere });
    expect(global.providers.find((p) => p.source === 'env')?.provider.providerId).toBe('both-global');
    // zod is nowhere above `elsewhere` nor in the global install, only beside umbel itself:
    // found there (and refused, as it is no provider).
    const error = await refusal(env({ UMBEL_PROVIDERS: 'zod' }), elsewhere);
    expect(error.reason).toMatch(/exports no provider/);
  });

  it('refuses a package that is not installed, naming it, its source and where it looked', async () => {
    const error = await refusal(env({ UMBEL_PROVIDERS: 'umbel-provider-missing' }));
    expect(error.message).toContain("'umbel-provider-missing'");
    expect(error.message).toContain('UMBEL_PROVIDERS');
    expect(error.message).toContain(deep);
    expect(error.message).toContain(join(prefix, 'lib', 'node_modules'));
    expect(error.hint).toMatch(/npm install/);
    expect(error.specifier).toBe('umbel-provider-missing');
    expect(error.source).toBe('env');
  });

  it('refuses a missing path and a word that is neither a package name nor a path', async () => {
    expect((await refusal(env({ UMBEL_PROVIDERS: './nope.mjs' }))).message).toContain(join(deep, 'nope.mjs'));
    expect((await refusal(env({ UMBEL_PROVIDERS: 'Not A Name' }))).reason).toMatch(/neither a package name nor a path/);
  });

  it('refuses a module that exports no provider, another specificationVersion, a bad shape, or fails to import', async () => {
    expect((await refusal(env({ UMBEL_PROVIDERS: 'umbel-provider-none' }))).reason).toMatch(/exports no provider.*default export.*provider.*providers/);
    const v2 = await refusal(env({ UMBEL_PROVIDERS: 'umbel-provider-v2' }));
    expect(v2.reason).toMatch(/umbel-provider-v2/);
    expect(v2.reason).toMatch(/umbel-provider-v1/);
    const shape = await refusal(env({ UMBEL_PROVIDERS: 'umbel-provider-shapeless' }));
    expect(shape.reason).toMatch(/providerId/);
    expect(shape.reason).toMatch(/doReadTurn/);
    expect((await refusal(env({ UMBEL_PROVIDERS: 'umbel-provider-throws' }))).reason).toMatch(/boom at import/);
    expect((await refusal(env({ UMBEL_PROVIDERS: 'umbel-provider-broken' }))).reason).toMatch(/SyntaxError/);
  });

  it('a broken package makes only its own provider unusable: the others before and after it load, and the failure names it and why', async () => {
    const loaded = await loadProviders({
      env: env({ UMBEL_PROVIDERS: 'umbel-provider-alpha,umbel-provider-throws,@acme/umbel-provider-beta,umbel-provider-missing' }),
      cwd: deep,
    });
    expect(loaded.providers.map((p) => p.provider.providerId)).toEqual(['claude', 'codex', 'gemini', 'opencode', 'copilot', 'qwen', 'alpha', 'beta']);
    expect(loaded.failures?.map((f) => [f.specifier, f.source])).toEqual([
      ['umbel-provider-throws', 'env'],
      ['umbel-provider-missing', 'env'],
    ]);
    expect(loaded.failures?.[0]?.reason).toMatch(/boom at import/);
  });

  it('refuses a provider that would shadow a built-in or another loaded one, naming both', async () => {
    const builtIn = await refusal(env({ UMBEL_PROVIDERS: 'umbel-provider-claude-clone' }));
    expect(builtIn.message).toMatch(/'claude'.*built-in.*@umbel\/provider-claude/);
    const twice = await refusal(env({ UMBEL_PROVIDERS: 'umbel-provider-alpha,umbel-provider-alpha-clone' }));
    expect(twice.specifier).toBe('umbel-provider-alpha-clone');
    expect(twice.message).toMatch(/'alpha'.*umbel-provider-alpha \(UMBEL_PROVIDERS\)/);
  });

  it("refuses an invalid config file before loading anything (the config's own error)", async () => {
    const path = join(scratch, `bad-${n++}.json`);
    await writeFile(path, '{"providers": 1}');
    await expect(loadProviders({ env: env({ UMBEL_CONFIG: path }), cwd: deep })).rejects.toMatchObject({ name: 'ConfigInvalidError', code: 'UMBEL_USAGE' });
  });
});
