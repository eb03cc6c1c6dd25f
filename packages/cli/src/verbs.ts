/** The supervisor verbs: spawn, send, wait, keys, status, ls, read, actions, diff, kill, revive, prune, attach, capture, logs, events. */
import { spawnSync } from 'node:child_process';
import { formatMs, type Outcome, type Umbel, UsageError, waitMany, waitManyExitCode, type WorkerStatus } from '@umbel/core';
import { type Args, maxWorkersFromArgs, num, signedNum, spawnFromArgs, str, turnOrAll, turnWaitFromArgs } from './args.js';
import { actionsText, diffText } from './evidence.js';
import { type CliIo, interruptExitCode } from './io.js';
import { eventLine, logLine, printJson, statusTable, unreachableHosts } from './output.js';

export { type Args, envFromArgs } from './args.js';

/**
 * Human text of an outcome that is not `completed`, for stderr. `removed`: the worker does not
 * outlive the call (`umbel -p` without --name), so no hint to answer it or inspect it later.
 */
export function describeOutcome(outcome: Outcome, options: { removed?: boolean } = {}): string {
  const head: Record<string, string> = {
    'needs-input': `worker '${outcome.worker}' is waiting for input`,
    'provider-error': `worker '${outcome.worker}' hit a provider error`,
    'rate-limited': `worker '${outcome.worker}' hit its account's rate or usage limit`,
    'auth-failed': `worker '${outcome.worker}' was refused by its account's login`,
    idle: `worker '${outcome.worker}' is idle`,
    timeout: `wait timed out`,
    dead: `worker '${outcome.worker}' is dead`,
    aborted: `wait aborted`,
    'guardrail-halted': `worker '${outcome.worker}' was halted by its guardrail`,
    file: `the file appeared`,
    pattern: `the screen matched`,
    unknown: `worker '${outcome.worker}' ended turn ${outcome.turn} without an answer`,
    'host-unreachable': `the host of worker '${outcome.worker}' stopped answering`,
    completed: 'completed',
  };
  const lines = [`umbel: ${head[outcome.reason]}${outcome.message ? ` — ${outcome.message}` : ''}`];
  if (outcome.tool) lines.push(`  tool: ${outcome.tool}`);
  lines.push(...accountLines(outcome));
  if (outcome.attempts?.length) {
    for (const a of outcome.attempts)
      lines.push(
        `  attempt ${a.attempt} (turn ${a.turn}): ${a.accepted ? 'accepted' : a.reason === 'completed' ? `rejected${a.checkExitCode !== undefined ? ` (check exit ${a.checkExitCode ?? 'timeout'})` : ''}${a.schemaErrors?.length ? ` (${a.schemaErrors.length} schema errors)` : ''}` : a.reason}`,
      );
  }
  if (options.removed) {
    lines.push(`  umbel -p removes its worker ${outcome.worker}; keep one with --name NAME to answer or inspect it later`);
    if (outcome.reason === 'needs-input') lines.push('  or let it run unattended: --allowed-tools, --permission-mode, --unattended');
  } else if (outcome.reason === 'needs-input')
    lines.push(`  answer it with: umbel keys ${outcome.worker} <key>…   or inspect: umbel capture ${outcome.worker}`);
  else if (outcome.reason === 'host-unreachable')
    lines.push(
      `  the worker may still be running there: umbel wait ${outcome.worker}${outcome.turn ? ` --turn ${outcome.turn}` : ''} again once the host is back`,
    );
  if (outcome.paneTail) lines.push('--- last screen ---', outcome.paneTail.replace(/\s+$/, ''));
  return `${lines.join('\n')}\n`;
}

/** What to do after an account failure: when to retry, or sign in again. */
function accountLines(outcome: Outcome): string[] {
  if (outcome.reason === 'rate-limited') {
    const limit = outcome.limit ? ` (${outcome.limit})` : '';
    return [outcome.resetsAt ? `  resets at: ${outcome.resetsAt}${limit}; retry after it` : `  no reset time recorded${limit}; retry later`];
  }
  if (outcome.reason === 'auth-failed') return ["  sign in again (the CLI's own login, or a valid key), then spawn a new worker; retrying as is will fail"];
  return [];
}

/** `spawn NAME` or `spawn --name NAME` (both is fine when they agree). */
function spawnName(args: Args): string | undefined {
  const positional = str(args.worker);
  const flag = str(args.name);
  if (positional !== undefined && flag !== undefined && positional !== flag) {
    throw new UsageError(`two names given: '${positional}' and --name '${flag}'`, { hint: 'umbel spawn NAME, or umbel spawn --name NAME' });
  }
  return positional ?? flag;
}

