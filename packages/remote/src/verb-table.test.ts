/**
 * The verb table (@umbel/core's VERBS) against the fleet and the rpc server: every verb the table
 * routes is routed by the fleet as the table says (`worker`: on the worker's host, by its record;
 * `host`: on the host its options name; `every`: here and on the hosts; `here`: never a request),
 * and every verb the table serves over the rpc is an RPC op the server answers by calling that verb
 * of its engine. A verb added to the table but not wired fails here.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RPC_VERBS, statePaths, type Umbel, VERB_NAMES, type VerbName, VERBS } from '@umbel/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFleet } from './fleet.js';
import { writeRecord } from './records.js';
import { serveRpc } from './serve.js';
import type { Transport } from './ssh-transport.js';
import { RPC_OPS, RPC_VERSION, type RpcRequest } from './wire.js';

/** Options of each verb for a worker `name` (the spy engine parses nothing). */
function optionsOf(verb: VerbName, name: string): Record<string, unknown> {
  const extra: Partial<Record<VerbName, Record<string, unknown>>> = {
    spawn: { provider: 'mock', cwd: '/tmp', host: 'gpu' },
    send: { prompt: 'hi' },
    keys: { keys: ['Enter'] },
  };
  if (verb === 'list' || verb === 'events' || verb === 'prune' || verb === 'doctor') return {};
  return { name, ...extra[verb] };
}

const STATUS = {
  name: 'w',
  provider: 'mock',
  state: 'ready',
  alive: true,
  cwd: '/tmp',
  createdAt: '2026-01-01T00:00:00.000Z',
  turn: 0,
  completedTurn: 0,
  billing: 'unknown',
};

/** What an engine (or a host) answers to a verb. */
function answerOf(verb: string): unknown {
  if (verb === 'status' || verb === 'spawn' || verb === 'revive') return STATUS;
  if (verb === 'list') return [];
  if (verb === 'prune') return { removed: [], kept: 0 };
  if (verb === 'events') return { events: [], more: false };
  if (verb === 'wait') return { worker: 'w', provider: 'mock', turn: 1, reason: 'completed', exitCode: 0, durationMs: 1 };
  if (verb === 'kill') return { worker: 'w', killed: true, purged: false };
  if (verb === 'attachCommand') return { file: 'tmux', args: [], env: {} };
  return { verb };
}

/** An engine whose every verb records its call and answers with {@link answerOf}. */
function spyEngine(home: string, calls: { verb: string; options: unknown }[]): Umbel {
  const verbs = Object.fromEntries(
    VERB_NAMES.map((verb) => {
      if (verb === 'events') {
        return [
          verb,
          async function* (options: unknown) {
            calls.push({ verb, options });
            yield* [];
          },
        ];
      }
      return [
        verb,
        async (options: unknown) => {
          calls.push({ verb, options });
          return answerOf(verb);
        },
      ];
    }),
  );
  return { home, providerIds: ['mock'], provider: () => ({}) as never, pool: {} as never, ...verbs } as unknown as Umbel;
}

let home: string;
let calls: { verb: string; options: unknown }[];
let requests: RpcRequest[];
let fleet: Umbel;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-verb-table-'));
  calls = [];
  requests = [];
  const transport: Transport = async (_host, request) => {
    requests.push(request);
    return answerOf(request.op);
  };
  fleet = createFleet({ local: spyEngine(home, calls), hosts: { gpu: { ssh: 'gpu.example' } }, env: { PATH: process.env.PATH }, transport });
  await writeRecord(home, { version: 1, name: 'far', host: 'gpu', provider: 'mock', cwd: '/tmp', createdAt: STATUS.createdAt, anonymous: false });
  await mkdir(statePaths(home).worker('near').dir, { recursive: true });
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

async function run(engine: Umbel, verb: VerbName, options: Record<string, unknown>): Promise<unknown> {
  const method = engine[verb] as (options: unknown) => unknown;
  const result = method.call(engine, options);
  if (verb === 'events') {
    for await (const _ of result as AsyncIterable<unknown>);
    return undefined;
  }
  return result;
}

describe('the fleet routes every verb as the table says', () => {
  it.each(VERB_NAMES)('%s', async (verb) => {
    const { route, rpc } = VERBS[verb];
    // spawn: a new worker on the host; every other verb: the worker recorded there
    const options = optionsOf(verb, verb === 'spawn' ? 'fresh' : 'far');
    await run(fleet, verb, options);
    const sent = requests.filter((r) => r.op === verb);
    if (route === 'here' || !rpc) expect(sent).toEqual([]);
    else expect(sent.length, `${verb} sent to the host`).toBeGreaterThan(0);
    if (route === 'worker' || route === 'host') {
      // of a worker on a host: never asked here
      expect(calls.filter((c) => c.verb === verb)).toEqual([]);
      if (rpc) expect(sent[0]?.options).toMatchObject(verb === 'spawn' ? { name: 'fresh' } : options);
    } else {
      expect(calls.map((c) => c.verb)).toContain(verb);
    }
  });

  it.each(VERB_NAMES.filter((verb) => VERBS[verb].route === 'worker'))('%s of a local worker runs here', async (verb) => {
    const options = optionsOf(verb, 'near');
    await run(fleet, verb, options);
    expect(calls).toEqual([{ verb, options }]);
    expect(requests).toEqual([]);
  });
});

describe('the rpc serves every verb the table serves', () => {
  it('has one op per served verb, and hello', () => {
    expect([...RPC_OPS]).toEqual(['hello', ...RPC_VERBS]);
  });

  it.each(RPC_VERBS)('%s', async (verb) => {
    const options = optionsOf(verb, 'w');
    const response = await serveRpc(spyEngine(home, calls), JSON.stringify({ v: RPC_VERSION, op: verb, options }), { version: 'test' });
    expect(response).toMatchObject({ ok: true });
    const served = calls.filter((c) => c.verb === verb);
    expect(served.length).toBeGreaterThan(0);
    expect(served[0]?.options).toMatchObject(options);
  });
});
