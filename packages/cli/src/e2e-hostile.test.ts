// Hostile input on the CLI face (issue 38): durations beyond a timer, a state root that is no
// directory, a read-only worker, named pipes in the state, killed sends and -p runs, a tmux server
// killed under its workers. Fake claude on real tmux, one private state root per file.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UmbelRun, UmbelStart } from '../../../test-fixtures/real/umbel-helpers.mjs';
import { assertBuilt, cleanUp, REPO_ROOT, testEnv, umbelRunner, workerProcesses } from '../../../test-fixtures/real/umbel-helpers.mjs';
import { createTmuxSubstrate } from '@umbel/tmux';

const fakeClaude = join(REPO_ROOT, 'test-fixtures/bin/claude');
let scratch: string;
let home: string;
let work: string;
let config: string;
let umbel: UmbelRun;
let startUmbel: UmbelStart;
let env: Record<string, string>;

const cfg = () => ['--env', `CLAUDE_CONFIG_DIR=${config}`];

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs']);
  scratch = await mkdtemp(join(tmpdir(), 'umbel-e2e-hostile-'));
  home = join(scratch, 'state');
  work = join(scratch, 'project');
  config = join(scratch, 'claude-config');
  await mkdir(work, { recursive: true });
  await mkdir(config, { recursive: true });
  await writeFile(join(config, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, projects: { [work]: { hasTrustDialogAccepted: true } } }));
  env = testEnv({ home: scratch, umbelHome: home, UMBEL_CLAUDE_BIN: fakeClaude });
  ({ run: umbel, start: startUmbel } = umbelRunner({ cwd: work, env }));
});

afterAll(() => cleanUp({ workers: [umbel], reap: [scratch], remove: [scratch] }));

describe('durations', () => {
  it.each([
    ['spawn', ['spawn', 'dur', '--startup-timeout', '999999999999999h']],
    ['-p', ['-p', 'ECHO hi', '--startup-timeout', '999999999999999h']],
    ['-p --timeout', ['-p', 'ECHO hi', '--timeout', '999999999999999h']],
    ['pool start', ['pool', 'start', 'p1', '--size', '1', '--startup-timeout', '999999999999999h']],
    ['wait', ['wait', 'dur', '--timeout', '999999999999999h']],
  ])('a duration past a year is a usage error on %s (exit 2), never a RangeError', async (_face, args) => {
    const result = await umbel(args);
    expect(result.stderr).toContain('too long a duration');
    expect(result.stderr).not.toMatch(/RangeError|internal error/);
    expect(result.code).toBe(2);
  });
});

describe('a state root that is no directory', () => {
  it.each([
    ['a dangling symlink', (path: string) => symlink(join(scratch, 'nowhere'), path), 'dangling symbolic link'],
    ['a symlink loop', (path: string) => symlink(path, path), 'symbolic link loop'],
    ['a regular file', (path: string) => writeFile(path, 'x'), 'not a directory'],
  ])('%s is a typed error naming it on spawn and ls', async (_what, plant, reason) => {
    const root = join(scratch, `root-${reason.replace(/\W+/g, '-')}`);
    await plant(root);
    try {
      for (const args of [['spawn', 'w1', ...cfg()], ['ls']]) {
        const result = await umbel(args, { env: { UMBEL_HOME: root } });
        expect(result.stderr, args.join(' ')).toContain(root);
        expect(result.stderr).toContain(reason);
        expect(result.stderr).not.toMatch(/internal error/);
        expect(result.code).toBe(1);
      }
    } finally {
      await rm(root, { force: true });
    }
  });
});

/** Poll `check` every 50 ms until it holds (30 s bound, then fail naming `what`). */
async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

type Listed = { name: string; state: string; anonymous: boolean; alive: boolean };
const listed = async (): Promise<Listed[]> => JSON.parse((await umbel(['ls', '--json'])).stdout || '[]') as Listed[];

describe('a killed umbel -p', () => {
  it('leaves an anonymous worker that prune removes once the -p process is gone', async () => {
    const print = startUmbel(['-p', 'DELAY 60000 never', ...cfg()]);
    let anon: Listed | undefined;
    await until(async () => {
      anon = (await listed()).find((w) => w.anonymous && w.state === 'busy');
      return anon !== undefined;
    }, 'the -p worker to be busy');
    print.child.kill('SIGKILL');
    await print.done;
    const pruned = JSON.parse((await umbel(['prune', '--json'])).stdout) as { removed: string[] };
    expect(pruned.removed).toContain(anon?.name);
    expect((await listed()).map((w) => w.name)).not.toContain(anon?.name);
  });

  it('prune keeps the anonymous worker of a -p that still runs', async () => {
    const print = startUmbel(['-p', 'DELAY 60000 never', ...cfg()]);
    try {
      let anon: Listed | undefined;
      await until(async () => {
        anon = (await listed()).find((w) => w.anonymous && w.state === 'busy');
        return anon !== undefined;
      }, 'the -p worker to be busy');
      const pruned = JSON.parse((await umbel(['prune', '--json'])).stdout) as { removed: string[] };
      expect(pruned.removed).not.toContain(anon?.name);
    } finally {
      print.child.kill('SIGTERM');
      await print.done;
    }
  });
});