/** A one-line live progress display on a terminal. */
function progressLine(io: CliIo) {
  const started = Date.now();
  let activity = '';
  let attempt: number | undefined;
  const draw = () =>
    io.stderr.write(
      `\r\x1b[K⧗ ${formatMs(Date.now() - started)}${attempt && attempt > 1 ? ` · attempt ${attempt}` : ''}${activity ? ` · ${activity.slice(0, 80)}` : ''}`,
    );
  const timer = setInterval(draw, 1000);
  timer.unref?.();
  draw();
  return {
    update(p: { activity?: string; attempt?: number }) {
      if (p.activity) activity = p.activity;
      if (p.attempt) attempt = p.attempt;
      draw();
    },
    stop() {
      clearInterval(timer);
      io.stderr.write('\r\x1b[K');
    },
  };
}

/** One verb's call: its parsed argv and what it runs against. */
interface VerbCall {
  readonly verb: string;
  readonly args: Args;
  readonly io: CliIo;
  readonly engine: Umbel;
  readonly signal: AbortSignal;
  readonly json: boolean;
}

/** Runs one verb; resolves to its exit code. */
type VerbHandler = (call: VerbCall) => Promise<number>;

const spawnVerb: VerbHandler = async ({ args, io, engine, signal, json }) => {
  const status = await engine.spawn({ ...spawnFromArgs(args, io.cwd), name: spawnName(args), startupTimeout: str(args.startupTimeout) }, { signal });
  if (json) printJson(io.stdout, status);
  else io.stdout.write(`${status.name}\n`);
  return 0;
};

const sendVerb: VerbHandler = async ({ args, io, engine, signal, json }) => {
  let prompt = str(args.prompt);
  if (prompt === undefined || prompt === '-' || prompt === '') {
    const piped = await io.readStdin();
    if (piped === undefined) throw new UsageError('send needs a prompt: umbel send NAME "PROMPT", or pipe it on stdin');
    prompt = piped;
  }
  const result = await engine.send({ name: String(args.name), prompt, ...(args.command === true ? { command: true } : {}) }, { signal });
  if (json) printJson(io.stdout, result);
  else if (result.command && !result.modelTurn)
    io.stderr.write(`umbel: ran as ${result.worker}'s own command; it started no model turn (nothing to wait for)\n`);
  else io.stdout.write(`${result.turn}\n`);
  return 0;
};

/** What ends a wait, beside its turn (argv → engine): its bounds, its check, its until. */
function waitFields(args: Args) {
  return { ...turnWaitFromArgs(args), until: str(args.until) as 'stop' | undefined, file: str(args.file), pattern: str(args.pattern) };
}

/** `wait A B C [--any|--all]`: one outcome per worker in the order they ended (--json: an array). */
async function waitManyVerb({ args, io, engine, signal, json }: VerbCall, names: string[]): Promise<number> {
  if (args.turn !== undefined)
    throw new UsageError('--turn names the turn of one worker', { hint: 'wait for several without it: each waits for its latest sent turn' });
  const wait = (options: Parameters<Umbel['wait']>[0], context: Parameters<Umbel['wait']>[1]) => engine.wait(options, context);
  const outcomes = await waitMany(wait, { names, mode: args.any === true ? 'any' : 'all', ...waitFields(args) }, { signal });
  if (json) printJson(io.stdout, outcomes);
  else
    for (const outcome of outcomes) {
      io.stdout.write(`── ${outcome.worker} · turn ${outcome.turn} · ${outcome.reason}\n`);
      printOutcome(io, outcome);
    }
  return waitManyExitCode(outcomes);
}

const waitVerb: VerbHandler = async (call) => {
  const { args, io, engine, signal, json } = call;
  const names = ((args.names as unknown[] | undefined) ?? []).map(String);
  if (names.length > 1) return waitManyVerb(call, names);
  const live = !json && io.stderr.isTTY === true ? progressLine(io) : undefined;
  let outcome: Outcome;
  try {
    outcome = await engine.wait(
      { name: String(names[0]), turn: num(args.turn, 'turn'), ...waitFields(args) },
      { signal, onProgress: live ? (p) => live.update(p) : undefined },
    );
  } finally {
    live?.stop();
  }
  if (json) printJson(io.stdout, outcome);
  else printOutcome(io, outcome);
  return outcome.exitCode;
};

/** A wait's outcome as text: the match or the answer on stdout, anything else described on stderr. */
function printOutcome(io: CliIo, outcome: Outcome): void {
  if (outcome.reason !== 'file' && outcome.reason !== 'pattern' && outcome.reason !== 'completed') {
    io.stderr.write(describeOutcome(outcome));
    return;
  }
  io.stdout.write(`${(outcome.reason === 'completed' ? outcome.result : outcome.match) ?? ''}\n`);
  if (outcome.message) io.stderr.write(`umbel: ${outcome.message}\n`);
}

