/**
 * One state root drives the engine and its substrate: a substrate bound to a root (tmux derives
 * its socket and launch wrapper from it) gives the engine its home, and an engine told another
 * root refuses it, since its workers would run where the engine never looks (orphans).
 */
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUmbel } from './engine.js';
import { UmbelError } from '../contract/errors.js';
import { errorExitCode } from '../contract/exit-codes.js';
import type { Substrate } from '../contract/substrate.js';
import { createMemorySubstrate, createMockProvider } from '../testing/index.js';

let scratch: string;
beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'umbel-home-binding-'));
});
afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** A memory substrate that says it serves `home`, as the tmux substrate does. */
function boundTo(home: string): Substrate {
  return Object.assign(createMemorySubstrate(), { home });
}

const providers = [createMockProvider()];

describe('the engine and its substrate share one state root', () => {
  it("takes its home from the substrate when none is given (over UMBEL_HOME's default)", () => {
    const home = join(scratch, 'state');
    const umbel = createUmbel({ substrate: boundTo(home), providers, env: { UMBEL_HOME: join(scratch, 'elsewhere') } });
    expect(umbel.home).toBe(home);
  });

  it('accepts the same root spelled differently (trailing slash, relative segments, a symlink)', async () => {
    const home = join(scratch, 'state');
    await mkdir(home);
    await symlink(home, join(scratch, 'link'));
    for (const spelled of [`${home}/`, join(scratch, 'x', '..', 'state'), join(scratch, 'link')]) {
      expect(createUmbel({ substrate: boundTo(home), providers, home: spelled }).home, spelled).toBeDefined();
    }
  });

  it('refuses a substrate bound to another root with a typed error naming both', () => {
    const ours = join(scratch, 'a');
    const theirs = join(scratch, 'b');
    let error: unknown;
    try {
      createUmbel({ substrate: boundTo(theirs), providers, home: ours });
    } catch (e) {
      error = e;
    }
    expect(UmbelError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'UMBEL_HOME_MISMATCH', name: 'HomeMismatchError' });
    expect((error as Error).message).toContain(ours);
    expect((error as Error).message).toContain(theirs);
    expect((error as UmbelError).hint).toMatch(/createTmuxSubstrate|same home/);
    expect(errorExitCode(error)).toBe(2);
  });

  it('a substrate bound to no root leaves the home to settings and the environment', () => {
    const home = join(scratch, 'from-env');
    expect(createUmbel({ substrate: createMemorySubstrate(), providers, env: { UMBEL_HOME: home } }).home).toBe(home);
    expect(createUmbel({ substrate: createMemorySubstrate(), providers, home: join(scratch, 'given'), env: { UMBEL_HOME: home } }).home).toBe(
      join(scratch, 'given'),
    );
  });
});
