// How a prompt reaches the CLI: text and Enter in one host call when the provider wants no delay
// before its Enter (one tmux client instead of two on every send), two calls with the delay
// between them when it does, and two calls on a host that cannot do both at once.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Substrate } from '../contract/substrate.js';
import { createUmbel } from '../engine/engine.js';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '../testing/index.js';

let home: string;
let work: string;
let memory: MemorySubstrate;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-send-submit-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-send-submit-work-'));
  memory = createMemorySubstrate();
});
afterEach(async () => {
  for (const name of await memory.list()) await memory.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(work, { recursive: true, force: true });
});

type Call = { readonly method: string; readonly at: number; readonly args: readonly unknown[] };

/** The memory host with its input calls logged (after the spawn: what one send did). */
function logged(options: { pasteAndPress: boolean }): { substrate: Substrate; calls: Call[] } {
  const calls: Call[] = [];
  const log = <A extends unknown[]>(method: string, fn: (session: string, ...args: A) => Promise<void>) => {
    return async (session: string, ...args: A) => {
      calls.push({ method, at: Date.now(), args });
      await fn(session, ...args);
    };
  };
  const { pasteAndPress, ...rest } = memory;
  const substrate: Substrate = {
    ...rest,
    pasteText: log('pasteText', memory.pasteText),
    sendKeys: log('sendKeys', memory.sendKeys),
    ...(options.pasteAndPress && pasteAndPress ? { pasteAndPress: log('pasteAndPress', pasteAndPress) } : {}),
  };
  return { substrate, calls };
}

async function sendOnce(substrate: Substrate, submitDelayMs?: number) {
  const mock = createMockProvider();
  const provider = { ...mock, input: { ...mock.input, ...(submitDelayMs === undefined ? {} : { submitDelayMs }) } };
  const umbel = createUmbel({ substrate, providers: [provider], home, env: { PATH: process.env.PATH }, stopSettleMs: 300 });
  await umbel.spawn({ name: 'w1', provider: 'mock', cwd: work });
  return { umbel, sent: await umbel.send({ name: 'w1', prompt: 'ECHO one' }) };
}

describe('submitting a prompt', () => {
  it('no delay before Enter: the text and Enter go to the host in one call, and the turn is the answer', async () => {
    const { substrate, calls } = logged({ pasteAndPress: true });
    const { umbel, sent } = await sendOnce(substrate);
    expect(sent).toMatchObject({ turn: 1 });
    expect(calls.map((c) => [c.method, ...c.args])).toEqual([['pasteAndPress', 'ECHO one', ['Enter']]]);
    expect(await umbel.wait({ name: 'w1', turn: 1, timeout: '10s' })).toMatchObject({ reason: 'completed', result: 'one' });
  });

  it('a delay before Enter: the text, then Enter no sooner than the delay after it (two calls)', async () => {
    const { substrate, calls } = logged({ pasteAndPress: true });
    await sendOnce(substrate, 150);
    expect(calls.map((c) => [c.method, ...c.args])).toEqual([
      ['pasteText', 'ECHO one'],
      ['sendKeys', ['Enter']],
    ]);
    expect((calls[1] as Call).at - (calls[0] as Call).at).toBeGreaterThanOrEqual(140);
  });

  it('a host without pasteAndPress: the text, then Enter (two calls); the turn is the answer', async () => {
    const { substrate, calls } = logged({ pasteAndPress: false });
    const { umbel } = await sendOnce(substrate);
    expect(calls.map((c) => [c.method, ...c.args])).toEqual([
      ['pasteText', 'ECHO one'],
      ['sendKeys', ['Enter']],
    ]);
    expect(await umbel.wait({ name: 'w1', turn: 1, timeout: '10s' })).toMatchObject({ reason: 'completed', result: 'one' });
  });
});