const keysVerb: VerbHandler = async ({ args, io, engine, json }) => {
  const keys = ((args.keys as unknown[]) ?? []).map(String);
  const result = await engine.keys({ name: String(args.name), keys });
  if (json) printJson(io.stdout, result);
  return 0;
};

/** A worktree as `status NAME` shows it: path, branch, base, and the work in it. */
function worktreeText(wt: WorkerStatus['worktree']): string | undefined {
  if (!wt) return undefined;
  const work = wt.missing
    ? 'missing'
    : [wt.dirty ? 'uncommitted changes' : '', wt.ahead ? `${wt.ahead} commit(s) ahead` : ''].filter(Boolean).join(', ') || 'clean';
  return `${wt.path} (branch ${wt.branch}, base ${wt.base.slice(0, 12)}; ${work})`;
}

/** A confined worker's policy as `status NAME` shows it: what it may write and reach, and what was widened. */
function sandboxText(sb: WorkerStatus['sandbox']): string | undefined {
  if (!sb) return undefined;
  const widened = [...sb.widened.write.map((p) => `write ${p}`), ...sb.widened.read.map((p) => `read ${p}`), ...sb.widened.allow.map((h) => `allow ${h}`)];
  return `write ${sb.write.join(', ')}; network ${sb.network.join(', ') || 'none'}${widened.length ? `; widened: ${widened.join(', ')}` : ''}`;
}

