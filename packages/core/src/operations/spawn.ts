/**
 * spawn: claim the name atomically (a private claim directory holding the first meta.json, renamed
 * into place, so no reader ever sees a worker without its meta), build the provider's launch, hand
 * the environment to the host, wait for the ready prompt, record `ready`. Any failure unwinds
 * everything it made: session, provider files, state.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { realpath, rename, rm, stat } from 'node:fs/promises';
import { readStateFile } from '../engine/state-file.js';
import { isAbsolute, join, resolve as resolvePath } from 'node:path';
import { detectBilling, endpointOf, refuseApiBilling, refuseApiEnv } from './billing.js';
import type { EngineContext } from '../engine/context.js';
import { finalizeWorkerEnv, resolveWorkerEnv } from '../engine/env.js';
import { CwdMissingError, OptionUnsupportedError, SubstrateError, UmbelError, WorkerExistsError, WorkerVanishedError } from '../contract/errors.js';
import { asStateError, mkdirPrivate, writeFileAtomic } from '@umbel/provider';
import { hookCommandFor, installHookSink } from '../engine/hook-sink.js';
import { loadWorker } from '../ledger/ledger.js';
import { writeOwnEvent } from '../ledger/own-events.js';
import { sessionName, type WorkerPaths } from '../engine/paths.js';
import type { Provider, ProviderV1Launch, ProviderV1LaunchOptions } from '@umbel/provider';
import { guarded, guardedAsync } from '../engine/provider-guard.js';
import type { BillingGuard, SpawnOptionsParsed, WorkerMeta, WorkerStatus, WorktreeRequest } from '../contract/schemas.js';
import { createWorktree, planWorktree, removeWorktree, type WorktreePlan } from '../git/worktree.js';
import { reserveSpare, takeSpare } from '../git/spare.js';
import { DEFAULT_STARTUP_TIMEOUT_MS, awaitReady } from './startup.js';
import { sawAlive } from '../engine/alive.js';
import { FIRST_TURN, type FirstPrompt, firstTurn, planFirstPrompt, recordLaunchPrompt } from './first-prompt.js';
import { deriveStatus } from './status.js';
import type { SpawnContext } from '../contract/umbel.js';
import { withFleetSlot } from './fleet-limit.js';
import { currentOwner } from '../engine/process-owner.js';
import { requireSandbox } from '../sandbox/availability.js';
import { confineLaunch, wideningOf } from '../sandbox/launch.js';
import type { SandboxWidening } from '../sandbox/policy.js';

function anonymousName(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return `anon-${Array.from(randomBytes(6), (b) => alphabet[b % 36]).join('')}`;
}

/** Options the provider does not support are refused before any I/O. */
function checkCapabilities(provider: Provider, options: SpawnOptionsParsed): void {
  const caps = provider.capabilities;
  const id = provider.providerId;
  if (options.unattended && !caps.unattended) throw new OptionUnsupportedError(id, '--unattended');
  if (options.model !== undefined && caps.model !== true) throw new OptionUnsupportedError(id, '--model');
  if (options.allowedTools && !caps.allowedTools) throw new OptionUnsupportedError(id, '--allowed-tools');
  if (options.appendSystemPrompt !== undefined && !caps.appendSystemPrompt) throw new OptionUnsupportedError(id, '--append-system-prompt');
  if (options.permissionMode !== undefined && !caps.permissionModes.includes(options.permissionMode)) {
    const detail = caps.permissionModes.length ? `use one of ${caps.permissionModes.join(', ')}` : 'it has no permission modes';
    throw new OptionUnsupportedError(id, `--permission-mode ${options.permissionMode}`, detail);
  }
}

export async function realCwd(input: string | undefined): Promise<string> {
  const given = input ?? process.cwd();
  const abs = isAbsolute(given) ? given : resolvePath(process.cwd(), given);
  try {
    if ((await stat(abs)).isDirectory()) return await realpath(abs);
  } catch {
    // fall through
  }
  throw new CwdMissingError(abs);
}

/** Claim `workers/<name>` with its first meta.json in one rename. */
async function claim(ctx: EngineContext, wp: WorkerPaths, meta: WorkerMeta): Promise<void> {
  await mkdirPrivate(ctx.paths.workersDir);
  const temp = join(ctx.paths.workersDir, `.claim-${meta.name}-${randomBytes(4).toString('hex')}`);
  try {
    await mkdirPrivate(join(temp, 'events'));
    await writeFileAtomic(join(temp, 'meta.json'), `${JSON.stringify(meta, null, 2)}\n`);
    await rename(temp, wp.dir);
  } catch (error) {
    await rm(temp, { recursive: true, force: true }).catch(() => undefined);
    const code = (error as { code?: string }).code;
    if (code === 'EEXIST' || code === 'ENOTEMPTY' || code === 'EISDIR') throw new WorkerExistsError(meta.name);
    throw UmbelError.isInstance(error) ? error : asStateError(error, wp.dir);
  }
}

