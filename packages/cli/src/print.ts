/**
 * `umbel -p`: a drop-in for `claude -p` that runs the prompt through the interactive TUI.
 * Same output formats (text, json, stream-json) and exit behaviour as `claude -p`; umbel's own
 * outcomes map to their exit codes (timeout 124, dead 125, needs-input 126, interrupts 129/130/141/143).
 * The anonymous worker is removed on every path: the answer, an error, a timeout, any interrupt; a
 * second signal removes it at once and exits. Once the answer is out, its removal and the pool's
 * refill are handed to a detached process and `-p` exits (./print-teardown.ts); after an interrupt,
 * and for a worktree or remote worker, `-p` removes it itself.
 */
import { randomUUID } from 'node:crypto';
import { BillingRefusedError, FIRST_TURN, type Outcome, type Umbel, UmbelError, UsageError, type WaitOptions, type WorkerStatus } from '@umbel/core';
import { type Args, spawnFromArgs, str, turnWaitFromArgs } from './args.js';
import { type CliIo, interruptExitCode } from './io.js';
import { printJson } from './output.js';
import { claimForPrint, type PrintClaim } from './pool.js';
import { errorResultObject, isApiFailure, printExitCode, resultObject } from './print-result.js';
import { type FinishJob, handOver, handOverWithLock, purgeWorker } from './print-teardown.js';
import { describeOutcome } from './verbs.js';

export { printExitCode, resultObject } from './print-result.js';

const FORMATS = ['text', 'json', 'stream-json'] as const;
type Format = (typeof FORMATS)[number];

/** How long the teardown after a second signal may take before `-p` exits anyway. */
export const HURRY_MS = 10_000;

/** The worker of one run and its removal: one kill per worker, shared by every path that asks. */
interface Hold {
  readonly name: string | undefined;
  readonly anonymous: boolean;
  /** `remove`: how this worker is removed (a pool worker is released), instead of a kill. */
  take(name: string, anonymous: boolean, remove?: () => Promise<void>): void;
  remove(): Promise<void>;
}

/**
 * A worktree worker (`-p --worktree`) whose worktree holds work is killed but not purged: its
 * worktree, branch and state stay, and stderr says where (work is never thrown away by default).
 */
async function keepWorktree(engine: Umbel, io: CliIo, worker: string, error: unknown): Promise<boolean> {
  if (!(UmbelError.isInstance(error) && error.code === 'UMBEL_WORKTREE_HAS_WORK')) return false;
  const result = await engine.kill({ name: worker });
  const wt = result.worktree;
  if (wt)
    io.stderr.write(`umbel: kept the worktree ${wt.path} (branch ${wt.branch}): it holds work; remove it with: umbel kill ${worker} --discard-worktree\n`);
  return true;
}

function hold(engine: Umbel, io: CliIo): Hold {
  let name: string | undefined;
  let anonymous = false;
  let removal: Promise<void> | undefined;
  let remover: (() => Promise<void>) | undefined;
  const kill = async (worker: string): Promise<void> => {
    await purgeWorker(engine, worker, (error) => keepWorktree(engine, io, worker, error));
  };
  return {
    get name() {
      return name;
    },
    get anonymous() {
      return anonymous;
    },
    take(worker, anon, remove) {
      name = worker;
      anonymous = anon;
      remover = remove;
    },
    remove() {
      if (!anonymous || name === undefined) return Promise.resolve();
      removal ??= remover ? remover().catch(() => kill(name as string)) : kill(name);
      return removal;
    },
  };
}

interface PrintRun {
  readonly args: Args;
  readonly io: CliIo;
  readonly engine: Umbel;
  readonly signal: AbortSignal;
  readonly format: Format;
  readonly prompt: string;
  /** The prompt is all from -p's own command line (no stdin): it may go on the CLI's (SpawnContext.firstPrompt). */
  readonly promptFromArgv: boolean;
  /** The turn the spawn started on the prompt, when it did (a cold call: no send after it). */
  firstTurn?: number;
  readonly wait: Omit<WaitOptions, 'name' | 'turn'>;
  readonly hold: Hold;
  /** The pool this call matched (a warm worker, or a cold start because the pool was empty). */
  pooled?: PrintClaim;
}