/** `status NAME` as text: one `label: value` line per known fact. */
function statusText(status: WorkerStatus): string {
  const needs = status.needsInput;
  const exit = status.exit;
  const rows: [string, unknown][] = [
    ['name', status.name],
    ['provider', status.provider],
    ['state', status.state],
    ['alive', status.alive],
    ['cwd', status.cwd],
    ['model', status.model],
    ['turn', `${status.completedTurn} completed / ${status.turn} sent`],
    ['created', status.createdAt],
    ['last activity', status.lastActivityAt],
    ['session id', status.sessionId],
    ['transcript', status.transcriptPath],
    ['needs input', needs ? `${needs.kind}${needs.tool ? ` (${needs.tool})` : ''}${needs.message ? `: ${needs.message}` : ''}` : undefined],
    ['exit', exit ? `${exit.signal ?? (exit.status !== undefined ? `status ${exit.status}` : 'unknown')}${exit.by ? ` (by ${exit.by})` : ''}` : undefined],
    ['corrupt', status.corrupt ? `${status.corrupt.reason} (${status.corrupt.path})` : undefined],
    ['worktree', worktreeText(status.worktree)],
    ['sandbox', sandboxText(status.sandbox)],
    ['host', status.host],
    ['unreachable', status.unreachable?.reason],
    ...(status.problems ?? []).map((p): [string, unknown] => ['problem', `${p.message} (${p.file})`]),
  ];
  return `${rows
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${`${k}:`.padEnd(15)}${String(v)}`)
    .join('\n')}\n`;
}

/** `status NAME` (one worker), or `status` / `ls` (the fleet, with the hosts that did not answer). */
const statusVerb: VerbHandler = async ({ verb, args, io, engine, json }) => {
  if (verb === 'status' && args.name !== undefined) {
    const status = await engine.status({ name: String(args.name) });
    if (json) printJson(io.stdout, status);
    else io.stdout.write(statusText(status));
    return 0;
  }
  const fleet = engine.listFleet ? await engine.listFleet() : { workers: await engine.list(), hosts: [] };
  if (json) printJson(io.stdout, fleet.workers);
  else io.stdout.write(statusTable(fleet.workers));
  io.stderr.write(unreachableHosts(fleet.hosts));
  return 0;
};

const readVerb: VerbHandler = async ({ args, io, engine, json }) => {
  const result = await engine.read({
    name: String(args.name),
    turn: num(args.turn, 'turn'),
    section: str(args.section),
    head: num(args.head, 'head'),
    tail: num(args.tail, 'tail'),
  });
  if (json) {
    printJson(io.stdout, result);
    return 0;
  }
  io.stdout.write(`${result.result}\n`);
  if (result.elidedTokens) io.stderr.write(`umbel: about ${result.elidedTokens} tokens of the answer left out\n`);
  if (!result.complete) io.stderr.write(`umbel: the transcript does not show turn ${result.turn} as ended yet; this is the answer the stop hook reported\n`);
  return 0;
};

const actionsVerb: VerbHandler = async ({ args, io, engine, json }) => {
  const result = await engine.actions({ name: String(args.name), turn: turnOrAll(args.turn) });
  io.stdout.write(json ? `${JSON.stringify(result)}\n` : actionsText(result));
  return 0;
};

const diffVerb: VerbHandler = async ({ args, io, engine, json }) => {
  const result = await engine.diff({
    name: String(args.name),
    turn: num(args.turn, 'turn'),
    ...(args.text === true ? { text: true } : {}),
    from: signedNum(args.from, 'from'),
    to: signedNum(args.to, 'to'),
    ...(args.against !== undefined ? { against: str(args.against) as 'base' } : {}),
  });
  if (json) printJson(io.stdout, result);
  else {
    const text = diffText(result);
    io.stdout.write(text.stdout);
    io.stderr.write(text.stderr);
  }
  return 0;
};

const killVerb: VerbHandler = async ({ args, io, engine, json }) => {
  const result = await engine.kill({ name: String(args.name), purge: args.purge === true, discardWorktree: args.discardWorktree === true });
  if (json) printJson(io.stdout, result);
  else io.stdout.write(`${result.purged ? 'purged' : 'killed'}: ${result.worker}\n`);
  const wt = result.worktree;
  if (!json && wt) io.stderr.write(wt.removed ? `umbel: removed its worktree ${wt.path}\n` : `umbel: kept its worktree ${wt.path} (branch ${wt.branch})\n`);
  return 0;
};

const reviveVerb: VerbHandler = async ({ args, io, engine, signal, json }) => {
  const status = await engine.revive({ name: String(args.name), startupTimeout: str(args.startupTimeout), ...maxWorkersFromArgs(args) }, { signal });
  if (json) printJson(io.stdout, status);
  else io.stdout.write(`${status.name}\n`);
  return 0;
};

const pruneVerb: VerbHandler = async ({ args, io, engine, json }) => {
  const result = await engine.prune({ olderThan: str(args.olderThan) });
  if (json) printJson(io.stdout, result);
  else io.stdout.write(`${result.removed.map((n) => `removed ${n}\n`).join('')}${result.removed.length} removed, ${result.kept} kept\n`);
  for (const u of result.unreachable ?? []) io.stderr.write(`umbel: host ${u.host} is unreachable (${u.reason}); nothing of it was pruned\n`);
  return 0;
};

const attachVerb: VerbHandler = async ({ args, engine }) => {
  const command = await engine.attachCommand({ name: String(args.name) });
  const result = spawnSync(command.file, [...command.args], { stdio: 'inherit', env: { ...command.env } });
  return result.status ?? 1;
};

const captureVerb: VerbHandler = async ({ args, io, engine, json }) => {
  const result = await engine.capture({ name: String(args.name), lines: num(args.lines, 'lines') ?? 100 });
  if (json) printJson(io.stdout, result);
  else {
    io.stdout.write(`${result.text.replace(/\s+$/, '')}\n`);
    if (!result.live) io.stderr.write(`umbel: ${result.worker} has no live pane; this is the last screen saved\n`);
  }
  return 0;
};

/** `logs NAME [--follow]`: the entries so far, then (following) the new ones every 300 ms until interrupted. */
const logsVerb: VerbHandler = async ({ args, io, engine, signal, json }) => {
  let seen = 0;
  const flush = async () => {
    const entries = await engine.logs({ name: String(args.name) });
    for (const entry of entries.slice(seen)) {
      if (json) printJson(io.stdout, entry);
      else io.stdout.write(logLine(entry));
    }
    seen = entries.length;
  };
  await flush();
  if (args.follow !== true) return 0;
  while (!signal.aborted) {
    await new Promise((r) => setTimeout(r, 300));
    await flush();
  }
  return interruptExitCode(signal);
};

/** `events [NAME…] [--follow] [--since T]`: the fleet's lifecycle, one line (JSON Lines with --json) per event. */
const eventsVerb: VerbHandler = async ({ args, io, engine, signal, json }) => {
  const names = ((args.names as unknown[] | undefined) ?? []).map(String);
  const follow = args.follow === true;
  const options = { ...(names.length ? { names } : {}), since: str(args.since), follow };
  for await (const event of engine.events(options, { signal })) io.stdout.write(json ? `${JSON.stringify(event)}\n` : eventLine(event));
  return follow ? interruptExitCode(signal) : 0;
};

const VERB_HANDLERS: Readonly<Record<string, VerbHandler>> = {
  spawn: spawnVerb,
  send: sendVerb,
  wait: waitVerb,
  keys: keysVerb,
  status: statusVerb,
  ls: statusVerb,
  read: readVerb,
  actions: actionsVerb,
  diff: diffVerb,
  kill: killVerb,
  revive: reviveVerb,
  prune: pruneVerb,
  attach: attachVerb,
  capture: captureVerb,
  logs: logsVerb,
  events: eventsVerb,
};

/** Dispatch one verb. Returns the exit code. */
export async function runVerb(verb: string, args: Args, io: CliIo, engine: Umbel, signal: AbortSignal): Promise<number> {
  const handler = Object.hasOwn(VERB_HANDLERS, verb) ? VERB_HANDLERS[verb] : undefined;
  if (!handler) throw new UsageError(`unknown verb '${verb}'`);
  return handler({ verb, args, io, engine, signal, json: args.json === true });
}
