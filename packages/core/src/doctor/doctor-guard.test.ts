/**
 * doctor calls its providers behind the one guard, and reads the scratch worker's hook events
 * through the ledger (the provider's reading of each, guarded there): a provider that throws is a
 * typed error or a failed check, never a crash.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createUmbel } from '../engine/engine.js';
import { createMemorySubstrate, createMockProvider } from '../testing/index.js';
import type { Provider } from '@umbel/provider';

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-doctor-guard-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
});

const boom = (): never => {
  throw new Error('boom');
};

function doctor(provider: Provider, options: Record<string, unknown> = {}) {
  const umbel = createUmbel({
    substrate: createMemorySubstrate(),
    providers: [provider],
    home,
    env: { PATH: process.env.PATH, HOME: home, TMPDIR: home },
    scratch: () => ({ substrate: createMemorySubstrate(), dispose: async () => undefined }),
  });
  return umbel.doctor({ providers: ['mock'], ...options });
}

const mock = (extra: Partial<Provider>): Provider => ({ ...createMockProvider(), doFindBinary: async () => '/bin/true', ...extra });

it("a throw of doReconcileEnv (the worker's env) is a ProviderFailedError", async () => {
  await expect(doctor(mock({ doReconcileEnv: boom }))).rejects.toMatchObject({
    code: 'UMBEL_PROVIDER_FAILED',
    message: expect.stringContaining('doReconcileEnv'),
  });
});

it('a provider that cannot read the session payload fails the payload check (the ledger read it, guarded)', async () => {
  const base = createMockProvider();
  const provider = mock({ doParseEvent: (event) => (event.kind === 'session' ? boom() : base.doParseEvent(event)) });
  const report = await doctor(provider);
  const checks = report.providers[0]?.checks ?? [];
  expect(checks.find((c) => c.id === 'session-hook')).toMatchObject({ status: 'pass' });
  expect(checks.find((c) => c.id === 'payload')).toMatchObject({ status: 'fail' });
});

it('a throw of doReadInputBox while doctor explains a failed start is a ProviderFailedError', async () => {
  const provider = mock({ doDetectStartup: () => ({ state: 'starting' }), doReadInputBox: boom });
  await expect(doctor(provider, { startupTimeout: '300ms' })).rejects.toMatchObject({
    code: 'UMBEL_PROVIDER_FAILED',
    message: expect.stringContaining('doReadInputBox'),
  });
});

it('a throw of doForgetScratch (the cleanup) leaves the report intact', async () => {
  const report = await doctor(mock({ doForgetScratch: boom }));
  expect(report.providers[0]?.checks.find((c) => c.id === 'launch')).toMatchObject({ status: 'pass' });
});

it("doForgetScratch is told the session ids the scratch worker's hook events name (as its ledger read them)", async () => {
  const told: string[][] = [];
  const report = await doctor(mock({ doForgetScratch: async ({ sessionIds }) => void told.push([...sessionIds]) }));
  const payload = report.providers[0]?.checks.find((c) => c.id === 'payload');
  expect(payload).toMatchObject({ status: 'pass' });
  const id = /session (\S+),/.exec(payload?.detail ?? '')?.[1];
  expect(told).toEqual([[id]]);
});