/** Write the launch's files; returns the ones removed with the worker (outside its dir) and all written. */
export async function writeLaunchFiles(launch: ProviderV1Launch, wp: WorkerPaths): Promise<{ written: string[]; outside: string[] }> {
  const written: string[] = [];
  const outside: string[] = [];
  for (const file of launch.files ?? []) {
    if (file.shared) {
      const same = await readStateFile(file.path).then(
        (text) => text === file.content,
        () => false,
      );
      if (!same) await writeFileAtomic(file.path, file.content, file.mode);
      continue;
    }
    await writeFileAtomic(file.path, file.content, file.mode);
    written.push(file.path);
    if (!file.path.startsWith(`${wp.dir}/`)) outside.push(file.path);
  }
  return { written, outside };
}

/** Everything decided before any I/O: the provider, its checks, the env, the cwd, the first meta. */
export interface SpawnPlan {
  readonly provider: Provider;
  readonly choices: Omit<ProviderV1LaunchOptions, 'hookCommand' | 'hookSinkPath' | 'workerDir' | 'sharedDir' | 'sessionId' | 'worker'>;
  readonly meta: WorkerMeta;
  readonly startupTimeout: number;
  readonly billingGuard: BillingGuard;
  /** `--sandbox`: the srt CLI that wraps the launch and the widenings of the default policy. */
  readonly sandbox?: { readonly srtCli: string; readonly widen: SandboxWidening };
}

/** The worktree `--worktree` asks for (read-only git calls; nothing is made yet). */
async function planWorktreeOf(ctx: EngineContext, name: string, cwd: string, request: WorktreeRequest | undefined): Promise<WorktreePlan | undefined> {
  if (request === undefined || request === false) return undefined;
  // A taken name is WorkerExistsError, not the branch its worktree left behind (the claim still decides races).
  if (
    await stat(ctx.paths.worker(name).dir).then(
      () => true,
      () => false,
    )
  )
    throw new WorkerExistsError(name);
  return planWorktree({ home: ctx.home, name, cwd, request: request === true ? {} : request, env: ctx.env });
}

/**
 * Make the worker's worktree (and its cwd there: an untracked subdirectory is not checked out):
 * from its repository's spare when one is ready (git/spare.ts), else checked out whole.
 */
async function makeWorktree(ctx: EngineContext, meta: WorkerMeta): Promise<void> {
  if (!meta.worktree) return;
  if (!(await takeSpare(ctx.home, meta.worktree, ctx.env))) await createWorktree(meta.worktree, ctx.env);
  await mkdirPrivate(meta.cwd);
}

/** After a worktree spawn: its repository's spare is made again off the caller's clock (the settings' way, else in the background here). */
async function fillReserve(ctx: EngineContext, meta: WorkerMeta): Promise<void> {
  if (!meta.worktree) return;
  const job = { repo: meta.worktree.repo, commit: meta.worktree.base };
  if (ctx.settings.reserveWorktree) await ctx.settings.reserveWorktree(job).catch(() => undefined);
  else void reserveSpare(ctx.home, job.repo, job.commit, ctx.env).catch(() => undefined);
}

