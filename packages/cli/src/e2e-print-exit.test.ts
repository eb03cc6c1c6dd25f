/**
 * `umbel -p` exits once its answer is out (issue #37), on real tmux with the fake `claude` and the
 * built bin: the worker's removal and the pool's refill run in the detached `umbel pool finish
 * --detached`, which a gate holds here (a `--require`d preload waits in that process only while
 * `$FINISH_GATE` exists), so each test asserts what is true after `-p` returned and before its
 * teardown ran, never a duration. Also: a killed teardown is finished by `prune`, a refill that
 * fails shows in `pool status --json`, and back-to-back calls on a pool of 2 stay warm.
 */
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { UmbelRun, UmbelStart } from '../../../test-fixtures/real/umbel-helpers.mjs';
import { assertBuilt, cleanUp, processesOf, REPO_ROOT, testEnv, umbelRunner, until } from '../../../test-fixtures/real/umbel-helpers.mjs';

const T = 300_000;
let scratch: string;
let home: string;
let work: string;
let gate: string;
let failFlag: string;
let umbel: UmbelRun;
let startUmbel: UmbelStart;
/** The options every pool and call of this file share (so they match). */
let common: string[];

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs']);
  scratch = await realpath(await mkdtemp(join(tmpdir(), 'umbel-e2e-print-exit-')));
  home = join(scratch, 'state');
  work = join(scratch, 'project');
  const config = join(scratch, 'claude-config');
  gate = join(scratch, 'finish-gate');
  failFlag = join(scratch, 'fail-start');
  await mkdir(work, { recursive: true });
  await mkdir(config, { recursive: true });
  await writeFile(join(config, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, projects: { [work]: { hasTrustDialogAccepted: true } } }));
  // Holds the detached teardown (and nothing else) before it does anything, while the gate exists.
  const hold = join(scratch, 'hold-finish.cjs');
  await writeFile(
    hold,
    `const gate = process.env.FINISH_GATE;
if (gate && process.argv.includes('finish') && process.argv.includes('--detached')) {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  while (require('node:fs').existsSync(gate)) Atomics.wait(cell, 0, 0, 20);
}
`,
  );
  // The fake claude, failing at its start while the flag file exists.
  const wrapper = join(scratch, 'failing-claude');
  await writeFile(
    wrapper,
    `#!/bin/sh\nif [ -n "$FAIL_START" ] && [ -e "$FAIL_START" ]; then echo 'fake start failure'; exit 3; fi\nexec '${join(REPO_ROOT, 'test-fixtures/bin/claude')}' "$@"\n`,
  );
  await chmod(wrapper, 0o755);
  common = ['--env', `CLAUDE_CONFIG_DIR=${config}`, '--env', `FAIL_START=${failFlag}`];
  ({ run: umbel, start: startUmbel } = umbelRunner({
    cwd: work,
    env: testEnv({ home: scratch, umbelHome: home, UMBEL_CLAUDE_BIN: wrapper, NODE_OPTIONS: `--require ${hold}`, FINISH_GATE: gate }),
  }));
});

// A failed case leaves neither the gate, the start failure nor its pool to the next one.
afterEach(async () => {
  await rm(gate, { force: true });
  await rm(failFlag, { force: true });
  await umbel(['pool', 'stop']);
}, T);

afterAll(async () => {
  await rm(gate, { force: true });
  await rm(failFlag, { force: true });
  await umbel?.(['pool', 'stop']);
  await cleanUp({ workers: [umbel], reap: [scratch], remove: [scratch] });
}, T);

const json = async (args: string[]) => {
  const r = await umbel(args);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};
const poolStatus = async (name: string) => (await json(['pool', 'status', name, '--json']))[0];
/** Live detached teardowns of this state root. */
const finishers = () => processesOf({ envIncludes: [`UMBEL_HOME=${home}`] }).filter((p) => p.args.includes('pool finish --detached'));
const workerDirs = async () => (existsSync(join(home, 'workers')) ? (await readdir(join(home, 'workers'))).filter((n) => !n.startsWith('.')) : []);
const alive = async (worker: string) => (await json(['status', worker, '--json'])).alive === true;

async function startPool(size: number): Promise<string> {
  const pool = await json(['pool', 'start', '--size', String(size), ...common, '--json']);
  expect(pool.counts).toMatchObject({ ready: size });
  return pool.name;
}

async function nothingLeft(): Promise<void> {
  await until(() => finishers().length === 0, 'every detached teardown to end');
  await json(['pool', 'stop', '--json']);
  expect(await json(['ls', '--json'])).toEqual([]);
}

