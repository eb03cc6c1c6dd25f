import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ProviderV1, SpawnFailedError } from '@umbel/core';
import { createMockProvider } from '@umbel/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectProviders, ProvidersReportSchema } from './inspect.js';
import type { LoadedProviders } from './loaded.js';

let scratch: string;
const config = { path: '/nonexistent/umbel/config.json', exists: false, config: {} };

async function script(name: string, body: string): Promise<string> {
  const path = join(scratch, name);
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
  return path;
}

function withBinary(id: string, find: ProviderV1['doFindBinary'], extra: Partial<ProviderV1> = {}): ProviderV1 {
  return { ...createMockProvider({ providerId: id }), doFindBinary: find, ...extra };
}

beforeAll(async () => {
  scratch = await realpath(await mkdtemp(join(tmpdir(), 'umbel-inspect-')));
  await mkdir(join(scratch, 'dir with space'), { recursive: true });
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('inspectProviders', () => {
  it('reports the binary and its --version, the verified versions, the origin and the description', async () => {
    const bin = await script('good-cli', 'echo "good-cli 1.4.2 (build 7)"; echo second line');
    const loaded: LoadedProviders = {
      config,
      providers: [
        {
          provider: withBinary('good', async () => bin, {
            verifiedVersions: ['1.4.0', '1.4.2'],
            description: 'A good CLI; needs GOOD_KEY',
            displayName: 'Good CLI',
          }),
          source: 'env',
          specifier: 'umbel-provider-good',
          packageName: 'umbel-provider-good',
          packageVersion: '2.0.0',
          module: '/x/index.js',
        },
      ],
    };
    const report = await inspectProviders(loaded, { env: { PATH: process.env.PATH } });
    expect(ProvidersReportSchema.parse(report)).toEqual(report);
    expect(report).toEqual({
      config: { path: config.path, exists: false },
      providers: [
        {
          id: 'good',
          displayName: 'Good CLI',
          description: 'A good CLI; needs GOOD_KEY',
          source: 'env',
          specifier: 'umbel-provider-good',
          packageName: 'umbel-provider-good',
          packageVersion: '2.0.0',
          module: '/x/index.js',
          binary: { status: 'found', path: bin, version: 'good-cli 1.4.2 (build 7)' },
          verifiedVersions: ['1.4.0', '1.4.2'],
        },
      ],
    });
  });

  it('says where a provider looked when its binary is missing, and "unknown" without doFindBinary', async () => {
    const missing = withBinary('missing', async () => {
      throw new SpawnFailedError('missing-cli was not found (looked: UMBEL_MISSING_BIN unset; PATH /a:/b)', { hint: 'install missing-cli' });
    });
    const report = await inspectProviders(
      {
        config,
        providers: [
          { provider: missing, source: 'config' },
          { provider: createMockProvider(), source: 'built-in' },
        ],
      },
      { env: {} },
    );
    expect(report.providers[0]?.binary).toEqual({
      status: 'not-found',
      message: 'missing-cli was not found (looked: UMBEL_MISSING_BIN unset; PATH /a:/b)',
      hint: 'install missing-cli',
    });
    expect(report.providers[1]?.binary).toMatchObject({ status: 'unknown', message: expect.stringMatching(/doFindBinary/) });
    expect(report.providers[1]?.verifiedVersions).toEqual([]);
  });

  it('bounds --version: a CLI that hangs, fails or prints nothing is still reported as found', async () => {
    const hangs = await script('hangs', 'sleep 600');
    const fails = await script('fails', 'echo "no such flag: --version" >&2; exit 3');
    const silent = await script('silent', 'exit 0');
    const report = await inspectProviders(
      {
        config,
        providers: [hangs, fails, silent].map((path, i) => ({ provider: withBinary(`p${i}`, async () => path), source: 'env' as const })),
      },
      { env: { PATH: process.env.PATH }, versionTimeoutMs: 1_000 },
    );
    expect(report.providers.map((p) => p.binary)).toEqual([
      { status: 'found', path: hangs, versionError: '`--version` did not answer within 1000 ms' },
      { status: 'found', path: fails, versionError: '`--version` exited 3: no such flag: --version' },
      { status: 'found', path: silent, versionError: '`--version` printed nothing' },
    ]);
  });

  it('runs the binary directly, never through a shell (a path full of shell syntax is just a path)', async () => {
    const path = await script('dir with space/odd cli;echo INJECTED', 'echo "odd-cli 0.0.1"');
    const report = await inspectProviders(
      { config, providers: [{ provider: withBinary('odd', async () => path), source: 'env' }] },
      { env: { PATH: process.env.PATH } },
    );
    expect(report.providers[0]?.binary).toEqual({ status: 'found', path, version: 'odd-cli 0.0.1' });
  });
});
