/**
 * `umbel -p` never leaves its anonymous worker behind, on real tmux with the fake `claude`: a
 * second Ctrl-C, SIGHUP (the terminal closed) and a stdout/stderr reader that went away, each at
 * every phase of the run (spawn, send, wait). "Nothing left" means: no state dir, no process that
 * carries the worker's events dir, no tmux session `prune` would find, and no stack trace.
 * Needs `pnpm build` (the root `pnpm test` builds first).
 */
import { readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult, Started, UmbelRun, UmbelStart } from '../../../test-fixtures/real/umbel-helpers.mjs';
import {
  assertBuilt,
  cleanUp,
  processesOf,
  REPO_ROOT,
  teardownsDone,
  testEnv,
  umbelRunner,
  workerProcesses,
} from '../../../test-fixtures/real/umbel-helpers.mjs';

const fakeClaude = join(REPO_ROOT, 'test-fixtures/bin/claude');
let scratch: string;
let home: string;
let work: string;
let config: string;
/** A "claude" that starts and never shows a ready prompt: holds `-p` in its spawn phase. */
let neverReady: string;
let umbel: UmbelRun;
let startUmbel: UmbelStart;

const cfg = () => ['--env', `CLAUDE_CONFIG_DIR=${config}`];

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs']);
  scratch = await mkdtemp(join(tmpdir(), 'umbel-e2e-sig-'));
  home = join(scratch, 'state');
  work = join(scratch, 'project');
  config = join(scratch, 'claude-config');
  await mkdir(work, { recursive: true });
  await mkdir(config, { recursive: true });
  await writeFile(join(config, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, projects: { [work]: { hasTrustDialogAccepted: true } } }));
  neverReady = join(scratch, 'never-ready-claude');
  await writeFile(neverReady, '#!/bin/sh\nexec sleep 600\n');
  await chmod(neverReady, 0o755);
  ({ run: umbel, start: startUmbel } = umbelRunner({ cwd: work, env: testEnv({ home: scratch, umbelHome: home, UMBEL_CLAUDE_BIN: fakeClaude }) }));
});

afterAll(() => cleanUp({ workers: [umbel], reap: [scratch], remove: [scratch] }));

