/**
 * Warm pools end to end on real tmux with the fake `claude`: `umbel pool start|status|stop`, `umbel -p`
 * through a pool (10 parallel calls on a pool of 4), and the detached teardown and refill that `-p` leaves behind
 * (it never holds the caller's output, never leaves an orphan or a half-started worker). Needs
 * `pnpm build`. Startup and answers are held by gate files, never by timing: a wrapper around the fake
 * waits while `$POOL_START_GATE` exists, and `TOOL` prompts wait for a file before they answer.
 */
import { chmod, mkdir, mkdtemp, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UmbelRun, UmbelStart } from '../../../test-fixtures/real/umbel-helpers.mjs';
import { assertBuilt, cleanUp, processesOf, REPO_ROOT, testEnv, umbelRunner, workerProcesses, until } from '../../../test-fixtures/real/umbel-helpers.mjs';

const T = 300_000;
let scratch: string;
let home: string;
let work: string;
let config: string;
let startGate: string;
let umbel: UmbelRun;
let startUmbel: UmbelStart;
/** The options every pool and call of this file share (so they match). */
let common: string[];

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs']);
  scratch = await realpath(await mkdtemp(join(tmpdir(), 'umbel-e2e-pool-')));
  home = join(scratch, 'state');
  work = join(scratch, 'project');
  config = join(scratch, 'claude-config');
  startGate = join(scratch, 'start-gate');
  await mkdir(work, { recursive: true });
  await mkdir(config, { recursive: true });
  await writeFile(join(config, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, projects: { [work]: { hasTrustDialogAccepted: true } } }));
  // The fake claude behind a gate: its startup waits while the gate file exists.
  const wrapper = join(scratch, 'gated-claude');
  await writeFile(
    wrapper,
    `#!/bin/sh\nwhile [ -n "$POOL_START_GATE" ] && [ -e "$POOL_START_GATE" ]; do sleep 0.05; done\nexec '${join(REPO_ROOT, 'test-fixtures/bin/claude')}' "$@"\n`,
  );
  await chmod(wrapper, 0o755);
  common = ['--env', `CLAUDE_CONFIG_DIR=${config}`, '--env', `POOL_START_GATE=${startGate}`];
  ({ run: umbel, start: startUmbel } = umbelRunner({ cwd: work, env: testEnv({ home: scratch, umbelHome: home, UMBEL_CLAUDE_BIN: wrapper }) }));
});

afterAll(async () => {
  await rm(startGate, { force: true });
  await umbel?.(['pool', 'stop']);
  await cleanUp({ workers: [umbel], reap: [scratch], remove: [scratch] });
}, T);

const json = async (args: string[]) => {
  const r = await umbel(args);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};
const poolStatus = async (name: string) => (await json(['pool', 'status', name, '--json']))[0];
/** Live detached refills of this state root. */
const refills = () => processesOf({ envIncludes: [`UMBEL_HOME=${home}`] }).filter((p) => p.args.includes('pool finish --detached'));
/** What a refill that did not come looked like (for the failure's message): every pool's status and the detached refills alive. */
const refillState = async () => `pools ${(await umbel(['pool', 'status', '--json'])).stdout.trim()}; refills alive: ${JSON.stringify(refills())}`;
const dirs = async (path: string) => (existsSync(path) ? (await readdir(path)).filter((n) => !n.startsWith('.')) : []);
/** Processes of any worker of this state root (the shared tmux server left out). */
const workerProcs = () => processesOf({ argsIncludes: [join(home, 'workers')] }).filter((p) => !/^\S*tmux /.test(p.args));

async function startPool(size: number): Promise<string> {
  const pool = await json(['pool', 'start', '--size', String(size), ...common, '--json']);
  expect(pool.counts).toMatchObject({ ready: size, starting: 0, claimed: 0, dead: 0 });
  return pool.name;
}

async function nothingLeft(): Promise<void> {
  expect(await json(['ls', '--json'])).toEqual([]);
  expect(await dirs(join(home, 'pools'))).toEqual([]);
  await until(() => workerProcs().length === 0 && refills().length === 0, 'every worker and refill process to be gone', 30_000);
}

