#!/usr/bin/env node
// `pnpm soak`: N cycles of spawn → send → wait → read → kill (or one `umbel -p`) through the BUILT
// `umbel` bin on the fake claude, with random faults injected: SIGKILL of the CLI, tmux kill-server,
// SIGTERM/SIGHUP of `-p`, a stalled tmux call, a concurrent `prune`, paste terminators in a prompt
// (`ESC[201~!touch …` / `ESC[201~/exit`: nothing may run, the answer shows them as `␛[201~`), a named pipe in the worker's
// events/ or in place of its meta.json (a verb that hangs on one counts as a lost answer), a
// SIGKILLed `umbel send` before the one whose answer is checked. After every cycle and at the end
// it sweeps the process table and the private socket. It prints four counts and exits non-zero
// unless all are 0:
//   answers lost or wrong · workers orphaned · processes left · stack traces printed
// Not part of `pnpm test` (it takes minutes). Needs `pnpm build`.
//
//   node scripts/soak.mjs [--cycles 200] [--seed N] [--concurrency 2] [--verbose]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { assertBuilt, REPO_ROOT, startProcess, testEnv, UMBEL_BIN, umbelRunner } from '../test-fixtures/real/umbel-helpers.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(`--${name}`) ? Number(args[args.indexOf(`--${name}`) + 1]) : fallback);
const CYCLES = opt('cycles', 200);
const CONCURRENCY = opt('concurrency', 2);
const SEED = opt('seed', Date.now() % 100_000);
const verbose = args.includes('--verbose');

assertBuilt(['packages/cli/dist/cli.cjs']);

/** A small seeded RNG (mulberry32), so a run can be replayed with --seed. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = rng(SEED);
const FAULTS = [
  'none',
  'none',
  'none',
  'sigkill-cli',
  'kill-server',
  'p-sigterm',
  'p-sighup',
  'stall',
  'prune',
  'paste-terminator',
  'fifo-events',
  'fifo-meta',
  'killed-send',
];
const pick = () => FAULTS[Math.floor(random() * FAULTS.length)];

const scratch = mkdtempSync(join(tmpdir(), 'umbel-soak-'));
const home = join(scratch, 'state');
const work = join(scratch, 'work');
const config = join(scratch, 'claude-config');
mkdirSync(work, { recursive: true });
mkdirSync(config, { recursive: true });
writeFileSync(join(config, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, projects: { [work]: { hasTrustDialogAccepted: true } } }));
const baseEnv = testEnv({
  home: scratch,
  umbelHome: home,
  UMBEL_CLAUDE_BIN: join(REPO_ROOT, 'test-fixtures/bin/claude'),
  UMBEL_TMUX_BIN: join(REPO_ROOT, 'test-fixtures/bin/tmux-stall'),
});
const { start } = umbelRunner({ cwd: work, env: baseEnv });
/** A command that has not ended after this long hung (on a named pipe, say): it is killed and reported. */
const HANG_MS = 90_000;
const hung = [];
/** `run`, bounded: a hung command is SIGKILLed and answers exit 124 with a note. */
async function run(args, options = {}) {
  const started = start(args, options);
  const timer = setTimeout(() => {
    hung.push(args.join(' '));
    started.child.kill('SIGKILL');
  }, HANG_MS);
  const result = await started.done;
  clearTimeout(timer);
  return result;
}
const cfg = ['--env', `CLAUDE_CONFIG_DIR=${config}`];

const counts = { lost: 0, orphaned: 0, processes: 0, traces: 0 };
const notes = [];
const note = (what, cycle, detail) => {
  notes.push(`cycle ${cycle} (${what}): ${detail}`);
  if (verbose) process.stderr.write(`  ✗ cycle ${cycle} ${what}: ${detail}\n`);
};
/** An answer lost or wrong. */
const lose = (what, cycle, detail) => {
  counts.lost++;
  note(what, cycle, detail);
};