describe('umbel -p exits once its answer is out', () => {
  it(
    'cold: -p has exited with its answer while its worker is still there; the detached teardown then removes it',
    async () => {
      await writeFile(gate, '');
      const out = await umbel(['-p', 'ECHO cold answer', ...common, '--pool', 'none', '--output-format', 'json']);
      expect(out.code, out.stderr).toBe(0);
      const result = JSON.parse(out.stdout);
      expect(result).toMatchObject({ result: 'cold answer', is_error: false, worker: expect.stringMatching(/^anon-/) });
      // -p is gone; its worker is not yet, and the process that removes it is alive.
      expect(await workerDirs()).toContain(result.worker);
      expect(await alive(result.worker)).toBe(true);
      expect(finishers()).toHaveLength(1);
      await rm(gate);
      await until(async () => finishers().length === 0 && !(await workerDirs()).includes(result.worker), 'the teardown');
      await nothingLeft();
    },
    T,
  );

  it(
    'warm: the claimed worker outlives -p; the detached process takes its claim over, removes it and refills the pool',
    async () => {
      const name = await startPool(2);
      await writeFile(gate, '');
      const out = JSON.parse((await umbel(['-p', 'ECHO warm answer', ...common, '--output-format', 'json'])).stdout);
      expect(out).toMatchObject({ result: 'warm answer', worker: expect.stringMatching(new RegExp(`^${name}-`)) });
      expect(await alive(out.worker)).toBe(true);
      const [finisher] = finishers();
      expect(finisher).toBeDefined();
      await rm(gate);
      await until(async () => {
        const s = await poolStatus(name);
        return finishers().length === 0 && s.counts.ready === 2 && !s.refilling;
      }, 'the teardown and the refill');
      expect(await workerDirs()).not.toContain(out.worker);
      expect((await poolStatus(name)).workers.map((w: { worker: string }) => w.worker)).not.toContain(out.worker);
      await nothingLeft();
    },
    T,
  );

  it(
    'a teardown killed before it ran: status names the gone claimer, prune removes the worker (warm and cold)',
    async () => {
      const name = await startPool(1);
      await writeFile(gate, '');
      const warm = JSON.parse((await umbel(['-p', 'ECHO warm', ...common, '--output-format', 'json'])).stdout);
      const cold = JSON.parse((await umbel(['-p', 'ECHO cold', ...common, '--pool', 'none', '--output-format', 'json'])).stdout);
      expect(finishers()).toHaveLength(2);
      for (const p of finishers()) process.kill(p.pid, 'SIGKILL');
      await until(() => finishers().length === 0, 'the killed teardowns to be gone');
      await rm(gate);
      expect(await alive(warm.worker)).toBe(true);
      expect(await alive(cold.worker)).toBe(true);
      expect((await poolStatus(name)).workers).toEqual([
        {
          worker: warm.worker,
          state: 'dead',
          claimedBy: expect.any(Number),
          reason: expect.stringMatching(/^the process that claimed it \(pid \d+\) is gone$/),
        },
      ]);
      const pruned = await json(['prune', '--json']);
      expect(pruned.removed.sort()).toEqual([warm.worker, cold.worker].sort());
      expect(await workerDirs()).toEqual([]);
      expect((await poolStatus(name)).workers).toEqual([]);
      await nothingLeft();
    },
    T,
  );

  it(
    'a refill that fails is recorded: pool status --json names its error',
    async () => {
      const name = await startPool(1);
      await writeFile(failFlag, '');
      const out = JSON.parse((await umbel(['-p', 'ECHO then fail', ...common, '--output-format', 'json'])).stdout);
      expect(out).toMatchObject({ result: 'then fail', worker: expect.stringMatching(new RegExp(`^${name}-`)) });
      await until(() => finishers().length === 0, 'the detached process to end');
      const status = await poolStatus(name);
      expect(status).toMatchObject({ counts: { ready: 0 }, lastError: expect.stringContaining('fake start failure') });
      await rm(failFlag);
      await nothingLeft();
    },
    T,
  );

  it(
    'a refill handed over is in flight before its detached process has begun: the next call on the emptied pool waits for it and is warm',
    async () => {
      const name = await startPool(2);
      await writeFile(gate, '');
      // Two warm calls take both workers; their detached processes are held before they do anything.
      for (const i of [1, 2]) {
        const out = JSON.parse((await umbel(['-p', `ECHO held ${i}`, ...common, '--output-format', 'json'])).stdout);
        expect(out.worker).toMatch(new RegExp(`^${name}-`));
      }
      expect(finishers()).toHaveLength(2);
      expect((await poolStatus(name)).counts.ready).toBe(0);
      // No idle worker. The first call took the pool's refill lock before it exited and handed it to
      // its (held) detached process, so a refill is in flight: the third call waits for the worker it
      // starts instead of going cold. The gate opens once status shows that refill (or, without
      // one, once the third call has ended: cold).
      const third = startUmbel(['-p', 'ECHO third', ...common, '--output-format', 'json']);
      let ended = false;
      void third.done.then(() => {
        ended = true;
      });
      await until(async () => ended || (await poolStatus(name)).refilling === true, 'a refill in flight, or the third call to end');
      await rm(gate);
      const done = await third.done;
      expect(done.code, done.stderr).toBe(0);
      expect(JSON.parse(done.stdout)).toMatchObject({ result: 'third', worker: expect.stringMatching(new RegExp(`^${name}-`)) });
      await nothingLeft();
    },
    T,
  );

  it(
    'back to back on a pool of 2: at least 19 of 20 calls are warm (a refill in flight counts)',
    async () => {
      const name = await startPool(2);
      let warm = 0;
      for (let i = 0; i < 20; i++) {
        const out = JSON.parse((await umbel(['-p', `ECHO loop ${i}`, ...common, '--output-format', 'json'])).stdout);
        expect(out.result).toBe(`loop ${i}`);
        if (String(out.worker).startsWith(`${name}-`)) warm++;
      }
      expect(warm).toBeGreaterThanOrEqual(19);
      await nothingLeft();
    },
    T,
  );
});
