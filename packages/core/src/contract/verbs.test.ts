/**
 * The verb table against the engine: every verb of `createUmbel`'s engine is declared in the table
 * (and nothing else is), and every verb has the one calling shape `verb(options, context?)` — a
 * verb of one worker takes its name inside its options, so a name that is no worker is
 * `WorkerNotFoundError`, never a usage error about a positional argument.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import type * as z from 'zod';
import { createUmbel } from '../engine/engine.js';
import { createMemorySubstrate, createMockProvider } from '../testing/index.js';
import { UmbelErrorCode } from './errors.js';
import type { Umbel, UmbelVerbs } from './umbel.js';
import { type VerbName, VERB_NAMES, VERBS, verbsOfRoute } from './verbs.js';

/** Members of the engine that are not verbs: an accessor, a fleet's own list, and the pools (their own table). */
const NOT_VERBS = ['home', 'providerIds', 'provider', 'listFleet', 'pool'];

/** What a verb of one worker needs besides the name. */
const REQUIRED: Partial<Record<string, Record<string, unknown>>> = { send: { prompt: 'hi' }, keys: { keys: ['Enter'] } };

let home: string;
let engine: Umbel;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-verbs-'));
  engine = createUmbel({ substrate: createMemorySubstrate(), providers: [createMockProvider()], home, env: { PATH: process.env.PATH } });
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('the verb table', () => {
  it('declares every verb of the engine, and only those', () => {
    const members = Object.keys(engine).filter((key) => !NOT_VERBS.includes(key));
    expect([...members].sort()).toEqual([...VERB_NAMES].sort());
    for (const verb of VERB_NAMES) expect(typeof engine[verb], verb).toBe('function');
  });

  it('types every verb of the engine from the table (its options in, its result out): nothing declared twice', () => {
    expectTypeOf<Pick<Umbel, VerbName>>().toEqualTypeOf<UmbelVerbs>();
    expectTypeOf<Parameters<Umbel['status']>[0]>().toEqualTypeOf<{ name: string }>();
    expectTypeOf<ReturnType<Umbel['events']>>().toEqualTypeOf<AsyncIterable<z.output<typeof VERBS.events.result>>>();
  });

  it('gives every verb an options schema that takes its options object', () => {
    for (const verb of verbsOfRoute('worker')) {
      const parsed = VERBS[verb].options.safeParse({ name: 'w', ...REQUIRED[verb] });
      expect(parsed.success, verb).toBe(true);
    }
  });

  it.each(verbsOfRoute('worker'))('%s(options) names its worker inside its options', async (verb) => {
    const call = engine[verb] as (options: unknown) => Promise<unknown>;
    await expect(call({ name: 'nobody', ...REQUIRED[verb] })).rejects.toMatchObject({ code: UmbelErrorCode.WorkerNotFound });
  });

  it('routes every verb somewhere, and declares a tool or why there is none', () => {
    for (const verb of VERB_NAMES) {
      const spec = VERBS[verb];
      expect(['worker', 'host', 'every', 'here'], verb).toContain(spec.route);
      expect('tool' in spec.mcp ? spec.mcp.tool : spec.mcp.none, verb).toMatch(/\S/);
    }
  });
});