/** Run print mode. Returns the exit code. `hurry` fires on a second signal. */
export async function runPrint(
  args: Args,
  io: CliIo,
  engine: Umbel | (() => Umbel | Promise<Umbel>),
  signal: AbortSignal,
  hurry?: AbortSignal,
): Promise<number> {
  const format = (str(args.outputFormat) ?? 'text') as Format;
  if (!FORMATS.includes(format)) throw new UsageError(`--output-format must be one of ${FORMATS.join(', ')} (got '${format}')`);
  if (format === 'stream-json' && args.verbose !== true) {
    io.stderr.write('Error: When using --print, --output-format=stream-json requires --verbose\n');
    return 1;
  }
  const started = Date.now();
  let run: PrintRun;
  try {
    run = await prepare(args, io, engine, signal, format);
  } catch (error) {
    // A run that fails before it has an outcome still prints its result object (docs/cli.md).
    if (format !== 'text') printJson(io.stdout, errorResultObject(error, { durationMs: Date.now() - started, provider: str(args.provider) }));
    throw error;
  }
  const main = printRun(run);
  if (!hurry) return main;
  // A second signal: remove the worker now (or, while spawn is still cleaning up after the first,
  // let it finish), within HURRY_MS, then exit.
  const hurried = new Promise<number>((resolve) => {
    const go = () => {
      const work = run.hold.name !== undefined ? run.hold.remove() : main.then(noop, noop);
      void within(work, HURRY_MS).then(() => resolve(interruptExitCode(signal)));
    };
    if (hurry.aborted) go();
    else hurry.addEventListener('abort', go, { once: true });
  });
  return Promise.race([main, hurried]);
}

function noop(): void {}

/** The run's options checked, its prompt read and its engine made (`engine` may be made only now). */
async function prepare(args: Args, io: CliIo, engine: Umbel | (() => Umbel | Promise<Umbel>), signal: AbortSignal, format: Format): Promise<PrintRun> {
  if (args.name !== undefined && args.resume !== undefined) throw new UsageError('use --name or --resume, not both');
  if (args.pool !== undefined && (args.name !== undefined || args.resume !== undefined)) {
    throw new UsageError('--pool takes a fresh worker from a pool; --name and --resume keep one', { hint: 'use one or the other' });
  }
  const wait = turnWaitFromArgs(args);
  const { prompt, fromArgv } = await promptOf(args, io);
  const made = typeof engine === 'function' ? await engine() : engine;
  return { args, io, engine: made, signal, format, prompt, promptFromArgv: fromArgv, wait, hold: hold(made, io) };
}

