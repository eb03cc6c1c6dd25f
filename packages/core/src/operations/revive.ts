/**
 * revive: start a dead or killed (not purged) worker's CLI again, in the same cwd (its worktree)
 * with the same provider, options and env names (values resolved again from the caller, as at
 * spawn; never stored), resuming the CLI's own conversation — only where the provider declares how
 * (`capabilities.resume`), never as a silent fresh conversation. The ledger gets the turn that was
 * running when it died closed as `dead` (an `ended` record) and a `revived` record as the boundary
 * between the two processes; turn numbers go on.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { asStateError, type Provider, writeFileAtomic } from '@umbel/provider';
import type { EngineContext } from '../engine/context.js';
import { BASE_ENV_ALLOWLIST, resolveWorkerEnv, UMBEL_WORKER_ENV } from '../engine/env.js';
import { EnvUnresolvedError, ResumeUnsupportedError, ReviveRefusedError, UmbelError } from '../contract/errors.js';
import type { ReviveOptionsParsed, WorkerMeta, WorkerStatus } from '../contract/schemas.js';
import type { CallContext } from '../contract/umbel.js';
import type { UsableView } from '../ledger/ledger-types.js';
import { usableWorker } from '../ledger/ledger.js';
import { writeOwnEvent } from '../ledger/own-events.js';
import { deathFacts } from '../ledger/death.js';
import { withFleetSlot } from './fleet-limit.js';
import { requireSandbox } from '../sandbox/availability.js';
import { type LaunchState, launchToReady, realCwd, type SpawnPlan } from './spawn.js';
import { DEFAULT_STARTUP_TIMEOUT_MS } from './startup.js';
import { deriveStatus } from './status.js';

const DEAD_STATES = new Set(['dead', 'exited', 'killed']);

/**
 * The worker env again, from the caller: the base allowlist and the provider's names as at spawn,
 * and every other name the worker had (an explicit `--env`) by name.
 */
function reviveEnv(ctx: EngineContext, provider: Provider, meta: WorkerMeta): Record<string, string> {
  const billsApi = new Set(provider.billing?.apiEnv ?? []);
  const inherit = provider.inheritEnv.filter((name) => !billsApi.has(name));
  const implicit = new Set<string>([...BASE_ENV_ALLOWLIST, ...inherit, ...UMBEL_WORKER_ENV]);
  const explicit = Object.fromEntries(
    meta.envNames.filter((name) => !implicit.has(name) && ctx.env[name] !== undefined).map((name) => [name, { fromEnv: name }]),
  );
  return resolveWorkerEnv({ callerEnv: ctx.env, inherit, explicit });
}

/** A name the worker had that its new launch lacks: the caller has no value for it now (and the launch sets none). */
function missingEnv(before: WorkerMeta, after: WorkerMeta): string | undefined {
  return before.envNames.find((name) => !after.envNames.includes(name));
}

/** Refuse what cannot be revived; the conversation to resume and how the process died. */
async function check(ctx: EngineContext, view: UsableView): Promise<{ sessionId: string; cause: string }> {
  const { name, provider } = view;
  if (!provider.capabilities.resume) throw new ResumeUnsupportedError(name, provider.providerId, provider.displayName);
  const pane = await ctx.substrate.inspect(view.session);
  const { state, alive } = deriveStatus(view, pane, ctx.now());
  if (!DEAD_STATES.has(state)) throw new ReviveRefusedError(name, `it is ${state}, not dead or killed`);
  if (alive) throw new ReviveRefusedError(name, 'it is being killed: its session has not ended yet');
  const sessionId = view.transcript.sessionId ?? view.meta.sessionId;
  if (!sessionId) throw new ReviveRefusedError(name, 'its CLI never recorded a conversation (no session id in its ledger)');
  // a CLI writes its conversation at the first prompt: without one there is nothing to resume
  const path = view.transcript.path;
  if (!view.turns.some((t) => !t.notSubmitted) || (path !== undefined && !existsSync(path))) {
    throw new ReviveRefusedError(
      name,
      `it has no conversation to resume (${path === undefined ? 'it never took a prompt' : `no ${path}`}); spawn a new worker instead`,
    );
  }
  return { sessionId, cause: deathFacts(view, pane).cause };
}

/** Close the turns the dead process left open as `dead`, then mark the boundary; under the fleet slot. */
async function markRevived(view: UsableView, meta: WorkerMeta, { sessionId, cause }: { sessionId: string; cause: string }): Promise<void> {
  for (const turn of view.turns) {
    if (turn.end || turn.notSubmitted) continue;
    const message = `worker '${view.name}' died before completing turn ${turn.turn} (${cause}); it was revived after`;
    await writeOwnEvent(view.paths.events, 'ended', { turn: turn.turn, reason: 'dead', message });
  }
  await writeFileAtomic(view.paths.meta, `${JSON.stringify(meta, null, 2)}\n`);
  await writeOwnEvent(view.paths.events, 'revived', { sessionId, at: new Date().toISOString() });
}

/** Revive a dead or killed worker, resuming its conversation; the ready worker's status. */
export async function reviveWorker(ctx: EngineContext, options: ReviveOptionsParsed, context: CallContext = {}): Promise<WorkerStatus> {
  const view = usableWorker(ctx, options.name);
  const conversation = await check(ctx, view);
  const cwd = await realCwd(view.meta.cwd);
  const resolved = reviveEnv(ctx, view.provider, view.meta);
  // a confined worker comes back confined, with the same widenings, or not at all (never silently unconfined)
  const confined = view.meta.sandbox;
  const srtCli = confined ? requireSandbox(resolved) : undefined;
  const env = srtCli ? { ...resolved, IS_SANDBOX: '1' } : resolved;
  const { model, permissionMode, allowedTools, appendSystemPrompt, unattended } = view.meta;
  const startupTimeout = options.startupTimeout ?? DEFAULT_STARTUP_TIMEOUT_MS;
  const meta: WorkerMeta = {
    ...view.meta,
    readyBy: new Date(ctx.now() + startupTimeout + 30_000).toISOString(),
    spawnPid: process.pid,
  };
  const p: SpawnPlan = {
    provider: view.provider,
    choices: { cwd, model, permissionMode, allowedTools, appendSystemPrompt, unattended, env, callerEnv: ctx.env },
    meta,
    startupTimeout,
    billingGuard: 'any',
    ...(srtCli && confined ? { sandbox: { srtCli, widen: confined.widened } } : {}),
  };
  // the dead pane (kept for evidence) goes: the new process takes the session's name
  await ctx.substrate.kill(view.session).catch(() => undefined);
  await withFleetSlot(ctx, options.maxWorkers, context, () => markRevived(view, meta, conversation));
  const state: LaunchState = { written: [], launched: false };
  try {
    // before the meta records the new env names: a refused revive keeps the worker's
    const envCheck = (launched: WorkerMeta) => {
      const missing = missingEnv(view.meta, launched);
      if (missing) throw new EnvUnresolvedError(missing);
    };
    return await launchToReady(ctx, p, state, { sessionId: conversation.sessionId, check: envCheck }, context.signal);
  } catch (error) {
    if (state.launched) await ctx.substrate.kill(view.session).catch(() => undefined);
    for (const path of state.written) await rm(path, { force: true }).catch(() => undefined);
    // dead again (not starting until readyBy): the failure is this life's death record
    await writeOwnEvent(view.paths.events, 'dead', { by: 'revive', at: new Date().toISOString() }).catch(() => undefined);
    throw UmbelError.isInstance(error) ? error : asStateError(error, view.paths.dir);
  }
}
