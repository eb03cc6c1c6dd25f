/** What a script written for the earlier umbel is told when it uses what changed (docs/migration.md). */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUmbel } from '@umbel/core';
import { createMemorySubstrate, createMockProvider } from '@umbel/core/testing';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { CliIo } from './io.js';
import { run } from './run.js';

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-cli-mig-'));
});
afterEach(() => rm(home, { recursive: true, force: true }));

async function cli(argv: string[], env: Record<string, string> = {}) {
  const out = { stdout: '', stderr: '' };
  const engine = createUmbel({ substrate: createMemorySubstrate(), providers: [createMockProvider()], home, env: { PATH: process.env.PATH } });
  const io: CliIo = {
    stdout: { write: (t: string) => (out.stdout += t) },
    stderr: { write: (t: string) => (out.stderr += t) },
    readStdin: async () => undefined,
    env: { PATH: process.env.PATH, ...env },
    cwd: home,
    createEngine: () => engine,
    onSignal: () => () => undefined,
  };
  return { code: await run(argv, io), ...out };
}

it('wait --since is a usage error whose hint names --turn', async () => {
  const r = await cli(['wait', 'w1', '--since', '5']);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('umbel: unknown option or argument: since');
  expect(r.stderr).toContain("hint: --since is gone: 'umbel wait NAME --turn N' takes the turn number 'umbel send' printed (docs/migration.md)");
});

it('UMBEL_STATE without UMBEL_HOME is named on stderr: it is not read', async () => {
  const r = await cli(['ls'], { UMBEL_STATE: '/tmp/old-state' });
  expect(r.code).toBe(0);
  expect(r.stderr).toBe('umbel: UMBEL_STATE is not read any more; set UMBEL_HOME to choose the state root (docs/migration.md)\n');
  expect((await cli(['ls'], { UMBEL_STATE: '/tmp/old-state', UMBEL_HOME: home })).stderr).toBe('');
});
