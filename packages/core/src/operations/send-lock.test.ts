// The send lock names its owner: a send killed while holding it (SIGKILL: no finally ran) never
// blocks the next send, and its half-sent turn never takes the next turn's answer; a send waiting
// behind a live owner ends on its signal (SIGINT on the CLI).
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UmbelError } from '../contract/errors.js';
import type { Umbel } from '../contract/umbel.js';
import { createUmbel } from '../engine/engine.js';
import { writeOwnEvent } from '../ledger/own-events.js';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '../testing/index.js';

let home: string;
let work: string;
let substrate: MemorySubstrate;
let umbel: Umbel;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-send-lock-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-send-lock-work-'));
  substrate = createMemorySubstrate();
  umbel = createUmbel({ substrate, providers: [createMockProvider()], home, env: { PATH: process.env.PATH }, stopSettleMs: 300 });
});
afterEach(async () => {
  for (const name of await substrate.list()) await substrate.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(work, { recursive: true, force: true });
});

async function failure(promise: Promise<unknown>): Promise<UmbelError> {
  try {
    await promise;
  } catch (error) {
    if (UmbelError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a typed error');
}

/** The pid of a process that has exited (and was reaped). */
function deadPid(): number {
  return Number(execFileSync('sh', ['-c', 'sh -c "echo \\$\\$"']).toString().trim());
}

/** What a `umbel send` killed mid-delivery leaves: its lock (owner dead), its `sent` event, its text in the input box. */
async function killedSend(name: string, turn: number, owner: { pid: number; at: number }): Promise<void> {
  const lock = join(home, 'workers', name, 'send.lock');
  await mkdir(lock, { mode: 0o700 });
  await writeFile(join(lock, 'owner'), JSON.stringify(owner));
  await writeOwnEvent(join(home, 'workers', name, 'events'), 'sent', { turn, prompt: 'ECHO half sent' });
  await substrate.pasteText(`umbel-${name}`, 'ECHO half');
}

describe('the send lock', () => {
  it("a killed sender's lock is broken at once; its turn is closed as not submitted and the next answer is the next turn's", async () => {
    await umbel.spawn({ name: 'w1', provider: 'mock', cwd: work });
    await umbel.send({ name: 'w1', prompt: 'ECHO one' });
    await umbel.wait({ name: 'w1', timeout: '10s' });
    await killedSend('w1', 2, { pid: deadPid(), at: Date.now() - 1000 });
    const sent = await umbel.send({ name: 'w1', prompt: 'ECHO three' });
    expect(sent).toMatchObject({ turn: 3 });
    expect(await umbel.wait({ name: 'w1', turn: 3, timeout: '10s' })).toMatchObject({ reason: 'completed', turn: 3, result: 'three' });
    expect((await failure(umbel.wait({ name: 'w1', turn: 2, timeout: '10s' }))).code).toBe('UMBEL_TURN_NOT_SUBMITTED');
  });

  it('a send waiting behind a live owner ends on its signal with AbortedError', async () => {
    await umbel.spawn({ name: 'w1', provider: 'mock', cwd: work });
    const lock = join(home, 'workers', 'w1', 'send.lock');
    await mkdir(lock, { mode: 0o700 });
    await writeFile(join(lock, 'owner'), JSON.stringify({ pid: process.pid, at: Date.now() }));
    const controller = new AbortController();
    const pending = failure(umbel.send({ name: 'w1', prompt: 'ECHO x' }, { signal: controller.signal }));
    setTimeout(() => controller.abort(), 200);
    expect((await pending).code).toBe('UMBEL_ABORTED');
  });
});
