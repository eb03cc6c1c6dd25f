/**
 * The engine's façade: `createUmbel(settings)` parses each input with its verb's options schema in
 * the verb table (one per concept, shared with argv, MCP and YAML) and delegates to the module of
 * the operation. No daemon: every
 * state is derived from the files under the state root and the substrate's answer when asked.
 */
import { workerActions } from '../operations/actions.js';
import { captureScreen } from '../operations/capture.js';
import { sendCommand } from '../operations/command.js';
import { createContext, type EngineContext } from './context.js';
import { HostUnknownError, PoolNotFoundError, usageFromZod, WorkerNotFoundError } from '../contract/errors.js';
import { runGuarded } from '../wait/guardrail.js';
import { pressKeys } from '../operations/keys.js';
import { workerDiff } from '../operations/diff.js';
import { DoctorReportSchema, runDoctor, type ScratchEngineFactory } from '../doctor/index.js';
import { killWorker } from '../operations/kill.js';
import { reviveWorker } from '../operations/revive.js';
import { hookEventsOf, loadWorker } from '../ledger/ledger.js';
import { workerLogs } from '../operations/logs.js';
import { sessionName } from './paths.js';
import { poolStatuses } from '../pool/pool-members.js';
import { refillPool, reserveRefill } from '../pool/pool-refill.js';
import { claimWorker, releaseWorker, startPool, stopPools } from '../pool/pool.js';
import { pruneWorkers } from '../operations/prune.js';
import { readAnswer, turnMessages } from '../operations/read.js';
import {
  PoolClaimOptionsSchema,
  PoolNamedSchema,
  PoolRefillOptionsSchema,
  PoolRefSchema,
  PoolReleaseSchema,
  PoolStartOptionsSchema,
  WaitOptionsCheckedSchema,
} from '../contract/schemas.js';
import { VERBS } from '../contract/verbs.js';
import { sendPrompt } from '../operations/send.js';
import { spawnWorker } from '../operations/spawn.js';
import { listWorkers, statusOf } from '../operations/status.js';
import type { CallContext, RefillContext, SendContext, Umbel, UmbelPools, UmbelSettings, WaitContext } from '../contract/umbel.js';
import { waitForTurn } from '../wait/wait.js';
import { waitUntil } from '../wait/wait-until.js';
import { streamEvents } from '../operations/events.js';

export { DEFAULT_STARTUP_TIMEOUT_MS } from '../operations/startup.js';

type Schema<T> = {
  safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
};

function parse<T>(schema: Schema<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw usageFromZod(result.error, what);
  return result.data;
}

async function attachCommand(ctx: EngineContext, name: string) {
  const session = sessionName(name);
  if (!loadWorker(ctx, name) && !(await ctx.substrate.inspect(session)).exists) throw new WorkerNotFoundError(name);
  return ctx.substrate.attachCommand(session);
}

function pools(ctx: EngineContext): UmbelPools {
  const poolName = (input: unknown) => parse(PoolRefSchema, input ?? {}, 'pool').name;
  return {
    async start(input, context: CallContext = {}) {
      const record = await startPool(ctx, parse(PoolStartOptionsSchema, input, 'pool start options'), context.signal);
      const [status] = await poolStatuses(ctx, record.name);
      if (!status) throw new PoolNotFoundError(record.name); // stopped while it started
      return status;
    },
    status: async (input) => poolStatuses(ctx, poolName(input)),
    stop: async (input) => stopPools(ctx, poolName(input)),
    claim: async (input) => claimWorker(ctx, parse(PoolClaimOptionsSchema, input, 'pool claim options')),
    release: async (input) => releaseWorker(ctx, parse(PoolReleaseSchema, input, 'pool release')),
    refill: async (input, context: RefillContext = {}) =>
      refillPool(ctx, parse(PoolRefillOptionsSchema, input, 'pool refill options'), {
        ...(context.signal ? { signal: context.signal } : {}),
        ...(context.handedOver ? { handedOver: true } : {}),
      }),
    reserveRefill: async (input) => reserveRefill(ctx, parse(PoolNamedSchema, input, 'pool').name),
  };
}

/** The event stream; bad input is an error on the first step, like every other failure of it. */
async function* events(ctx: EngineContext, input: unknown, context: CallContext) {
  yield* streamEvents(ctx, parse(VERBS.events.options, input ?? {}, 'events options'), context.signal);
}