/** Validate spawn options and resolve them (also what a pool claim matches on). No state is written. */
export async function plan(ctx: EngineContext, options: SpawnOptionsParsed, context: SpawnContext = {}): Promise<SpawnPlan> {
  const provider = ctx.providers.get(options.provider);
  checkCapabilities(provider, options);
  // What bills the API is never inherited, whatever a (hand-written) provider lists.
  const billsApi = new Set(provider.billing?.apiEnv ?? []);
  const inherit = provider.inheritEnv.filter((name) => !billsApi.has(name));
  const resolved = resolveWorkerEnv({ callerEnv: ctx.env, inherit, explicit: options.env });
  // Refused before anything is created: never a silently unconfined worker.
  const srtCli = options.sandbox ? requireSandbox(resolved) : undefined;
  // Inside umbel's sandbox the worker is confined: Claude's bypass mode as root may be told so (IS_SANDBOX=1).
  const env = srtCli ? { ...resolved, IS_SANDBOX: '1' } : resolved;
  const name = options.name ?? anonymousName();
  const given = await realCwd(options.cwd);
  const worktree = await planWorktreeOf(ctx, name, given, options.worktree);
  const cwd = worktree?.cwd ?? given;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const { model, permissionMode, allowedTools, appendSystemPrompt, unattended } = options;
  const choices = { cwd, model, permissionMode, allowedTools, appendSystemPrompt, unattended, env, callerEnv: ctx.env };
  guarded(provider, 'doValidate', () => provider.doValidate?.({ spawn: choices, isRoot }));
  refuseApiEnv(provider, env, options.billing, name);
  const startupTimeout = options.startupTimeout ?? DEFAULT_STARTUP_TIMEOUT_MS;
  const createdAt = new Date(ctx.now());
  const meta: WorkerMeta = {
    version: 1,
    name,
    provider: provider.providerId,
    cwd,
    ...(model ? { model } : {}),
    ...(permissionMode ? { permissionMode } : {}),
    ...(allowedTools ? { allowedTools } : {}),
    ...(appendSystemPrompt !== undefined ? { appendSystemPrompt } : {}),
    unattended,
    anonymous: options.name === undefined,
    createdAt: createdAt.toISOString(),
    substrateSession: sessionName(name),
    providerFiles: [],
    envNames: [],
    // the launch's own steps (files, hook sink) come on top of the ready wait
    readyBy: new Date(createdAt.getTime() + startupTimeout + 30_000).toISOString(),
    ...(worktree ? { worktree: worktree.record } : {}),
    ...(context.heldByCaller ? { owner: currentOwner() } : {}),
  };
  const sandbox = srtCli ? { srtCli, widen: wideningOf(options.sandbox) } : undefined;
  return { provider, choices, meta, startupTimeout, billingGuard: options.billing, ...(sandbox ? { sandbox } : {}) };
}

/** The conversation a revive resumes, and its check of the launch's meta before anything is recorded (it throws to refuse). */
export interface Resume {
  readonly sessionId: string;
  readonly check?: (meta: WorkerMeta) => void;
}

/** Build the provider's launch (resuming conversation `resume`, for revive) and write its files; the meta that records them. */
export async function prepareLaunch(
  ctx: EngineContext,
  p: SpawnPlan,
  written: string[],
  resume?: Resume,
  prompt?: string,
): Promise<{ launch: ProviderV1Launch; env: Record<string, string>; meta: WorkerMeta }> {
  const { provider, meta } = p;
  const wp = ctx.paths.worker(meta.name);
  await mkdirPrivate(wp.provider);
  await installHookSink(ctx.paths.hookSink);
  const sharedDir = ctx.paths.providerShared(provider.providerId);
  await mkdirPrivate(sharedDir);
  const launch = await guardedAsync(provider, 'doBuildLaunch', () =>
    provider.doBuildLaunch({
      ...p.choices,
      worker: meta.name,
      workerDir: wp.provider,
      sharedDir,
      sessionId: resume?.sessionId ?? randomUUID(),
      ...(resume ? { resume: { sessionId: resume.sessionId } } : {}),
      ...(prompt !== undefined ? { prompt } : {}),
      hookSinkPath: ctx.paths.hookSink,
      hookCommand: (kind, hookOptions) => hookCommandFor(ctx.paths.hookSink, kind, hookOptions?.stdout),
    }),
  );
  const files = await writeLaunchFiles(launch, wp);
  written.push(...files.written);
  let env = finalizeWorkerEnv(p.choices.env, launch.env, launch.unsetEnv, { UMBEL_EVENTS_DIR: wp.events, UMBEL_WORKER: meta.name });
  if (provider.doReconcileEnv) env = guarded(provider, 'doReconcileEnv', () => provider.doReconcileEnv?.(env) ?? env);
  const confined = p.sandbox
    ? await confineLaunch({ srtCli: p.sandbox.srtCli, paths: ctx.paths, worker: meta.name, provider, cwd: meta.cwd, env, widen: p.sandbox.widen }, launch.argv)
    : undefined;
  if (confined) env = { ...env, ...confined.env };
  const recorded: WorkerMeta = {
    ...meta,
    ...(confined ? { sandbox: confined.record } : {}),
    ...(launch.sessionId ? { sessionId: launch.sessionId } : {}),
    ...(launch.transcriptPath ? { transcriptPath: launch.transcriptPath } : {}),
    providerFiles: files.outside,
    envNames: Object.keys(env).sort(),
  };
  resume?.check?.(recorded);
  await writeFileAtomic(wp.meta, `${JSON.stringify(recorded, null, 2)}\n`);
  return { launch: confined ? { ...launch, argv: confined.argv } : launch, env, meta: recorded };
}

/** What a launch made, for the caller's unwind: the files it wrote, whether a session may be up. */
export interface LaunchState {
  readonly written: string[];
  launched: boolean;
}

