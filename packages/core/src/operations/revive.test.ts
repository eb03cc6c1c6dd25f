// revive on the memory substrate with the mock CLI: a killed or crashed worker comes back through
// its provider's resume (the launch gets the recorded session id), turn numbers go on, the turn that
// was running at the death stays dead, and what cannot be revived is refused before anything starts.
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUmbel } from '../engine/engine.js';
import { UmbelError } from '../contract/errors.js';
import type { Umbel } from '../contract/umbel.js';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate, type MockProvider } from '../testing/index.js';

let home: string;
let work: string;
let substrate: MemorySubstrate;
let provider: MockProvider;
let umbel: Umbel;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-revive-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-revive-work-'));
  substrate = createMemorySubstrate();
  provider = createMockProvider({ resume: true });
  umbel = createUmbel({
    substrate,
    providers: [provider, createMockProvider({ providerId: 'plain' })],
    home,
    env: { PATH: process.env.PATH, HOME: '/nonexistent-home' },
    stopSettleMs: 300,
  });
});
afterEach(async () => {
  for (const name of await substrate.list()) await substrate.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(work, { recursive: true, force: true });
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (UmbelError.isInstance(error)) return error.code;
    throw error;
  }
  return 'no error';
}

const launches = () => provider.calls.filter((c) => c.method === 'doBuildLaunch').map((c) => c.args as { sessionId: string; resume?: { sessionId: string } });

describe('revive', () => {
  it('a killed worker starts again resuming its recorded session; turn numbers go on', async () => {
    await umbel.spawn({ name: 'w', provider: 'mock', cwd: work });
    await umbel.send({ name: 'w', prompt: 'ECHO one' });
    expect(await umbel.wait({ name: 'w' })).toMatchObject({ reason: 'completed', result: 'one' });
    await umbel.kill({ name: 'w' });
    const status = await umbel.revive({ name: 'w' });
    expect(status).toMatchObject({ name: 'w', state: 'ready', alive: true, turn: 1 });
    const [first, second] = launches();
    expect(first?.resume).toBeUndefined();
    // the id the CLI itself announced last (the mock's session hook says mock-session), not umbel's first guess
    expect(first?.sessionId).not.toBe('mock-session');
    expect(second?.resume).toEqual({ sessionId: 'mock-session' });
    expect(second?.sessionId).toBe('mock-session');
    expect(await umbel.send({ name: 'w', prompt: 'ECHO two' })).toMatchObject({ turn: 2 });
    expect(await umbel.wait({ name: 'w' })).toMatchObject({ reason: 'completed', turn: 2, result: 'two' });
    expect((await umbel.read({ name: 'w', turn: 1 })).result).toBe('one');
    expect((await umbel.status({ name: 'w' })).state).toBe('ready');
  });

  it("a turn running when the CLI died stays dead; the new process's answer is the next turn's", async () => {
    await umbel.spawn({ name: 'd', provider: 'mock', cwd: work });
    await umbel.send({ name: 'd', prompt: 'ECHO one' });
    await umbel.wait({ name: 'd' });
    await umbel.send({ name: 'd', prompt: 'DELAY 60000 never' });
    await substrate.kill('umbel-d');
    expect(await umbel.wait({ name: 'd', timeout: '20s' })).toMatchObject({ reason: 'dead', turn: 2 });
    await umbel.revive({ name: 'd' });
    expect(await umbel.send({ name: 'd', prompt: 'ECHO three' })).toMatchObject({ turn: 3 });
    expect(await umbel.wait({ name: 'd' })).toMatchObject({ reason: 'completed', turn: 3, result: 'three' });
    expect(await umbel.wait({ name: 'd', turn: 2 })).toMatchObject({ reason: 'dead', turn: 2 });
  });

  it('refuses a provider without resume, a live worker, and one with no conversation; nothing is started', async () => {
    await umbel.spawn({ name: 'p', provider: 'plain', cwd: work });
    await umbel.send({ name: 'p', prompt: 'ECHO x' });
    await umbel.wait({ name: 'p' });
    await umbel.kill({ name: 'p' });
    expect(await codeOf(umbel.revive({ name: 'p' }))).toBe('UMBEL_RESUME_UNSUPPORTED');
    expect((await umbel.status({ name: 'p' })).state).toBe('killed');

    await umbel.spawn({ name: 'l', provider: 'mock', cwd: work });
    expect(await codeOf(umbel.revive({ name: 'l' }))).toBe('UMBEL_REVIVE_REFUSED');
    await umbel.kill({ name: 'l' });
    expect(await codeOf(umbel.revive({ name: 'l' }))).toBe('UMBEL_REVIVE_REFUSED');
    expect((await umbel.status({ name: 'l' })).state).toBe('killed');
    expect(launches()).toHaveLength(1);
  });

  it('a worker whose kill is under way (recorded, its session not yet gone) is killed to status, and revive refuses it until it is gone', async () => {
    await umbel.spawn({ name: 'k', provider: 'mock', cwd: work });
    await umbel.send({ name: 'k', prompt: 'ECHO x' });
    await umbel.wait({ name: 'k' });
    const end = substrate.kill.bind(substrate);
    let during: { state: string; alive: boolean; revive: string } | undefined;
    substrate.kill = async (session) => {
      const status = await umbel.status({ name: 'k' });
      during = { state: status.state, alive: status.alive, revive: await codeOf(umbel.revive({ name: 'k' })) };
      return end(session);
    };
    await umbel.kill({ name: 'k' });
    expect(during).toEqual({ state: 'killed', alive: true, revive: 'UMBEL_REVIVE_REFUSED' });
    expect(launches()).toHaveLength(1);
    expect(await umbel.status({ name: 'k' })).toMatchObject({ state: 'killed', alive: false });
  });
});