/** Create an engine. */
export function createUmbel(settings: UmbelSettings): Umbel {
  return facade(createContext(settings), settings);
}

/**
 * A scratch engine for doctor: one provider on its own host and state root, and what its ledger
 * holds of a worker's hook events (each read by the provider there, behind its guard).
 */
function scratchEngine(parent: EngineContext, settings: UmbelSettings): ScratchEngineFactory {
  return (substrate, home, provider) => {
    const own: UmbelSettings = {
      substrate,
      home,
      providers: [provider],
      env: parent.env,
      ...(settings.stopSettleMs !== undefined ? { stopSettleMs: settings.stopSettleMs } : {}),
    };
    const ctx = createContext(own);
    return { umbel: facade(ctx, own), hookEvents: (name, kind) => hookEventsOf(ctx, name, kind) };
  };
}

/** The engine's verbs over one context. */
function facade(ctx: EngineContext, settings: UmbelSettings): Umbel {
  // async everywhere: bad input is a rejected promise like every other failure, never a synchronous throw
  const send: Umbel['send'] = async (input, context: SendContext = {}) => {
    const options = parse(VERBS.send.options, input, 'send options');
    return options.command ? sendCommand(ctx, options, context) : sendPrompt(ctx, options, context);
  };
  return {
    home: ctx.home,
    providerIds: ctx.providers.ids,
    provider: (id) => ctx.providers.get(id),
    async spawn(input, context) {
      const options = parse(VERBS.spawn.options, input, 'spawn options');
      // Hosts are the fleet's (@umbel/remote's createFleet); this engine runs workers here only.
      if (options.host !== undefined) throw new HostUnknownError(options.host, []);
      return spawnWorker(ctx, options, context);
    },
    send,
    keys: async (input) => pressKeys(ctx, parse(VERBS.keys.options, input, 'keys options')),
    async wait(input, context: WaitContext = {}) {
      // the table's wait options, with their cross-field checks (until file needs file, …)
      const options = parse(WaitOptionsCheckedSchema, input, 'wait options');
      // every outcome carries its worker's billing and plan usage, from the view its wait decided on
      if (options.until !== 'stop') return waitUntil(ctx, options, context);
      if (!options.check && !options.schema) return waitForTurn(ctx, options, context);
      return runGuarded(ctx, options, (name, prompt) => send({ name, prompt }, context), context);
    },
    events: (input, context: CallContext = {}) => events(ctx, input, context),
    read: async (input) => readAnswer(ctx, parse(VERBS.read.options, input, 'read options')),
    status: async (input) => statusOf(ctx, parse(VERBS.status.options, input, 'status options').name),
    list: async (input) => {
      parse(VERBS.list.options, input ?? {}, 'list options');
      return listWorkers(ctx);
    },
    revive: async (input, context: CallContext = {}) => reviveWorker(ctx, parse(VERBS.revive.options, input, 'revive options'), context),
    kill: async (input) => killWorker(ctx, parse(VERBS.kill.options, input, 'kill options')),
    prune: async (input) => pruneWorkers(ctx, parse(VERBS.prune.options, input ?? {}, 'prune options')),
    capture: async (input) => captureScreen(ctx, parse(VERBS.capture.options, input, 'capture options')),
    logs: async (input) => workerLogs(ctx, parse(VERBS.logs.options, input, 'logs options').name),
    async messages(input) {
      const { name, turn } = parse(VERBS.messages.options, input, 'messages options');
      return turnMessages(ctx, name, turn);
    },
    actions: async (input) => workerActions(ctx, parse(VERBS.actions.options, input, 'actions options')),
    diff: async (input) => workerDiff(ctx, parse(VERBS.diff.options, input, 'diff options')),
    attachCommand: async (input) => attachCommand(ctx, parse(VERBS.attachCommand.options, input, 'attach options').name),
    pool: pools(ctx),
    async doctor(input, context: CallContext = {}) {
      const options = parse(VERBS.doctor.options, input ?? {}, 'doctor options');
      const deps = {
        providers: ctx.providers.ids.map((id) => ctx.providers.get(id)),
        unloaded: ctx.providers.unloaded,
        callerEnv: ctx.env,
        engine: scratchEngine(ctx, settings),
        ...(settings.scratch ? { scratch: settings.scratch } : {}),
      };
      return DoctorReportSchema.parse(await runDoctor(deps, options, context.signal));
    },
  };
}
