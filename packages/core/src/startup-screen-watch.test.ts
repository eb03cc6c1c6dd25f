// Startup through the host's screen watch (Substrate.watchScreen): its looks go through the watch,
// the watch is closed whatever the outcome, and a watch that will not open or breaks costs nothing
// but the plain captures.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUmbel } from './engine.js';
import { SpawnFailedError } from './errors.js';
import type { ScreenWatch, Substrate } from './substrate.js';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from './testing/index.js';

let home: string;
let work: string;
let base: MemorySubstrate;
const env = { PATH: process.env.PATH };

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-sw-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-sw-work-'));
  base = createMemorySubstrate();
});
afterEach(async () => {
  for (const name of await base.list()) await base.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(work, { recursive: true, force: true });
});

/** The memory host with a screen watch whose captures, opens and closes are counted. */
function watched(options: { refuse?: boolean; breakAfter?: number } = {}) {
  const counts = { plainCaptures: 0, watchCaptures: 0, opened: 0, closed: 0 };
  const substrate: Substrate = {
    ...base,
    async capture(session, o) {
      counts.plainCaptures++;
      return base.capture(session, o);
    },
    async watchScreen(session): Promise<ScreenWatch> {
      if (options.refuse) throw new Error('no control client here');
      counts.opened++;
      return {
        async capture(o) {
          counts.watchCaptures++;
          if (options.breakAfter !== undefined && counts.watchCaptures > options.breakAfter) throw new Error('the watch broke');
          return base.capture(session, o);
        },
        async close() {
          counts.closed++;
        },
      };
    },
  };
  return { substrate, counts };
}

describe('startup with a screen watch', () => {
  it('looks through the watch, not through new captures, and closes it once ready', async () => {
    const { substrate, counts } = watched();
    const umbel = createUmbel({ substrate, providers: [createMockProvider()], home, env });
    await umbel.spawn({ name: 'w1', provider: 'mock', cwd: work });
    expect(counts.opened).toBe(1);
    expect(counts.watchCaptures).toBeGreaterThan(0);
    expect(counts.plainCaptures).toBe(0);
    expect(counts.closed).toBe(1);
  });

  it('closes the watch when startup fails', async () => {
    const { substrate, counts } = watched();
    const umbel = createUmbel({ substrate, providers: [createMockProvider()], home, env });
    await expect(umbel.spawn({ name: 'w2', provider: 'mock', cwd: work, env: { MOCK_CLI_FATAL: 'boom' } })).rejects.toBeInstanceOf(SpawnFailedError);
    expect(counts.opened).toBe(1);
    expect(counts.closed).toBe(1);
  });

  it('starts with plain captures when the watch will not open', async () => {
    const { substrate, counts } = watched({ refuse: true });
    const umbel = createUmbel({ substrate, providers: [createMockProvider()], home, env });
    await umbel.spawn({ name: 'w3', provider: 'mock', cwd: work });
    expect(counts.plainCaptures).toBeGreaterThan(0);
  });

  it('goes on with plain captures when the watch breaks, and closes the broken one', async () => {
    const { substrate, counts } = watched({ breakAfter: 0 });
    const umbel = createUmbel({ substrate, providers: [createMockProvider()], home, env });
    await umbel.spawn({ name: 'w4', provider: 'mock', cwd: work, env: { MOCK_CLI_START_MS: '150' } });
    expect(counts.watchCaptures).toBe(1);
    expect(counts.plainCaptures).toBeGreaterThan(0);
    expect(counts.closed).toBe(1);
  });
});