async function within(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work.then(noop, noop), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** The prompt: the argument, piped stdin, or both (`"<arg>\n<stdin>"`), as claude -p takes it; whether it is the argument alone. */
async function promptOf(args: Args, io: CliIo): Promise<{ prompt: string; fromArgv: boolean }> {
  const arg = str(args.prompt);
  const piped = await io.readStdin();
  const stdinText = piped && piped.length > 0 ? piped : undefined;
  const prompt = arg !== undefined && stdinText !== undefined ? `${arg}\n${stdinText}` : (arg ?? stdinText);
  if (prompt === undefined || prompt === '') {
    throw new UsageError('Input must be provided either through stdin or as a prompt argument when using --print', {
      hint: 'umbel -p "PROMPT", or echo PROMPT | umbel -p',
    });
  }
  return { prompt, fromArgv: stdinText === undefined };
}

async function printRun(run: PrintRun): Promise<number> {
  const { io, signal } = run;
  const started = Date.now();
  let handedOver = false;
  try {
    if (signal.aborted) return interruptExitCode(signal);
    await acquire(run);
    await guardBilling(run);
    if (signal.aborted) return interruptExitCode(signal);
    const { outcome, status } = await turn(run, run.hold.name as string);
    const code = outcome.reason === 'aborted' ? interruptExitCode(signal) : printExitCode(outcome);
    // Handed over before the answer goes out: once it is printed, -p only exits.
    handedOver = await handOverTeardown(run);
    report(run, outcome, { durationMs: Date.now() - started, sessionId: status?.sessionId, exitCode: code });
    return code;
  } catch (error) {
    // Whatever failed after an interrupt failed because of it: the interrupt is the story.
    if (signal.aborted || (UmbelError.isInstance(error) && error.code === 'UMBEL_ABORTED')) return interruptExitCode(signal);
    if (run.format !== 'text') {
      printJson(io.stdout, errorResultObject(error, { durationMs: Date.now() - started, worker: run.hold.name, provider: str(run.args.provider) }));
    }
    throw error;
  } finally {
    if (!handedOver) await finish(run);
  }
}

/**
 * The worker's removal and the pool's refill handed to a detached process (true), unless they are
 * done here: after an interrupt (a second signal hurries it), for a worktree worker (whose kept
 * work stderr names) or a remote one, with nothing to do, or when no detached process could start.
 */
async function handOverTeardown(run: PrintRun): Promise<boolean> {
  const { args, hold, io, pooled } = run;
  const worker = hold.anonymous ? hold.name : undefined;
  const here = run.signal.aborted || (worker !== undefined && (args.worktree === true || str(args.host) !== undefined));
  const claimed = worker !== undefined && pooled?.claim.worker === worker ? { pool: pooled.claim.pool, claimedBy: process.pid } : {};
  const job: FinishJob = { ...(worker !== undefined ? { worker, ...claimed } : {}), ...(pooled?.refill ? { refill: pooled.refill } : {}) };
  return !here && (job.worker !== undefined || job.refill !== undefined) && handOverWithLock(io, run.engine, job);
}

/** After the answer, what was not handed over ({@link handOverTeardown}) is done here, then `-p` exits. */
async function finish(run: PrintRun): Promise<void> {
  if (await handOverTeardown(run)) return;
  // The refill is started first, so the replacement spawns while this worker is removed.
  if (run.pooled?.refill) await handOver(run.io, { refill: run.pooled.refill });
  await run.hold.remove();
}

/**
 * `--billing subscription` on a worker -p did not spawn itself (`--resume`, a live `--name`d one, a
 * warm pool worker): refused before the prompt when it bills the API, or when its billing is unknown and
 * its provider does not declare a subscription-only CLI. A new worker was checked by spawn.
 */
async function guardBilling(run: PrintRun): Promise<void> {
  if (str(run.args.billing) !== 'subscription' || run.hold.name === undefined) return;
  const status = await run.engine.status({ name: run.hold.name });
  if (status.billing === 'subscription') return;
  // unknown passes only for a CLI that bills nothing but a subscription (its provider says so)
  if (status.billing === 'unknown' && run.engine.provider(status.provider).billing?.subscriptionOnly === true) return;
  throw new BillingRefusedError(status.name, status.billingEvidence, run.hold.anonymous, status.billing);
}

/** Take the worker: `--resume`'s, a live `--name`d one, a warm pool worker, or a new one (anonymous without --name). */
async function acquire(run: PrintRun): Promise<void> {
  const { args, io, engine, signal, hold } = run;
  const resume = str(args.resume);
  const named = str(args.name);
  if (resume !== undefined) return hold.take((await engine.status({ name: resume })).name, false);
  if (named !== undefined) {
    try {
      const existing = await engine.status({ name: named });
      if (!existing.alive) throw new UsageError(`worker '${named}' exists but is ${existing.state}; kill it with --purge or pick another name`);
      // --sandbox never reuses an unconfined worker.
      if (args.sandbox === true && !existing.sandbox)
        throw new UsageError(`worker '${named}' exists and is not confined (--sandbox)`, { hint: 'pick another name' });
      return hold.take(named, false);
    } catch (error) {
      if (!(UmbelError.isInstance(error) && error.code === 'UMBEL_WORKER_NOT_FOUND')) throw error;
    }
  }
  // A pool's workers are local: a --host call always spawns there. --worktree and --sandbox claim only a member made so.
  if (named === undefined && str(args.host) === undefined) {
    run.pooled = await claimForPrint(args, io, engine);
    const { worker, pool } = run.pooled?.claim ?? {};
    if (worker && pool) return hold.take(worker, true, () => engine.pool.release({ pool, worker }));
  }
  // An anonymous worker lives for this process: prune removes it if this process is killed before it can.
  // Its prompt, when it was on -p's own command line, goes with the spawn: a CLI that takes one on
  // its command line starts on it as it comes up (no wait for its ready screen, no paste).
  const first = named === undefined && run.promptFromArgv && str(args.host) === undefined ? run.prompt : undefined;
  const status = await engine.spawn(
    { ...spawnFromArgs(args, io.cwd), name: named, startupTimeout: str(args.startupTimeout) },
    { signal, heldByCaller: named === undefined, ...(first !== undefined ? { firstPrompt: first } : {}) },
  );
  hold.take(status.name, named === undefined);
  if (first !== undefined) run.firstTurn = FIRST_TURN;
}

/** Send the prompt and wait for its turn; stream-json prints the init line and messages live. */
async function turn(run: PrintRun, name: string): Promise<{ outcome: Outcome; status?: WorkerStatus }> {
  const { io, engine, signal, format } = run;
  // A worker -p removes afterwards is never diffed: no git snapshot before its Enter.
  const { turn } =
    run.firstTurn !== undefined ? { turn: run.firstTurn } : await engine.send({ name, prompt: run.prompt }, { signal, snapshot: !run.hold.anonymous });
  // Read the status after the prompt was accepted: some CLIs (codex) report their session id
  // only in the first prompt's hook payload. Only stream-json prints it before the answer; the
  // other formats take the session id from the outcome.
  const status = format === 'stream-json' ? await engine.status({ name }) : undefined;
  if (status) printJson(io.stdout, initLine(status, str(run.args.permissionMode)));
  const outcome = await engine.wait(
    { name, turn, ...run.wait },
    {
      signal,
      onProgress: status
        ? (p) => {
            for (const m of p.messages ?? [])
              printJson(io.stdout, {
                type: m.type,
                message: m.message,
                parent_tool_use_id: null,
                session_id: status.sessionId ?? '',
                uuid: m.uuid ?? randomUUID(),
              });
          }
        : undefined,
    },
  );
  return { outcome, status };
}

function initLine(status: WorkerStatus, permissionMode: string | undefined): Record<string, unknown> {
  return {
    type: 'system',
    subtype: 'init',
    cwd: status.cwd,
    session_id: status.sessionId ?? '',
    tools: [],
    mcp_servers: [],
    model: status.model ?? 'default',
    permissionMode: permissionMode ?? 'default',
    apiKeySource: 'none',
    output_style: 'default',
    uuid: randomUUID(),
    worker: status.name,
    provider: status.provider,
  };
}

/** Print the outcome; for an anonymous worker, say that it is removed (not that it keeps running). */
function report(run: PrintRun, outcome: Outcome, extra: { durationMs: number; sessionId?: string; exitCode: number }): void {
  const { io, format } = run;
  const removed = run.hold.anonymous;
  const shown: Outcome =
    removed && outcome.reason === 'aborted' ? { ...outcome, message: `cancelled; umbel -p removes its worker ${outcome.worker}` } : outcome;
  if (format === 'text') {
    if (shown.reason === 'completed') io.stdout.write(`${shown.result ?? ''}\n`);
    else if (isApiFailure(shown)) io.stdout.write(`${shown.message ?? 'API Error'}\n`);
    if (shown.reason !== 'completed' && shown.reason !== 'provider-error') io.stderr.write(describeOutcome(shown, { removed }));
    return;
  }
  printJson(io.stdout, resultObject(shown, extra));
  if (shown.reason !== 'completed' && !isApiFailure(shown)) io.stderr.write(describeOutcome(shown, { removed }));
}
