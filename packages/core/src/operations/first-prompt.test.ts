// A spawn's first prompt (`umbel -p`'s cold call): a CLI that takes one on its command line starts
// on it as it comes up (no paste after the ready screen); any other gets it pasted once ready. Either
// way it is turn 1, and the spawn returns once the CLI took it.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Substrate } from '../contract/substrate.js';
import { createUmbel } from '../engine/engine.js';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '../testing/index.js';
import { LAUNCH_PROMPT_MAX_BYTES, planFirstPrompt } from './first-prompt.js';

let home: string;
let work: string;
let memory: MemorySubstrate;
let typed: string[];
let substrate: Substrate;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-first-prompt-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-first-prompt-work-'));
  memory = createMemorySubstrate();
  typed = [];
  substrate = {
    ...memory,
    pasteText: async (session, text) => {
      typed.push(text);
      return memory.pasteText(session, text);
    },
    pasteAndPress: async (session, text, keys) => {
      typed.push(text);
      return memory.pasteAndPress?.(session, text, keys);
    },
    typeText: async (session, text) => {
      typed.push(text);
      return memory.typeText(session, text);
    },
  };
});
afterEach(async () => {
  for (const name of await memory.list()) await memory.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(work, { recursive: true, force: true });
});

const engine = (launchPrompt: boolean, env: Record<string, string> = {}) =>
  createUmbel({ substrate, providers: [createMockProvider({ launchPrompt })], home, env: { PATH: process.env.PATH, ...env }, stopSettleMs: 300 });
/** The kinds of a worker's events in the order they came (`<ns>-<pid>-<kind>.json`). */
const eventKinds = async (name: string) =>
  (await readdir(join(home, 'workers', name, 'events')))
    .filter((f) => /^\d+-\d+-[a-z-]+\.json$/.test(f))
    .sort((a, b) => (BigInt(a.split('-')[0] as string) < BigInt(b.split('-')[0] as string) ? -1 : 1))
    .map((f) => f.replace(/^\d+-\d+-|\.json$/g, ''));

describe('a first prompt given with the spawn', () => {
  it('goes on the command line of a CLI that takes one: recorded as sent before the launch, never pasted, answered as turn 1', async () => {
    const umbel = engine(true);
    const status = await umbel.spawn({ name: 'w1', provider: 'mock', cwd: work }, { firstPrompt: '-v ECHO one' });
    expect(status.name).toBe('w1');
    expect(memory.launches[0]?.argv.slice(-2)).toEqual(['--', '-v ECHO one']);
    expect(typed).toEqual([]);
    const kinds = await eventKinds('w1');
    expect(kinds[0]).toBe('sent');
    expect(kinds).toContain('prompt');
    expect(await umbel.wait({ name: 'w1', turn: 1, timeout: '10s' })).toMatchObject({ reason: 'completed', result: 'MOCK-REPLY: -v ECHO one' });
  });

  it('a CLI starting on a launch prompt is looked at seldom: a 1 s start costs a few captures, not one every 100 ms', async () => {
    let captures = 0;
    substrate = {
      ...substrate,
      capture: async (session, options) => {
        captures++;
        return memory.capture(session, options);
      },
    };
    const slow = { MOCK_CLI_START_MS: '1000' };
    await engine(true, slow).spawn({ name: 'w1', provider: 'mock', cwd: work, env: slow }, { firstPrompt: 'ECHO one' });
    expect(captures).toBeLessThanOrEqual(4);
  });

  it('is pasted once ready into a CLI that takes none on its command line, as turn 1', async () => {
    const umbel = engine(false);
    await umbel.spawn({ name: 'w1', provider: 'mock', cwd: work }, { firstPrompt: 'ECHO one' });
    expect(memory.launches[0]?.argv).not.toContain('--');
    expect(typed).toEqual(['ECHO one']);
    expect(await umbel.wait({ name: 'w1', turn: 1, timeout: '10s' })).toMatchObject({ reason: 'completed', result: 'one' });
  });

  it('a launch prompt the CLI never takes fails the spawn as not submitted, and the worker is removed', async () => {
    const umbel = engine(true, { MOCK_CLI_DROP_LAUNCH_PROMPT: '1' });
    await expect(
      umbel.spawn({ name: 'w1', provider: 'mock', cwd: work, env: { MOCK_CLI_DROP_LAUNCH_PROMPT: '1' } }, { firstPrompt: 'ECHO one' }),
    ).rejects.toMatchObject({
      code: 'UMBEL_SEND_NOT_SUBMITTED',
    });
    expect(await memory.list()).toEqual([]);
    expect(await umbel.list()).toEqual([]);
  });

  it('waits for the ready screen under a billing guard: how the worker bills is known before the prompt goes in', () => {
    const provider = createMockProvider({ launchPrompt: true });
    expect(planFirstPrompt(provider, 'hi', 'any')).toEqual({ prompt: 'hi', onLaunch: 'hi' });
    expect(planFirstPrompt(provider, 'hi', 'subscription')).toEqual({ prompt: 'hi' });
    expect(planFirstPrompt(createMockProvider(), 'hi', 'any')).toEqual({ prompt: 'hi' });
    // the command line carries the text as a paste would put it in the input box (no keys)
    expect(planFirstPrompt(provider, 'a\x1b[201~b', 'any')?.onLaunch).toBe('a\u241b[201~b');
    // one that could overflow the host's command is pasted
    expect(planFirstPrompt(provider, 'é'.repeat(LAUNCH_PROMPT_MAX_BYTES / 2), 'any')?.onLaunch).toBeDefined();
    expect(planFirstPrompt(provider, 'é'.repeat(LAUNCH_PROMPT_MAX_BYTES / 2 + 1), 'any')).toEqual({ prompt: 'é'.repeat(LAUNCH_PROMPT_MAX_BYTES / 2 + 1) });
  });
});