describe('after the tmux server is killed', () => {
  /** A worker whose tool left a process running on its own (nohup, backgrounded): it outlives the server. */
  async function workerWithTool(name: string): Promise<void> {
    expect((await umbel(['spawn', name, ...cfg(), '--allowed-tools', 'Bash'])).code).toBe(0);
    await umbel(['send', name, `TOOL nohup sleep 301 >/dev/null 2>&1 &`]);
    expect((await umbel(['wait', name])).code).toBe(0);
    expect(workerProcesses(home, name).filter((p) => p.args.startsWith('sleep 301'))).toHaveLength(1);
  }
  const killServer = () => createTmuxSubstrate({ home, env }).killServer();

  it("kill --purge ends the worker's tool processes (found by their mark, not by a session)", async () => {
    await workerWithTool('ks1');
    await killServer();
    expect(workerProcesses(home, 'ks1').length).toBeGreaterThan(0);
    expect((await umbel(['kill', 'ks1', '--purge'])).code).toBe(0);
    expect(workerProcesses(home, 'ks1')).toEqual([]);
  });

  it("prune ends the worker's tool processes", async () => {
    await workerWithTool('ks2');
    await killServer();
    expect((await umbel(['prune'])).code).toBe(0);
    expect(workerProcesses(home, 'ks2')).toEqual([]);
  });
});

describe('named pipes in the state', () => {
  // A verb that opened one blocking would hang until the test's timeout; each is run to its end here.
  it('a FIFO in events/ (the agent can mkfifo there) never hangs status, ls, send, wait or read', async () => {
    expect((await umbel(['spawn', 'fifo1', ...cfg()])).code).toBe(0);
    execFileSync('mkfifo', [join(home, 'workers', 'fifo1', 'events', '1764000000000000000-1-stop.json')]);
    const status = JSON.parse((await umbel(['status', 'fifo1', '--json'])).stdout) as { state: string; problems?: { message: string }[] };
    expect(status.state).toBe('ready');
    expect(status.problems?.map((p) => p.message).join('\n')).toContain('named pipe');
    expect((await umbel(['ls'])).code).toBe(0);
    expect((await umbel(['send', 'fifo1', 'ECHO through'])).code).toBe(0);
    expect(await umbel(['wait', 'fifo1'])).toMatchObject({ code: 0, stdout: 'through\n' });
    expect((await umbel(['read', 'fifo1'])).stdout).toBe('through\n');
  });

  it('a FIFO as meta.json makes the worker corrupt, naming it; kill --purge still ends it', async () => {
    expect((await umbel(['spawn', 'fifo2', ...cfg()])).code).toBe(0);
    const meta = join(home, 'workers', 'fifo2', 'meta.json');
    await rm(meta);
    execFileSync('mkfifo', [meta]);
    const status = await umbel(['status', 'fifo2', '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ state: 'corrupt', corrupt: { path: meta } });
    expect((await umbel(['send', 'fifo2', 'ECHO x'])).code).toBe(1);
    expect((await umbel(['kill', 'fifo2', '--purge'])).code).toBe(0);
    expect(workerProcesses(home, 'fifo2')).toEqual([]);
  });

  it('a FIFO as UMBEL_CONFIG is a config error naming it (exit 2)', async () => {
    const pipe = join(scratch, 'config-pipe.json');
    execFileSync('mkfifo', [pipe]);
    const result = await umbel(['ls'], { env: { UMBEL_CONFIG: pipe } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(pipe);
    expect(result.stderr).toContain('named pipe');
  });
});

describe('a killed umbel send', () => {
  it('never blocks the next send, and its turn never takes the next answer', async () => {
    // The CLI swallows its first Enter, so the send holds the lock (waiting to confirm, then pressing
    // Enter again) long enough to be seen holding it, on a loaded machine too.
    expect((await umbel(['spawn', 'ksend', ...cfg(), '--env', 'FAKE_CLAUDE_DROP_FIRST_ENTER=1'])).code).toBe(0);
    // Killed once it holds the lock and has recorded its turn (before the CLI took the prompt).
    const lock = join(home, 'workers', 'ksend', 'send.lock');
    const send = startUmbel(['send', 'ksend', 'ECHO dead turn']);
    await until(() => existsSync(join(lock, 'owner')), 'the send to hold the lock');
    send.child.kill('SIGKILL');
    await send.done;
    const next = await umbel(['send', 'ksend', 'ECHO next turn', '--json']);
    expect(next.code).toBe(0);
    const turn = (JSON.parse(next.stdout) as { turn: number }).turn;
    expect(await umbel(['wait', 'ksend', '--turn', String(turn)])).toMatchObject({ code: 0, stdout: 'next turn\n' });
  });
});
