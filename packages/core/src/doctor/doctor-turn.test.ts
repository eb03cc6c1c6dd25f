/**
 * `doctor --turn` on the memory substrate's mock CLI: a CLI that writes its transcript before its
 * stop hook fires is correct (the turn completes from the transcript) and must pass — the stop
 * hook is awaited a while, never reported as "never fired" just because it came second (issue 36.3).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createUmbel } from '../engine/engine.js';
import { createMemorySubstrate, createMockProvider } from '../testing/index.js';

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-doctor-turn-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
});

async function turnCheck(stopLateMs: number, env: Record<string, string> = {}) {
  const provider = { ...createMockProvider(), doFindBinary: async () => '/bin/true' };
  const umbel = createUmbel({
    substrate: createMemorySubstrate(),
    providers: [provider],
    home,
    env: { PATH: process.env.PATH, HOME: home, TMPDIR: home },
    scratch: () => ({ substrate: createMemorySubstrate(), dispose: async () => undefined }),
  });
  const report = await umbel.doctor({ providers: ['mock'], turn: true, env: { MOCK_CLI_STOP_LATE_MS: String(stopLateMs), ...env } });
  return report.providers[0]?.checks.find((c) => c.id === 'turn');
}

it('passes a CLI whose stop hook fires after its transcript holds the answer', async () => {
  expect(await turnCheck(1500)).toMatchObject({ status: 'pass' });
});

it("a prompt never submitted fails with the screen's last lines (the scratch worker is gone afterwards: they are the evidence)", async () => {
  const turn = await turnCheck(0, { MOCK_CLI_DROP_ENTERS: '9' });
  expect(turn).toMatchObject({ status: 'fail' });
  expect(turn?.detail).toMatch(/not submitted after \d Enter presses/);
  // the mock CLI's input line still holds the prompt
  expect(turn?.detail).toMatch(/screen's last lines:\n.*mock> /s);
});
