/**
 * wait with `until: file | pattern` (upstream's conditions): the wait ends when a file exists
 * (relative to the worker cwd) or a regular expression matches the worker's screen — outcome
 * `file` / `pattern` (exit 0: the condition was met). The turn is watched as in every wait, so
 * needs-input, dead, provider-error (and the account outcomes), idle, unknown, timeout and aborted still end it; a turn that
 * completes does not (the condition is what was asked for: a background job may still write the
 * file), so after it the wait keeps watching the condition and the worker's liveness until the
 * deadline. The screen is watched for the pattern only — never read for an answer.
 */
import { stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { EngineContext } from '../engine/context.js';
import { deathFacts } from '../ledger/death.js';
import { loadWorker, usableWorker } from '../ledger/ledger.js';
import { outcomeOf } from '../contract/outcome.js';
import type { Outcome, WaitOptionsParsed } from '../contract/schemas.js';
import type { WaitContext } from '../contract/umbel.js';
import { formatMs, tailLines } from '../engine/util.js';
import { waitForTurn } from './wait.js';

/** How often the file is looked for. */
const FILE_EVERY_MS = 200;
/** How often the screen is captured for the pattern (upstream: 200 lines every 500 ms). */
const SCREEN_EVERY_MS = 500;
const SCREEN_LINES = 200;
/** How often liveness is asked after the turn completed. */
const LIVENESS_EVERY_MS = 500;

type Met = { readonly match: string; readonly message: string; readonly paneTail?: string };
type Probe = () => Promise<Met | undefined>;

/** The probe of the condition: one look, the match when it is met. */
function probeOf(ctx: EngineContext, options: WaitOptionsParsed, cwd: string, session: string): { probe: Probe; everyMs: number } {
  if (options.until === 'file') {
    const path = isAbsolute(options.file as string) ? (options.file as string) : resolve(cwd, options.file as string);
    return {
      everyMs: FILE_EVERY_MS,
      probe: async () =>
        (await stat(path).then(
          () => true,
          () => false,
        ))
          ? { match: path, message: `${path} exists` }
          : undefined,
    };
  }
  const regex = new RegExp(options.pattern as string, 'm');
  return {
    everyMs: SCREEN_EVERY_MS,
    probe: async () => {
      const screen = await ctx.substrate.capture(session, { lines: SCREEN_LINES }).catch(() => undefined);
      const found = screen === undefined ? null : regex.exec(screen);
      if (!found || screen === undefined) return undefined;
      const lineStart = screen.lastIndexOf('\n', found.index) + 1;
      const lineEnd = screen.indexOf('\n', found.index);
      const line = screen.slice(lineStart, lineEnd === -1 ? undefined : lineEnd).trim();
      return { match: line, message: `the screen matched /${options.pattern}/`, paneTail: tailLines(screen, 30) };
    },
  };
}

/** Keep probing until met or stopped. */
function watchCondition(probe: Probe, everyMs: number): { met: Promise<Met>; stop(): void } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const met = new Promise<Met>((resolveMet) => {
    const look = async () => {
      if (stopped) return;
      const found = await probe().catch(() => undefined);
      if (stopped) return;
      if (found) return resolveMet(found);
      timer = setTimeout(look, everyMs);
    };
    void look();
  });
  return {
    met,
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Wait for turn `options.turn` of a worker until a file appears or the screen matches a pattern. */
export async function waitUntil(ctx: EngineContext, options: WaitOptionsParsed, context: WaitContext = {}): Promise<Outcome> {
  const started = ctx.now();
  const view = usableWorker(ctx, options.name);
  const { probe, everyMs } = probeOf(ctx, options, view.meta.cwd, view.session);
  const inner = new AbortController();
  const onAbort = () => inner.abort(context.signal?.reason);
  if (context.signal?.aborted) inner.abort(context.signal.reason);
  context.signal?.addEventListener('abort', onAbort, { once: true });
  const watch = watchCondition(probe, everyMs);
  const turnWait = waitForTurn(
    ctx,
    { name: options.name, turn: options.turn, timeout: options.timeout, idleTimeout: options.idleTimeout },
    {
      signal: inner.signal,
      ...(context.onProgress ? { onProgress: context.onProgress } : {}),
    },
  );
  const reached = (base: Outcome, met: Met, extra: Partial<Outcome> = {}): Outcome =>
    outcomeOf(options.until === 'file' ? 'file' : 'pattern', {
      ...base,
      durationMs: ctx.now() - started,
      match: met.match,
      message: met.message,
      ...(met.paneTail ? { paneTail: met.paneTail } : {}),
      ...extra,
    });
  try {
    const first = await Promise.race([turnWait.then((outcome) => ({ outcome })), watch.met.then((met) => ({ met }))]);
    if ('met' in first) {
      inner.abort('condition met');
      const base = await turnWait;
      const { result: _r, message: _m, paneTail: _p, ...rest } = base;
      return reached(rest as Outcome, first.met);
    }
    const outcome = first.outcome;
    if (outcome.reason === 'aborted' && context.signal?.aborted) return outcome;
    const now = await probe().catch(() => undefined);
    if (now) return reached(outcome, now, outcome.result !== undefined ? { result: outcome.result } : {});
    if (outcome.reason !== 'completed') return outcome;
    return await afterCompletion(ctx, options, { outcome, started, watch: watch.met, view, reached, signal: context.signal });
  } finally {
    watch.stop();
    context.signal?.removeEventListener('abort', onAbort);
  }
}

/** The turn completed without the condition: keep watching it (and the worker's life) until the deadline. */
async function afterCompletion(
  ctx: EngineContext,
  options: WaitOptionsParsed,
  run: {
    outcome: Outcome;
    started: number;
    watch: Promise<Met>;
    view: ReturnType<typeof usableWorker>;
    reached: (base: Outcome, met: Met, extra?: Partial<Outcome>) => Outcome;
    signal?: AbortSignal;
  },
): Promise<Outcome> {
  const { outcome } = run;
  const completedAt = ctx.now();
  const what = options.until === 'file' ? `${options.file} did not appear` : `the screen did not match /${options.pattern}/`;
  const end = (reason: 'timeout' | 'idle' | 'aborted' | 'dead', message: string, extra: Partial<Outcome> = {}): Outcome => {
    const { result: _r, usage: _u, numTurns: _n, message: _m, ...rest } = outcome;
    return outcomeOf(reason, { ...rest, durationMs: ctx.now() - run.started, message, ...extra });
  };
  let met: Met | undefined;
  void run.watch.then((m) => {
    met = m;
  });
  for (;;) {
    if (met) return run.reached(outcome, met, outcome.result !== undefined ? { result: outcome.result } : {});
    const now = ctx.now();
    if (run.signal?.aborted) return end('aborted', 'the wait was cancelled; the worker keeps running');
    const since = formatMs(now - completedAt);
    if (options.idleTimeout !== undefined && now - completedAt >= options.idleTimeout)
      return end('idle', `turn ${outcome.turn} completed ${since} ago and the worker waits for input; ${what}`);
    if (now >= run.started + options.timeout)
      return end('timeout', `${what} within ${formatMs(options.timeout)} (turn ${outcome.turn} completed ${since} ago)`);
    const pane = await ctx.substrate.inspect(run.view.session).catch(() => undefined);
    if (pane && (!pane.exists || pane.dead)) {
      const facts = deathFacts(loadWorker(ctx, run.view.name) ?? run.view, pane);
      return end('dead', `worker '${run.view.name}' ended after turn ${outcome.turn} (${facts.cause}); ${what}`, {
        exit: { ...(facts.status !== undefined ? { status: facts.status } : {}), ...(facts.signal ? { signal: facts.signal } : {}) },
      });
    }
    await sleep(Math.min(LIVENESS_EVERY_MS, Math.max(1, run.started + options.timeout - now)));
  }
}