/**
 * Launch the CLI of a claimed worker (resuming conversation `resume`: revive; starting on its first
 * prompt `first`, ./first-prompt.ts) and wait for its ready prompt; record `ready` with its billing
 * verdict. `state` tells the caller's unwind what to undo.
 */
export async function launchToReady(
  ctx: EngineContext,
  p: SpawnPlan,
  state: LaunchState,
  resume: Resume | undefined,
  signal: AbortSignal | undefined,
  first?: FirstPrompt,
): Promise<WorkerStatus> {
  const { name, substrateSession: session } = p.meta;
  const wp = ctx.paths.worker(name);
  await recordLaunchPrompt(wp.events, first);
  const { launch, env, meta } = await prepareLaunch(ctx, p, state.written, resume, first?.onLaunch);
  state.launched = true;
  // A session of this name already on the host (not this claim's) is refused by the launch itself.
  await ctx.substrate.launch({ session, cwd: meta.cwd, argv: launch.argv, env, exitRecordDir: wp.events }).catch((error: unknown) => {
    if (!SubstrateError.isSessionExists(error)) throw error;
    state.launched = false;
    throw new WorkerExistsError(name);
  });
  const target = { name, session, eventsDir: wp.events, provider: p.provider, ...(first?.onLaunch !== undefined ? { firstTurn: FIRST_TURN } : {}) };
  const screen = await awaitReady(ctx, target, p.startupTimeout, signal);
  const billing = detectBilling(p.provider, screen, meta.envNames, launch.billing);
  refuseApiBilling(p.provider, billing, p.billingGuard, name);
  const endpoint = endpointOf(p.provider, env, launch.endpoint);
  await writeOwnEvent(wp.events, 'ready', {
    at: new Date().toISOString(),
    billing: billing.billing,
    ...(billing.evidence ? { billingEvidence: billing.evidence } : {}),
    ...(endpoint ? { endpoint } : {}),
  });
  // startup just saw the ready screen, with no exit recorded: a send right after need not ask the host
  sawAlive(ctx, session);
  const status = await settle(ctx, name, meta);
  if (!first) return status;
  await firstTurn(ctx, name, first, signal);
  return status;
}

/** Start a worker and wait until its CLI is ready. */
export async function spawnWorker(ctx: EngineContext, options: SpawnOptionsParsed, context: SpawnContext = {}): Promise<WorkerStatus> {
  const planned = await plan(ctx, options, context);
  const first = planFirstPrompt(planned.provider, context.firstPrompt, planned.billingGuard);
  const p: SpawnPlan = { ...planned, meta: { ...planned.meta, spawnPid: process.pid } };
  const { name, substrateSession: session } = p.meta;
  const wp = ctx.paths.worker(name);
  await mkdirPrivate(ctx.home);
  await withFleetSlot(ctx, options.maxWorkers, context, () => claim(ctx, wp, p.meta));
  const state: LaunchState = { written: [], launched: false };
  let worktreeMade = false;
  try {
    await makeWorktree(ctx, p.meta);
    worktreeMade = p.meta.worktree !== undefined;
    const ready = await launchToReady(ctx, p, state, undefined, context.signal, first);
    await fillReserve(ctx, p.meta);
    return ready;
  } catch (error) {
    if (state.launched) await ctx.substrate.kill(session).catch(() => undefined);
    for (const path of state.written) await rm(path, { force: true }).catch(() => undefined);
    // A worker that never got ready did no work of the caller's: its worktree and branch go with it.
    if (worktreeMade && p.meta.worktree) await removeWorktree(p.meta.worktree, ctx.env, { deleteBranch: true }).catch(() => undefined);
    await rm(wp.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }).catch(() => undefined);
    throw UmbelError.isInstance(error) ? error : asStateError(error, wp.dir);
  }
}

/** Record what startup learned (session id, transcript) in meta, and report the ready worker. */
export async function settle(ctx: EngineContext, name: string, meta: WorkerMeta): Promise<WorkerStatus> {
  const view = loadWorker(ctx, name);
  const found = view?.transcript ?? {};
  let final = meta;
  if (found.path !== meta.transcriptPath || found.sessionId !== meta.sessionId) {
    final = { ...meta, ...(found.path ? { transcriptPath: found.path } : {}), ...(found.sessionId ? { sessionId: found.sessionId } : {}) };
    await writeFileAtomic(ctx.paths.worker(name).meta, `${JSON.stringify(final, null, 2)}\n`);
  }
  // Alive: startup just saw its ready screen (and would have seen an exit record).
  const fresh = loadWorker(ctx, name);
  if (!fresh) throw new WorkerVanishedError(name, 'while it was starting');
  return deriveStatus(fresh, { exists: true, dead: false }, ctx.now());
}
