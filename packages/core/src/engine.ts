/**
 * The engine's façade: `createUmbel(settings)` parses each input with its schema (one per concept,
 * shared with argv, MCP and YAML) and delegates to the module of the operation. No daemon: every
 * state is derived from the files under the state root and the substrate's answer when asked.
 */
import { workerActions } from './actions.js';
import { captureScreen } from './capture.js';
import { sendCommand } from './command.js';
import { createContext, type EngineContext } from './context.js';
import { PoolNotFoundError, usageFromZod, WorkerNotFoundError } from './errors.js';
import { runGuarded } from './guardrail.js';
import { pressKeys } from './keys.js';
import { workerDiff } from './diff.js';
import { killWorker } from './kill.js';
import { loadWorker } from './ledger.js';
import { workerLogs } from './logs.js';
import { sessionName } from './paths.js';
import { poolStatuses } from './pool-members.js';
import { refillPool } from './pool-refill.js';
import { claimWorker, releaseWorker, startPool, stopPools } from './pool.js';
import { pruneWorkers } from './prune.js';
import { readAnswer, turnMessages } from './read.js';
import {
  ActionsOptionsSchema,
  CaptureOptionsSchema,
  DiffOptionsSchema,
  KeysOptionsSchema,
  KillOptionsSchema,
  PoolClaimOptionsSchema,
  PoolRefillOptionsSchema,
  PoolRefSchema,
  PoolReleaseSchema,
  PoolStartOptionsSchema,
  PruneOptionsSchema,
  ReadOptionsSchema,
  SendOptionsSchema,
  SpawnOptionsSchema,
  WaitOptionsCheckedSchema,
  WorkerNameSchema,
} from './schemas.js';
import { sendPrompt } from './send.js';
import { spawnWorker } from './spawn.js';
import { listWorkers, statusOf } from './status.js';
import type { CallContext, Umbel, UmbelPools, UmbelSettings, WaitContext } from './umbel.js';
import { waitForTurn } from './wait.js';
import { waitUntil } from './wait-until.js';

export { DEFAULT_STARTUP_TIMEOUT_MS } from './startup.js';

type Schema<T> = {
  safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
};

function parse<T>(schema: Schema<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw usageFromZod(result.error, what);
  return result.data;
}

const nameOf = (name: unknown) => parse(WorkerNameSchema, name, 'worker name');

async function attachCommand(ctx: EngineContext, name: string) {
  const session = sessionName(name);
  if (!loadWorker(ctx, name) && !(await ctx.substrate.inspect(session)).exists) throw new WorkerNotFoundError(name);
  return ctx.substrate.attachCommand(session);
}

function pools(ctx: EngineContext): UmbelPools {
  const poolName = (name: unknown) => parse(PoolRefSchema, { name }, 'pool name').name;
  return {
    async start(input, context: CallContext = {}) {
      const record = await startPool(ctx, parse(PoolStartOptionsSchema, input, 'pool start options'), context.signal);
      const [status] = await poolStatuses(ctx, record.name);
      if (!status) throw new PoolNotFoundError(record.name); // stopped while it started
      return status;
    },
    status: async (name) => poolStatuses(ctx, poolName(name)),
    stop: async (name) => stopPools(ctx, poolName(name)),
    claim: async (input) => claimWorker(ctx, parse(PoolClaimOptionsSchema, input, 'pool claim options')),
    release: async (input) => releaseWorker(ctx, parse(PoolReleaseSchema, input, 'pool release')),
    refill: async (input, context: CallContext = {}) =>
      refillPool(ctx, parse(PoolRefillOptionsSchema, input, 'pool refill options'), context.signal ? { signal: context.signal } : {}),
  };
}

/** Create an engine. */
export function createUmbel(settings: UmbelSettings): Umbel {
  const ctx = createContext(settings);
  // async everywhere: bad input is a rejected promise like every other failure, never a synchronous throw
  const send: Umbel['send'] = async (input, context: CallContext = {}) => {
    const options = parse(SendOptionsSchema, input, 'send options');
    return options.command ? sendCommand(ctx, options, context) : sendPrompt(ctx, options, context);
  };
  return {
    home: ctx.home,
    providerIds: ctx.providers.ids,
    provider: (id) => ctx.providers.get(id),
    spawn: async (input, context) => spawnWorker(ctx, parse(SpawnOptionsSchema, input, 'spawn options'), context),
    send,
    keys: async (input) => pressKeys(ctx, parse(KeysOptionsSchema, input, 'keys options')),
    async wait(input, context: WaitContext = {}) {
      const options = parse(WaitOptionsCheckedSchema, input, 'wait options');
      if (options.until !== 'stop') return waitUntil(ctx, options, context);
      if (!options.check && !options.schema) return waitForTurn(ctx, options, context);
      return runGuarded(ctx, options, (name, prompt) => send({ name, prompt }, context), context);
    },
    read: async (input) => readAnswer(ctx, parse(ReadOptionsSchema, input, 'read options')),
    status: async (name) => statusOf(ctx, nameOf(name)),
    list: async () => listWorkers(ctx),
    kill: async (input) => killWorker(ctx, parse(KillOptionsSchema, input, 'kill options')),
    prune: async (input) => pruneWorkers(ctx, parse(PruneOptionsSchema, input ?? {}, 'prune options')),
    capture: async (input) => captureScreen(ctx, parse(CaptureOptionsSchema, input, 'capture options')),
    logs: async (name) => workerLogs(ctx, nameOf(name)),
    messages: async (name, turn) => turnMessages(ctx, nameOf(name), turn),
    actions: async (input) => workerActions(ctx, parse(ActionsOptionsSchema, input, 'actions options')),
    diff: async (input) => workerDiff(ctx, parse(DiffOptionsSchema, input, 'diff options')),
    attachCommand: async (name) => attachCommand(ctx, nameOf(name)),
    pool: pools(ctx),
  };
}