describe('revive of a confined worker (spawn sandbox)', () => {
  /** A PATH dir with stand-ins for bwrap and socat, unless left out. */
  function toolsDir(without: string[] = []): string {
    const dir = join(home, `..bin-${without.join('-') || 'all'}`);
    mkdirSync(dir, { recursive: true });
    for (const tool of ['bwrap', 'socat'].filter((t) => !without.includes(t))) if (!existsSync(join(dir, tool))) symlinkSync('/bin/true', join(dir, tool));
    return dir;
  }
  const engineWith = (path: string) =>
    createUmbel({ substrate, providers: [provider], home, env: { PATH: `${path}:${process.env.PATH}`, HOME: '/nonexistent-home' }, stopSettleMs: 300 });

  it('comes back confined with the same widenings; where the sandbox cannot be had it is refused, never unconfined', async () => {
    if (process.platform !== 'linux') return;
    const confined = engineWith(toolsDir());
    await confined.spawn({ name: 's', provider: 'mock', cwd: work, sandbox: { write: ['/data/out'] } });
    await confined.send({ name: 's', prompt: 'ECHO one' });
    await confined.wait({ name: 's' });
    await confined.kill({ name: 's' });

    // bwrap gone from the caller's PATH: refused (116) before anything starts
    const launched = substrate.launches.length;
    expect(await codeOf(createUmbel({ substrate, providers: [provider], home, env: { PATH: toolsDir(['bwrap']) } }).revive({ name: 's' }))).toBe(
      'UMBEL_SANDBOX_UNAVAILABLE',
    );
    expect(substrate.launches).toHaveLength(launched);

    const status = await confined.revive({ name: 's' });
    const launch = substrate.launches.at(-1);
    expect(launch?.argv).toContain('--settings');
    expect(launch?.argv.join(' ')).toContain(join(home, 'workers', 's', 'sandbox.json'));
    expect(launch?.env.IS_SANDBOX).toBe('1');
    expect(status.sandbox?.widened.write).toEqual(['/data/out']);
  });
});
