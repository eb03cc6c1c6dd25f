/**
 * wait: the I/O shell around {@link decideWait}. It wakes on the worker's events dir and its
 * transcript (never on a poll of the screen), re-reads the ledger, asks the decision what next,
 * and carries out what it says: return an outcome, record a turn's end, capture evidence. A
 * liveness monitor runs beside it; a hard deadline holds even when the host stops answering.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { msOf } from '../engine/clock.js';
import { guarded } from '../engine/provider-guard.js';
import type { EngineContext } from '../engine/context.js';
import { deathFacts } from '../ledger/death.js';
import { TurnNotFoundError, TurnNotSubmittedError, WorkerVanishedError } from '../contract/errors.js';
import { loadWorker, quotaAt, usableWorker } from '../ledger/ledger.js';
import type { TurnView, UsableView } from '../ledger/ledger-types.js';
import { startMonitor, type Monitor } from './monitor.js';
import { parseOwnEvent, writeOwnEvent } from '../ledger/own-events.js';
import { billingFields } from '../operations/status.js';
import type { ProviderV1Message, ProviderV1Quota, ProviderV1TurnRead } from '@umbel/provider';
import { outcomeOf } from '../contract/outcome.js';
import type { Outcome, OutcomeReason, Quota, UnfinishedOutcome, WaitOptionsParsed } from '../contract/schemas.js';
import type { PaneState } from '../contract/substrate.js';
import { readMessages, readTurn, type TurnRead } from '../ledger/turn-read.js';
import type { WaitContext } from '../contract/umbel.js';
import { outcomeUsage } from '../ledger/usage.js';
import { formatMs, lastNonBlankLines, longTimeout } from '../engine/util.js';
import { decideWait, type WaitDecision } from './wait-decision.js';
import { watchDir, type DirWatcher } from './watch.js';

const HARD_DEADLINE_GRACE_MS = 2000;

/** How the worker bills and its plan usage, from the wait's own last view (and what it recorded itself), never read again. */
function ledgerFacts(state: WaitState): Pick<Outcome, 'billing' | 'billingEvidence' | 'quota'> {
  const { billing, billingEvidence } = billingFields(state.view);
  const quota = state.quota ?? state.view.quota;
  return { billing, ...(billingEvidence ? { billingEvidence } : {}), ...(quota ? { quota } : {}) };
}

/** Options of one wait (the guardrail fields are ignored here). */
export type TurnWaitOptions = Pick<WaitOptionsParsed, 'name' | 'turn' | 'timeout' | 'idleTimeout'>;

/** The turn a wait is for: the one asked, else the latest sent that is a model turn. */
function pickTurn(view: UsableView, asked: number | undefined): TurnView {
  const latest = view.turns.reduce((max, t) => Math.max(max, t.turn), 0);
  const n = asked ?? latestModelTurn(view.turns) ?? latest;
  const turn = view.turns.find((t) => t.turn === n);
  if (!turn) throw new TurnNotFoundError(view.name, asked ?? 0, latest);
  if (turn.notSubmitted) throw new TurnNotSubmittedError(view.name, n, turn.notSubmitted.message ?? turn.notSubmitted.reason);
  return turn;
}

/** The latest turn that is not a CLI command which opened no model turn (those have nothing to wait for). */
function latestModelTurn(turns: readonly TurnView[]): number | undefined {
  for (let i = turns.length - 1; i >= 0; i--) if (turns[i]?.notSubmitted?.reason !== 'command') return turns[i]?.turn;
  return undefined;
}

/** The state one wait keeps between looks. */
interface WaitState {
  /** The last view looked at: the outcome's billing and plan usage are its. */
  view: UsableView;
  /** The plan usage this wait recorded for the turn (newer than the view's). */
  quota?: Quota;
  transcriptPath?: string;
  sessionId?: string;
  stopSeenAt?: number;
  inputSeenAt?: number;
  lastChangeAt: number;
  fingerprint: string;
  emitted: number;
  activity?: string;
}

/** Fields of an outcome beside its reason (and the exit code the reason gives). */
type OutcomeExtra = Partial<Omit<UnfinishedOutcome, 'reason' | 'exitCode'>>;

/** Builds the outcome of one wait: a completed one cannot be built without its answer. */
interface OutcomeBuilder {
  (reason: 'completed', extra: OutcomeExtra & { result: string }): Outcome;
  (reason: Exclude<OutcomeReason, 'completed'>, extra?: OutcomeExtra): Outcome;
}