describe('umbel pool and -p on the fake claude', () => {
  it(
    'pool start/status/stop: N workers at their ready prompt, one pool per set of options, nothing left after stop',
    async () => {
      const name = await startPool(2);
      expect(name).toMatch(/^claude-[0-9a-f]{8}$/);
      const text = await umbel(['pool', 'status']);
      expect(text.stdout).toContain(`pool ${name} (claude) in ${work}; env CLAUDE_CONFIG_DIR, POOL_START_GATE`);
      expect(text.stdout).toContain('2/2 ready');
      // env values never show: not in status, not in the pool's files
      expect(text.stdout).not.toContain(config);
      expect(await startPool(2)).toBe(name);
      const other = await json(['pool', 'start', '--size', '1', '--model', 'other-model', ...common, '--json']);
      expect(other.name).not.toBe(name);
      expect((await json(['pool', 'status', '--json'])).map((p: { name: string }) => p.name).sort()).toEqual([name, other.name].sort());
      const stopped = await json(['pool', 'stop', '--json']);
      expect(stopped.map((s: { removed: string[] }) => s.removed.length).sort()).toEqual([1, 2]);
      await nothingLeft();
      expect(await umbel(['pool', 'stop', name])).toMatchObject({ code: 1, stderr: expect.stringContaining(`no pool '${name}'`) });
    },
    T,
  );

  it(
    '10 parallel -p on a pool of 4: 4 warm, 6 cold, every answer right; the refills fill it again; nothing left after stop',
    async () => {
      const name = await startPool(4);
      const go = join(scratch, 'go-parallel');
      const calls = Array.from({ length: 10 }, (_, i) =>
        startUmbel(['-p', `TOOL while [ ! -e '${go}' ]; do sleep 0.05; done; echo answer-${i}`, ...common, '--output-format', 'json']),
      );
      // Every call has decided (a claimed pool worker, or a cold spawn of its own) before any answers.
      await until(async () => (await dirs(join(home, 'pools', name, 'claimed'))).length === 4, '4 claims');
      await until(async () => (await dirs(join(home, 'workers'))).filter((n) => n.startsWith('anon-')).length === 6, '6 cold spawns');
      await writeFile(go, '');
      const results = await Promise.all(calls.map((c) => c.done));
      const outputs = results.map((r, i) => {
        expect(r.code, r.stderr).toBe(0);
        const out = JSON.parse(r.stdout);
        expect(out.result).toBe(`TOOL-RESULT: answer-${i}`);
        return out.worker as string;
      });
      expect(outputs.filter((w) => w.startsWith(`${name}-`))).toHaveLength(4);
      expect(outputs.filter((w) => w.startsWith('anon-'))).toHaveLength(6);
      expect(new Set(outputs).size).toBe(10);
      // The used workers are gone; the detached refills bring the pool back to 4 and exit.
      await until(async () => refills().length === 0 && (await poolStatus(name)).counts.ready === 4, 'the pool to be full again');
      const after = await poolStatus(name);
      expect(after).toMatchObject({ counts: { ready: 4, starting: 0, claimed: 0, dead: 0 }, refilling: false });
      for (const w of after.workers) expect(outputs).not.toContain(w.worker);
      expect((await json(['ls', '--json'])).map((w: { name: string }) => w.name).sort()).toEqual(after.workers.map((w: { worker: string }) => w.worker).sort());
      await json(['pool', 'stop', name, '--json']);
      await nothingLeft();
    },
    T,
  );

  it(
    'a pool worker whose CLI crashed is never claimed: status says dead, -p takes the live one, the refill replaces the dead one',
    async () => {
      const name = await startPool(2);
      const [crashed, live] = (await poolStatus(name)).workers.map((w: { worker: string }) => w.worker) as [string, string];
      // The CLI itself dies (SIGKILL), not through umbel.
      const procs = workerProcesses(home, crashed).filter((p) => !p.args.includes('launch.sh') && !/^\S*sh /.test(p.args));
      expect(procs.length).toBeGreaterThan(0);
      for (const p of procs) process.kill(p.pid, 'SIGKILL');
      await until(
        async () => (await poolStatus(name)).workers.some((w: { worker: string; state: string }) => w.worker === crashed && w.state === 'dead'),
        'status to say dead',
      );
      const out = JSON.parse((await umbel(['-p', 'ECHO still warm', ...common, '--output-format', 'json'])).stdout);
      expect(out).toMatchObject({ result: 'still warm', worker: live });
      await until(async () => refills().length === 0 && (await poolStatus(name)).counts.ready === 2, 'the refill', 120_000, refillState);
      const after = await poolStatus(name);
      expect(after.counts).toMatchObject({ ready: 2, dead: 0 });
      expect(after.workers.map((w: { worker: string }) => w.worker)).not.toContain(crashed);
      await json(['pool', 'stop', name, '--json']);
      await nothingLeft();
    },
    T,
  );

  it(
    '--pool chooses: none is a cold start, a mismatching pool is a usage error, an unknown one an error',
    async () => {
      const name = await startPool(1);
      const cold = JSON.parse((await umbel(['-p', 'ECHO cold', ...common, '--pool', 'none', '--output-format', 'json'])).stdout);
      expect(cold).toMatchObject({ result: 'cold', worker: expect.stringMatching(/^anon-/) });
      expect((await poolStatus(name)).counts.ready).toBe(1);
      const mismatch = await umbel(['-p', 'ECHO x', ...common, '--model', 'another', '--pool', name]);
      expect(mismatch).toMatchObject({ code: 2, stderr: expect.stringContaining('model') });
      expect(await umbel(['-p', 'ECHO x', ...common, '--pool', 'no-such-pool'])).toMatchObject({
        code: 1,
        stderr: expect.stringContaining("no pool 'no-such-pool'"),
      });
      expect(await umbel(['-p', 'ECHO x', '--pool', name, '--name', 'kept'])).toMatchObject({ code: 2 });
      // Other options than the pool's: no match, so a cold start exactly as without pools.
      const other = JSON.parse((await umbel(['-p', 'ECHO other env', ...common, '--env', 'EXTRA=1', '--output-format', 'json'])).stdout);
      expect(other).toMatchObject({ result: 'other env', worker: expect.stringMatching(/^anon-/) });
      const warm = JSON.parse((await umbel(['-p', 'ECHO warm', ...common, '--pool', name, '--output-format', 'json'])).stdout);
      expect(warm).toMatchObject({ result: 'warm', worker: expect.stringMatching(new RegExp(`^${name}-`)) });
      // Removed after the call by the process it handed its teardown to (never reused).
      await until(async () => refills().length === 0 && (await poolStatus(name)).counts.ready === 1, 'the refill', 120_000, refillState);
      expect(existsSync(join(home, 'workers', warm.worker))).toBe(false);
      await json(['pool', 'stop', name, '--json']);
      await nothingLeft();
    },
    T,
  );

  it(
    'the detached refill never holds the caller, and leaves no orphan: cancelled by a signal, or killed outright',
    async () => {
      const name = await startPool(1);
      // 1. The refill's spawn is held at startup: -p has printed and exited all the same.
      await writeFile(startGate, '');
      const first = await umbel(['-p', 'ECHO first', ...common]);
      expect(first).toMatchObject({ code: 0, stdout: 'first\n' });
      await until(() => refills().length === 1, 'the detached refill');
      await until(async () => (await poolStatus(name)).counts.starting === 1, 'its spawn');
      expect(await poolStatus(name)).toMatchObject({ refilling: true });
      const [refill] = refills();
      const half = (await poolStatus(name)).workers[0].worker as string;
      // SIGTERM: its spawn is cancelled and unwinds; nothing of it is left.
      process.kill(refill?.pid as number, 'SIGTERM');
      await until(() => refills().length === 0, 'the refill to exit');
      await until(() => workerProcesses(home, half).length === 0, 'the half-started worker to be gone');
      expect(await poolStatus(name)).toMatchObject({ workers: [], refilling: false });
      expect((await json(['ls', '--json'])).map((w: { name: string }) => w.name)).not.toContain(half);

      // 2. Killed outright (SIGKILL) mid-spawn: status says its worker is dead, the next refill removes it.
      await rm(startGate);
      const go = join(scratch, 'go-second');
      const second = startUmbel(['-p', `TOOL while [ ! -e '${go}' ]; do sleep 0.05; done; echo second`, ...common]);
      await until(async () => (await dirs(join(home, 'workers'))).some((n) => n.startsWith('anon-')), 'the cold spawn (the pool was empty)');
      const anon = (await dirs(join(home, 'workers'))).find((n) => n.startsWith('anon-')) as string;
      await until(async () => (await dirs(join(home, 'workers', anon, 'events'))).some((f) => f.endsWith('-prompt.json')), 'its prompt');
      await writeFile(startGate, '');
      await writeFile(go, '');
      expect(await second.done).toMatchObject({ code: 0, stdout: 'TOOL-RESULT: second\n' });
      // Its detached process removes the cold worker beside the refill; that part is done before the kill below.
      await until(async () => !(await dirs(join(home, 'workers'))).includes(anon), 'the cold worker to be removed');
      await until(async () => refills().length === 1 && (await poolStatus(name)).counts.starting === 1, 'the second refill to be spawning');
      const orphan = (await poolStatus(name)).workers[0].worker as string;
      process.kill(refills()[0]?.pid as number, 'SIGKILL');
      await until(() => refills().length === 0, 'the killed refill to be gone');
      expect((await poolStatus(name)).workers).toEqual([{ worker: orphan, state: 'dead', reason: 'its refill ended before it was ready' }]);
      expect(workerProcesses(home, orphan).length).toBeGreaterThan(0); // half-started: its CLI is still there
      await rm(startGate);
      const refilled = await json(['pool', 'refill', name, ...common, '--json']);
      expect(refilled.removed).toContain(orphan);
      expect(refilled.started).toHaveLength(1);
      expect(workerProcesses(home, orphan)).toEqual([]);
      expect((await poolStatus(name)).counts).toMatchObject({ ready: 1, starting: 0, dead: 0 });
      await json(['pool', 'stop', name, '--json']);
      await nothingLeft();
    },
    T,
  );
});