/** Poll `check` every 50 ms until it holds (60 s bound, then fail naming `what`). */
async function until<T>(check: () => T | undefined | false | Promise<T | undefined | false>, what: string): Promise<T> {
  for (let i = 0; i < 1200; i++) {
    const value = await check();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const anonDirs = async (): Promise<string[]> => (await readdir(join(home, 'workers')).catch(() => [] as string[])).filter((n) => n.startsWith('anon-'));

async function eventsOf(anon: string): Promise<string[]> {
  return readdir(join(home, 'workers', anon, 'events')).catch(() => [] as string[]);
}

type Phase = 'spawn' | 'send' | 'wait';

/**
 * Start `umbel -p` and return once it is in `phase`, with its anonymous worker's name.
 * spawn: the CLI runs but never gets ready; send: the prompt was pasted (the `sent` event);
 * wait: the CLI accepted the prompt (its prompt hook fired) and the turn runs for a minute.
 */
async function startIn(phase: Phase, extra: string[] = []): Promise<{ run: Started; anon: string }> {
  const before = new Set(await anonDirs());
  const run = startUmbel(['-p', 'DELAY 60000 ECHO never', ...cfg(), ...extra], phase === 'spawn' ? { env: { UMBEL_CLAUDE_BIN: neverReady } } : {});
  const anon = await until(async () => (await anonDirs()).find((n) => !before.has(n)), 'the anonymous worker dir');
  if (phase === 'spawn') await until(() => workerProcesses(home, anon).length > 0, 'the CLI to run');
  else {
    const suffix = phase === 'send' ? '-sent.json' : '-prompt.json';
    await until(async () => (await eventsOf(anon)).some((f) => f.endsWith(suffix)), `the ${suffix} event`);
  }
  return { run, anon };
}

/** Whether `pid` has `signal` (a number) pending, from /proc: not yet taken by its handler. */
function pending(pid: number, signal: number): boolean {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const bit = 1n << BigInt(signal - 1);
  return ['SigPnd', 'ShdPnd'].some((field) => (BigInt(`0x${status.match(new RegExp(`${field}:\\s*([0-9a-f]+)`))?.[1] ?? '0'}`) & bit) !== 0n);
}

/** Two distinct SIGINTs: the second once the first was taken (the kernel merges a pending one). */
async function doubleCtrlC(run: Started): Promise<void> {
  const pid = run.child.pid as number;
  run.child.kill('SIGINT');
  await until(() => !pending(pid, 2), 'the first SIGINT to be taken');
  run.child.kill('SIGINT');
}

async function expectNothingLeft(anon: string, result: RunResult): Promise<void> {
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(await anonDirs()).not.toContain(anon);
  expect(workerProcesses(home, anon).map((p) => p.args)).toEqual([]);
  const pruned = await umbel(['prune', '--json']);
  expect(JSON.parse(pruned.stdout).removed).toEqual([]);
}

/** No anonymous worker at all: no dir, no CLI process (its argv names its dir), nothing for prune. */
async function expectNoAnonymousWorker(result: RunResult): Promise<void> {
  expect(result.stderr).not.toMatch(/\n\s+at /);
  // A reader gone is no signal: a -p that got as far as its output hands its teardown to a detached process.
  await teardownsDone(home);
  expect(await anonDirs()).toEqual([]);
  expect(processesOf({ argsIncludes: [join(home, 'workers', 'anon-')] })).toEqual([]);
  expect(JSON.parse((await umbel(['prune', '--json'])).stdout).removed).toEqual([]);
}

describe('umbel -p tears its worker down on every interruption', () => {
  for (const phase of ['spawn', 'send', 'wait'] as const) {
    it(`a second Ctrl-C during ${phase}: exit 130, nothing left`, async () => {
      const { run, anon } = await startIn(phase);
      await doubleCtrlC(run);
      const result = await run.done;
      expect(result.code).toBe(130);
      await expectNothingLeft(anon, result);
    });

    it(`SIGHUP (terminal closed) during ${phase}: exit 129, nothing left`, async () => {
      const { run, anon } = await startIn(phase);
      run.child.kill('SIGHUP');
      const result = await run.done;
      expect(result).toMatchObject({ code: 129, signal: null });
      await expectNothingLeft(anon, result);
    });
  }

  it('stdout reader gone mid-run (stream-json, like `| head -1`): exit 141, no stack trace, nothing left', async () => {
    const before = new Set(await anonDirs());
    const run = startUmbel(['-p', 'TOOL echo streamed', '--output-format', 'stream-json', '--verbose', '--allowed-tools', 'Bash(echo:*)', ...cfg()]);
    // The reader leaves after the first line (the init line, printed after send); the tool's
    // message is the next write.
    run.child.stdout?.once('data', () => run.child.stdout?.destroy());
    const anon = await until(async () => (await anonDirs()).find((n) => !before.has(n)), 'the anonymous worker dir');
    const result = await run.done;
    expect(result.code).toBe(141);
    // A reader gone is no signal: the -p hands its teardown to a detached process (a loaded machine
    // runs it after the exit).
    await teardownsDone(home);
    await expectNothingLeft(anon, result);
  });

  it('a closed stdout aborts what is running: logs --follow ends at its next line with 141', async () => {
    expect((await umbel(['spawn', 'followed', ...cfg()])).code).toBe(0);
    const follow = startUmbel(['logs', 'followed', '--follow']);
    // Without the abort, --follow would run until a signal: the test would time out.
    follow.child.stdout?.once('data', () => follow.child.stdout?.destroy());
    await until(() => follow.child.stdout?.destroyed, 'the first lines');
    expect((await umbel(['send', 'followed', 'ECHO more events'])).code).toBe(0);
    const result = await follow.done;
    expect(result.code).toBe(141);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    await umbel(['kill', 'followed', '--purge']);
  });

  it('stdout reader gone before the answer (text): exit 141, no stack trace, nothing left', async () => {
    const run = startUmbel(['-p', 'ECHO the answer', ...cfg()]);
    run.child.stdout?.destroy();
    const result = await run.done;
    expect(result.code).toBe(141);
    await expectNoAnonymousWorker(result);
  });

  it('stderr reader gone (a diagnosis to print): exit 141, nothing left', async () => {
    const run = startUmbel(['-p', 'DELAY 60000 ECHO never', '--timeout', '1s', ...cfg()]);
    run.child.stderr?.destroy();
    const result = await run.done;
    expect(result.code).toBe(141);
    await expectNoAnonymousWorker(result);
  });
});