/** Wait for one turn of a worker to end. Returns an outcome; throws only for bad input or vanished state. */
export async function waitForTurn(ctx: EngineContext, options: TurnWaitOptions, context: WaitContext = {}): Promise<Outcome> {
  const started = ctx.now();
  const first = usableWorker(ctx, options.name);
  const turnNo = pickTurn(first, options.turn).turn;
  const state: WaitState = { view: first, lastChangeAt: started, fingerprint: '', emitted: 0, ...first.transcript };
  const outcome: OutcomeBuilder = (reason: OutcomeReason, extra: OutcomeExtra = {}) =>
    outcomeOf(reason, {
      worker: first.name,
      provider: first.meta.provider,
      turn: turnNo,
      durationMs: ctx.now() - started,
      ...(state.sessionId ? { sessionId: state.sessionId } : {}),
      ...(state.transcriptPath ? { transcriptPath: state.transcriptPath } : {}),
      ...extra,
      ...ledgerFacts(state),
    });

  const watcher = await watchDir(first.paths.events);
  const monitor = startMonitor({
    substrate: ctx.substrate,
    session: first.session,
    provider: first.provider,
    watchScreen: options.idleTimeout !== undefined,
    wake: () => watcher.poke(),
  });
  const stops: (() => void)[] = [];
  const race = [
    new Promise<Outcome>((resolve) => {
      stops.push(
        longTimeout(() => {
          const screen = monitor.screen();
          resolve(
            outcome('timeout', {
              message: `no answer within ${formatMs(options.timeout)} (the terminal host stopped answering)`,
              ...(screen ? { paneTail: lastNonBlankLines(screen, 30) } : {}),
            }),
          );
        }, options.timeout + HARD_DEADLINE_GRACE_MS),
      );
    }),
    new Promise<Outcome>((resolve) => {
      const signal = context.signal;
      if (!signal) return;
      const onAbort = () => resolve(outcome('aborted', { message: 'the wait was cancelled; the worker keeps running' }));
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      stops.push(() => signal.removeEventListener('abort', onAbort));
    }),
  ];
  let finished = false;
  try {
    const loop = runLoop(ctx, { options, context, started, turnNo, state, watcher, monitor, outcome, finished: () => finished });
    loop.catch(() => undefined); // a loop that fails after a deadline or a cancel won the race is moot
    return await Promise.race([loop, ...race]);
  } finally {
    finished = true;
    for (const stop of stops) stop();
    monitor.stop();
    await watcher.close();
  }
}

interface LoopDeps {
  readonly options: TurnWaitOptions;
  readonly context: WaitContext;
  readonly started: number;
  readonly turnNo: number;
  readonly state: WaitState;
  readonly watcher: DirWatcher;
  readonly monitor: Monitor;
  readonly outcome: OutcomeBuilder;
  readonly finished: () => boolean;
}

async function runLoop(ctx: EngineContext, deps: LoopDeps): Promise<Outcome> {
  const { options, state, watcher, monitor } = deps;
  const deadline = deps.started + options.timeout;
  for (;;) {
    if (deps.finished()) return deps.outcome('aborted', { message: 'superseded' });
    const finding = monitor.finding(); // read before the events: a turn may end as its CLI exits
    const view = reload(ctx, state.view);
    state.view = view;
    const turn = pickTurn(view, deps.turnNo);
    state.transcriptPath = view.transcript.path ?? state.transcriptPath;
    state.sessionId = view.transcript.sessionId ?? state.sessionId;
    if (state.transcriptPath) watcher.add(state.transcriptPath);
    const transcript = await readTurn(view, turn, state.transcriptPath);
    const { read } = transcript;
    track(deps, view, turn, transcript);
    let screen: string | undefined;
    for (;;) {
      const now = ctx.now();
      const decision = decideWait({
        view,
        turn,
        read,
        now,
        deadline,
        timeoutMs: options.timeout,
        ...(options.idleTimeout !== undefined ? { idleTimeoutMs: options.idleTimeout } : {}),
        lastChangeAt: Math.max(state.lastChangeAt, monitor.screenChangedAt()),
        screenSeenAt: monitor.screenSeenAt(),
        lastStateChangeAt: state.lastChangeAt,
        ...(state.stopSeenAt !== undefined ? { stopSeenAt: state.stopSeenAt } : {}),
        ...(state.inputSeenAt !== undefined ? { inputSeenAt: state.inputSeenAt } : {}),
        stopSettleMs: ctx.stopSettleMs,
        ...(finding ? { finding } : {}),
        ...(screen !== undefined ? { screen } : {}),
      });
      if (decision.kind === 'need-screen') {
        screen = await captureOr(ctx, view.session, monitor.screen(), 30);
        continue;
      }
      const done = await carryOut(ctx, deps, view, turn, decision, screen);
      if (done) return done;
      if (decision.kind === 'hold' && decision.mark === 'stop') state.stopSeenAt ??= now;
      if (decision.kind === 'hold' && decision.mark === 'input') state.inputSeenAt ??= now;
      await watcher.next(decision.kind === 'hold' || decision.kind === 'sleep' ? decision.ms : 50);
      break;
    }
  }
}