/** Stack traces or internal errors in what a command printed. */
function checkOutput(cycle, fault, result) {
  const text = `${result.stdout}\n${result.stderr}`;
  if (/\n\s+at .+:\d+:\d+\)?\n|internal error|Unhandled|TypeError|RangeError/.test(text)) {
    counts.traces++;
    note(fault, cycle, `a stack trace: ${text.slice(0, 300).replace(/\s+/g, ' ')}`);
  }
  return result;
}

const { createTmuxSubstrate } = await import(pathToFileURL(join(REPO_ROOT, 'packages/tmux/dist/index.js')).href);
/** umbel's private socket of this state root (through @umbel/tmux: never a bare tmux), unstalled. */
const host = createTmuxSubstrate({ home, env: { ...baseEnv, UMBEL_TMUX_BIN: undefined } });
/** The fault "someone ran tmux kill-server": on umbel's private socket of this state root only. */
const killServer = () => host.killServer();

/** Live processes whose environment has an entry starting with `prefix` (zombies have none). */
function processesWith(prefix) {
  const found = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      if (!environ.some((kv) => kv.startsWith(prefix))) continue;
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
      found.push({ pid: Number(entry), args });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
const cliProcesses = (name) => processesWith(`UMBEL_EVENTS_DIR=${join(home, 'workers', name, 'events')}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * The prompt of a verb cycle and the answer it must give. With the fault `paste-terminator` the
 * prompt carries `ESC[201~` before a `!` command and a `/exit`: `check` counts an answer lost when
 * the command ran or the worker ended.
 */
function pasteEscape(fault, cycle, token) {
  if (fault !== 'paste-terminator') return { prompt: token, answer: token };
  const marker = join(scratch, `escaped-${cycle}`);
  const tail = (esc) => `${esc}[201~!touch ${marker}\n${esc}[201~/exit`;
  return {
    prompt: `${token}${tail('\x1b')}`,
    answer: `${token}${tail('\u241b')}`,
    check: (status) => {
      if (existsSync(marker)) lose(fault, cycle, `the prompt's !touch ran (${marker})`);
      const view = JSON.parse(status.stdout || '{}');
      if (view.alive !== true) lose(fault, cycle, `the worker ended after the prompt: ${view.state} ${status.stderr.slice(0, 200)}`);
    },
  };
}

/** A worker through the verbs, with one fault injected mid-turn. */
async function verbCycle(cycle, fault) {
  const name = `s${cycle}`;
  const token = `tok-${cycle}-${Math.floor(random() * 1e9)}`;
  const stallDir = join(scratch, `stall-${cycle}`);
  const env = fault === 'stall' ? { UMBEL_TMUX_STALL: 'list-panes:1,capture-pane:1', UMBEL_TMUX_STALL_DIR: stallDir, UMBEL_TMUX_STALL_SECONDS: '7' } : {};
  const prune =
    fault === 'prune'
      ? (async () => {
          for (let i = 0; i < 6; i++) {
            checkOutput(cycle, fault, await run(['prune']));
            await sleep(40);
          }
        })()
      : undefined;
  const spawned = checkOutput(cycle, fault, await run(['spawn', name, ...cfg], { env }));
  if (spawned.code !== 0) {
    if (fault !== 'kill-server') lose(fault, cycle, `spawn exited ${spawned.code}: ${spawned.stderr.trim().slice(0, 200)}`);
    await prune;
    return name;
  }
  const events = join(home, 'workers', name, 'events');
  // a name that parses as a hook event: the agent itself can mkfifo in its events dir
  if (fault === 'fifo-events') execFileSync('mkfifo', [join(events, `${1764000000000000000n + BigInt(cycle)}-1-stop.json`)]);
  if (fault === 'killed-send') await killedSend(cycle, name);
  const delayed = fault === 'sigkill-cli' || fault === 'kill-server';
  const pasted = pasteEscape(fault, cycle, token);
  checkOutput(cycle, fault, await run(['send', name, delayed ? `DELAY 1500 ECHO ${token}` : `ECHO ${pasted.prompt}`], { env }));
  if (fault === 'sigkill-cli') {
    await sleep(200);
    for (const p of cliProcesses(name)) if (/claude/.test(p.args)) process.kill(p.pid, 'SIGKILL');
  }
  if (fault === 'kill-server') {
    await sleep(200);
    await killServer();
  }
  const waited = checkOutput(cycle, fault, await run(['wait', name, '--json', '--timeout', '60s'], { env }));
  const outcome = JSON.parse(waited.stdout || '{}');
  if (delayed) {
    if (outcome.reason !== 'dead' && outcome.result !== token)
      lose(fault, cycle, `expected dead, got ${outcome.reason} (exit ${waited.code}: ${JSON.stringify((waited.stdout || waited.stderr).slice(0, 300))})`);
  } else if (outcome.reason !== 'completed' || outcome.result !== pasted.answer) {
    lose(fault, cycle, `wait: ${outcome.reason} ${JSON.stringify(outcome.result ?? outcome.message ?? waited.stderr).slice(0, 200)}`);
  } else {
    const read = checkOutput(cycle, fault, await run(['read', name], { env }));
    if (read.stdout !== `${pasted.answer}\n`) lose(fault, cycle, `read gave ${JSON.stringify(read.stdout.slice(0, 80))}`);
  }
  if (fault === 'paste-terminator') pasted.check(await run(['status', name, '--json'], { env }));
  if (fault === 'fifo-meta') await fifoMeta(cycle, name);
  await prune;
  checkOutput(cycle, fault, await run(['kill', name, '--purge'], { env }));
  return name;
}

/** A `umbel send` SIGKILLed at a random moment (it may hold the send lock, its turn half sent). */
async function killedSend(cycle, name) {
  const dead = start(['send', name, `ECHO dead-${cycle}`]);
  await sleep(Math.floor(random() * 400));
  dead.child.kill('SIGKILL');
  await dead.done;
}

/** meta.json replaced by a named pipe: status must answer `corrupt` (not hang); kill --purge still ends the worker. */
async function fifoMeta(cycle, name) {
  const meta = join(home, 'workers', name, 'meta.json');
  rmSync(meta, { force: true });
  execFileSync('mkfifo', [meta]);
  const status = checkOutput(cycle, 'fifo-meta', await run(['status', name, '--json']));
  const state = JSON.parse(status.stdout || '{}').state;
  if (state !== 'corrupt') lose('fifo-meta', cycle, `status of a FIFO meta.json: ${state ?? status.stderr.slice(0, 200)}`);
}

/** One `umbel -p`, signalled at a random moment. */
async function printCycle(cycle, fault) {
  const token = `tok-${cycle}-${Math.floor(random() * 1e9)}`;
  const started = startProcess(process.execPath, [UMBEL_BIN, '-p', `DELAY 300 ECHO ${token}`, ...cfg], {
    cwd: work,
    env: baseEnv,
  });
  await sleep(Math.floor(random() * 2500));
  started.child.kill(fault === 'p-sigterm' ? 'SIGTERM' : 'SIGHUP');
  const result = checkOutput(cycle, fault, await started.done);
  const expected = fault === 'p-sigterm' ? 143 : 129;
  if (result.code === 0 && result.stdout !== `${token}\n`) lose(fault, cycle, `-p printed ${JSON.stringify(result.stdout.slice(0, 80))}`);
  // (a signal that arrives before node has started umbel's handlers ends the process by the signal
  // itself, as it would any program: nothing was started yet)
  const bySignal = result.signal === (fault === 'p-sigterm' ? 'SIGTERM' : 'SIGHUP');
  if (result.code !== 0 && result.code !== expected && !bySignal) lose(fault, cycle, `-p exited ${result.code}: ${result.stderr.slice(0, 200)}`);
  return undefined;
}

/** Nothing of a finished cycle may remain: no state, no listed worker, no process. */
async function sweepCycle(cycle, fault, name) {
  const listed = JSON.parse((await run(['ls', '--json'])).stdout || '[]');
  const mine = listed.filter((w) => (name ? w.name === name : w.anonymous));
  if (mine.length > 0) {
    counts.orphaned += mine.length;
    note(fault, cycle, `left listed: ${mine.map((w) => `${w.name}(${w.state})`).join(', ')}`);
    for (const w of mine) await run(['kill', w.name, '--purge']);
  }
  if (name) {
    await sleep(100);
    const left = cliProcesses(name);
    if (left.length > 0) {
      counts.processes += left.length;
      note(fault, cycle, `processes left: ${left.map((p) => `${p.pid} ${p.args.slice(0, 60)}`).join('; ')}`);
      for (const p of left) process.kill(p.pid, 'SIGKILL');
    }
  }
}

/**
 * A kill-server ends every worker on the socket, the other cycles' too, and a prune removes every
 * dead worker, another cycle's killed one included (before that cycle's wait could report it): each
 * runs alone (a readers-writer lock — every other cycle shares it). The prune still races its own
 * cycle's spawn, which is the race it is there for.
 */
const lock = { readers: 0, writer: false, waiters: [] };
const wake = () => {
  for (const w of lock.waiters.splice(0)) w();
};
async function acquire(exclusive) {
  for (;;) {
    if (!lock.writer && (!exclusive || lock.readers === 0)) break;
    await new Promise((r) => lock.waiters.push(r));
  }
  if (exclusive) lock.writer = true;
  else lock.readers++;
  return () => {
    if (exclusive) lock.writer = false;
    else lock.readers--;
    wake();
  };
}

async function cycleOf(cycle) {
  const fault = pick();
  const release = await acquire(fault === 'kill-server' || fault === 'prune');
  try {
    return await runCycle(cycle, fault);
  } finally {
    release();
  }
}

async function runCycle(cycle, fault) {
  const print = fault === 'p-sigterm' || fault === 'p-sighup';
  const name = print ? await printCycle(cycle, fault) : await verbCycle(cycle, fault);
  if (!print) await sweepCycle(cycle, fault, name);
  return fault;
}

const started = Date.now();
const tally = {};
let next = 0;
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < CYCLES) {
      const cycle = next++;
      const fault = await cycleOf(cycle);
      tally[fault] = (tally[fault] ?? 0) + 1;
      if (!verbose && cycle % 10 === 9) process.stderr.write(`… ${cycle + 1}/${CYCLES}\n`);
    }
  }),
);
// the anonymous -p workers, and the whole state root, at the end
await sweepCycle('end', 'sweep', undefined);
const leftAtAll = processesWith(`UMBEL_EVENTS_DIR=${join(home, 'workers')}/`);
if (leftAtAll.length) notes.push(`at the end: processes left ${leftAtAll.map((p) => `${p.pid} ${p.args.slice(0, 60)}`).join('; ')}`);
counts.processes += leftAtAll.length;
const listedAtAll = JSON.parse((await run(['ls', '--json'])).stdout || '[]');
counts.orphaned += listedAtAll.length;
if (listedAtAll.length) notes.push(`at the end: still listed ${listedAtAll.map((w) => `${w.name}(${w.state})`).join(', ')}`);
const liveSessions = await host.list();
counts.orphaned += liveSessions.length;
if (liveSessions.length) notes.push(`at the end: sessions on the private socket ${liveSessions.join(', ')}`);
await killServer();
await run(['prune']);
rmSync(scratch, { recursive: true, force: true });

const secs = Math.round((Date.now() - started) / 1000);
console.log(
  `umbel soak — ${CYCLES} cycles (seed ${SEED}, concurrency ${CONCURRENCY}) in ${secs}s; faults: ${Object.entries(tally)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')}`,
);
if (hung.length) notes.unshift(`hung (killed after ${HANG_MS / 1000}s): ${hung.join('; ')}`);
counts.lost += hung.length;
console.log(`answers lost or wrong ${counts.lost} · workers orphaned ${counts.orphaned} · processes left ${counts.processes} · stack traces ${counts.traces}`);
for (const line of notes.slice(0, 40)) console.log(`  ${line}`);
process.exit(Object.values(counts).every((n) => n === 0) ? 0 : 1);