/** The ledger again (each event file is read once per process); vanished state is an error of its own. */
function reload(ctx: EngineContext, previous: UsableView): UsableView {
  const view = loadWorker(ctx, previous.name);
  // (a removal in progress shows the directory without its meta.json for a moment)
  if (!view || view.corrupt?.reason === 'meta.json is missing') throw new WorkerVanishedError(previous.name, 'while waiting for its turn');
  return view.meta && view.provider ? (view as UsableView) : usableWorker(ctx, previous.name);
}

/** Progress for the caller and the activity fingerprint for the idle timeout. */
function track(deps: LoopDeps, view: UsableView, turn: TurnView, transcript: TurnRead): void {
  const { state, context } = deps;
  const { read, options: readOptions } = transcript;
  const fingerprint = `${view.events.length}:${transcript.size}:${backgroundBytes(view, state.transcriptPath, state.sessionId)}`;
  if (fingerprint !== state.fingerprint) {
    // The first look dates the last change from the files themselves (a turn may have ended long ago).
    const filesChangedAt = Math.max(view.lastEventAt !== undefined ? msOf(view.lastEventAt) : 0, transcript.mtimeMs ?? 0);
    state.lastChangeAt = state.fingerprint === '' && filesChangedAt > 0 ? Math.min(Date.now(), filesChangedAt) : Date.now();
    state.fingerprint = fingerprint;
  }
  if (!context.onProgress) return;
  const latest = turn.activity[turn.activity.length - 1];
  const activity = (read.status === 'running' ? read.activity : undefined) ?? latest?.info.activity;
  let fresh: readonly ProviderV1Message[] = [];
  const all = readMessages(view, readOptions);
  if (all.length > state.emitted) {
    fresh = all.slice(state.emitted);
    state.emitted = all.length;
  }
  if (fresh.length || activity !== state.activity) {
    context.onProgress({ worker: view.name, turn: turn.turn, elapsedMs: Date.now() - deps.started, ...(activity ? { activity } : {}), messages: fresh });
  }
  state.activity = activity;
}

/** The bytes of the files in the provider's activity dirs (Claude's subagent transcripts): their growth is activity. */
function backgroundBytes(view: UsableView, transcriptPath: string | undefined, sessionId: string | undefined): number {
  const provider = view.provider;
  if (!transcriptPath || !provider.doFindActivityDirs) return 0;
  let total = 0;
  for (const dir of guarded(provider, 'doFindActivityDirs', () => provider.doFindActivityDirs?.(transcriptPath, sessionId) ?? [])) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue; // none (yet)
    }
    for (const name of names) {
      try {
        total += statSync(join(dir, name)).size;
      } catch {
        // removed meanwhile
      }
    }
  }
  return total;
}

async function captureOr(ctx: EngineContext, session: string, fallback: string, lines: number): Promise<string> {
  return ctx.substrate.capture(session, { lines }).catch(() => fallback);
}

/**
 * The background work the turn's stop record listed — else what the transcript records as running at
 * the turn's end (Codex's background terminals) — when some of it was still running then (`completed.background`).
 */
function stopBackground(turn: TurnView, read?: Extract<ProviderV1TurnRead, { status: 'completed' }>): Pick<Outcome, 'background'> {
  const listed = (turn.end?.kind === 'stop' ? turn.end.info.background : undefined) ?? read?.background;
  if (!listed?.some((task) => task.running)) return {};
  return { background: listed.map(({ kind, id, running }) => ({ kind, id, running })) };
}

/** Do what the decision says; the outcome when it is one. */
async function carryOut(
  ctx: EngineContext,
  deps: LoopDeps,
  view: UsableView,
  turn: TurnView,
  decision: WaitDecision,
  screen: string | undefined,
): Promise<Outcome | undefined> {
  const ended = async (reason: string) => {
    if (!turn.end) await writeOwnEvent(view.paths.events, 'ended', { turn: turn.turn, reason }).catch(() => undefined);
  };
  switch (decision.kind) {
    case 'completed': {
      await ended('completed');
      deps.state.quota = await recordQuota(view, turn, decision.read.quota);
      const r = decision.read;
      const usage = outcomeUsage(r);
      return deps.outcome('completed', {
        result: r.answer,
        ...(usage ? { usage } : {}),
        ...(r.numTurns !== undefined ? { numTurns: r.numTurns } : {}),
        ...(r.sessionId ? { sessionId: r.sessionId } : {}),
        ...(r.model ? { model: r.model } : {}),
        ...(r.stopReason ? { stopReason: r.stopReason } : {}),
        ...(decision.message ? { message: decision.message } : {}),
        ...stopBackground(turn, r),
      });
    }
    case 'completed-from-stop':
      return deps.outcome('completed', { result: decision.answer, message: decision.message, ...stopBackground(turn) });
    case 'outcome': {
      if (decision.cancel) await cancelRetrying(ctx, deps, view, turn);
      if (decision.recordEnded) await ended(decision.recordEnded);
      deps.state.quota = await recordQuota(view, turn, decision.quota);
      const evidence = decision.withScreen ? (screen ?? (await captureOr(ctx, view.session, deps.monitor.screen(), 30))) : undefined;
      const hostError = decision.reason === 'timeout' ? deps.monitor.hostError() : undefined;
      const message =
        hostError && decision.fields.message
          ? `${decision.fields.message}; the terminal host did not answer: ${(hostError as Error).message}`
          : decision.fields.message;
      return deps.outcome(decision.reason, {
        ...decision.fields,
        ...(message ? { message } : {}),
        ...(evidence ? { paneTail: lastNonBlankLines(evidence, 30) } : {}),
      });
    }
    case 'dead':
      return deadOutcome(ctx, deps, view, turn, decision.pane);
    case 'died':
      return deps.outcome('dead', { message: decision.message });
    default:
      return undefined;
  }
}

/**
 * Keep the plan usage a turn's transcript recorded as a `quota` event, so status shows it without
 * reading transcripts. Once per turn, and never for a turn older than one already recorded: the
 * ledger's newest reading must be the newest turn's. Returns the reading as the ledger will hold it.
 */
async function recordQuota(view: UsableView, turn: TurnView, quota: ProviderV1Quota | undefined): Promise<Quota | undefined> {
  if (!quota || (!quota.fiveHour && !quota.sevenDay)) return undefined;
  if (view.events.some((e) => e.own?.kind === 'quota' && e.own.data.turn >= turn.turn)) return undefined;
  const data = { turn: turn.turn, ...quota };
  const parsed = parseOwnEvent('quota', data);
  if (!('event' in parsed) || parsed.event.kind !== 'quota') return undefined; // (the ledger would not take it either)
  const at = await writeOwnEvent(view.paths.events, 'quota', data).catch(() => undefined);
  return at === undefined ? undefined : quotaAt(parsed.event.data, at);
}

/** How long a cancelled turn may take to end by its CLI's own hook before umbel records it ended. */
const CANCEL_SETTLE_MS = 10_000;

/**
 * End a turn its CLI keeps retrying (a failed read that says `retrying`) with the provider's own
 * cancel keys, then wait for the CLI to end it (its stop hook), so that end is not taken for the next
 * turn's; record the end only when none came. The keys are logged like `umbel keys`.
 */
async function cancelRetrying(ctx: EngineContext, deps: LoopDeps, view: UsableView, turn: TurnView): Promise<void> {
  const keys = view.provider.input?.cancelKeys ?? [];
  if (keys.length > 0) {
    await writeOwnEvent(view.paths.events, 'keys', { keys: [...keys] }).catch(() => undefined);
    await ctx.substrate.sendKeys(view.session, keys).catch(() => undefined);
  }
  const until = ctx.now() + (keys.length > 0 ? CANCEL_SETTLE_MS : 0);
  for (;;) {
    if (pickTurn(reload(ctx, view), turn.turn).end) return;
    if (ctx.now() >= until) break;
    await deps.watcher.next(100);
  }
  await writeOwnEvent(view.paths.events, 'ended', { turn: turn.turn, reason: 'failed' }).catch(() => undefined);
}

async function deadOutcome(ctx: EngineContext, deps: LoopDeps, view: UsableView, turn: TurnView, pane: PaneState): Promise<Outcome> {
  const now = reload(ctx, view); // the death records the CLI's end may just have written
  deps.state.view = now;
  const facts = deathFacts(now, pane);
  const screen = pane.exists ? await captureOr(ctx, view.session, deps.monitor.screen(), 30) : deps.monitor.screen();
  if (!now.death.dead) {
    await writeOwnEvent(view.paths.events, 'dead', {
      by: 'wait',
      at: new Date().toISOString(),
      ...(facts.status !== undefined ? { status: facts.status } : {}),
      ...(facts.signal ? { signal: facts.signal } : {}),
      ...(screen ? { paneTail: lastNonBlankLines(screen, 40) } : {}),
    }).catch(() => undefined);
  }
  return deps.outcome('dead', {
    message: facts.byKill
      ? `worker '${view.name}' was killed before completing turn ${turn.turn}`
      : `worker '${view.name}' died before completing turn ${turn.turn} (${facts.cause})`,
    exit: { ...(facts.status !== undefined ? { status: facts.status } : {}), ...(facts.signal ? { signal: facts.signal } : {}) },
    ...(screen ? { paneTail: lastNonBlankLines(screen, 30) } : {}),
  });
}
