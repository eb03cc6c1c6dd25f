/**
 * Faults the substrate must survive (issue 16): a state root behind a symlink that does not exist yet,
 * tool processes orphaned by a killed CLI, a tmux that does not answer, and kills racing each other.
 * All on real tmux, each rig on its own private socket.
 */
import { mkdir, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { UmbelErrorCode } from '@umbel/core';
import { afterEach, describe, expect, it } from 'vitest';
import { alive, baseEnv, makeRig, markedPids, markOf, reapMarked, STALL_SHIM, tempDir, until, type Rig } from './__fixtures__/harness.js';
import { createTmuxSubstrate, type TmuxSubstrate, type TmuxSubstrateSettings } from './index.js';

const rigs: Rig[] = [];
const dirs: string[] = [];
const extraSubstrates: TmuxSubstrate[] = [];
afterEach(async () => {
  for (const substrate of extraSubstrates.splice(0)) {
    for (const session of await substrate.list().catch(() => [])) await substrate.kill(session).catch(() => undefined);
    await reapMarked(substrate.socket);
  }
  for (const rig of rigs.splice(0)) await rig.cleanup();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function rig(options: Parameters<typeof makeRig>[0] = {}): Promise<Rig> {
  const made = await makeRig(options);
  rigs.push(made);
  return made;
}

async function dir(prefix: string): Promise<string> {
  const made = await tempDir(prefix);
  dirs.push(made);
  return made;
}

function substrateOver(settings: TmuxSubstrateSettings): TmuxSubstrate {
  const made = createTmuxSubstrate(settings);
  extraSubstrates.push(made);
  return made;
}

/** A launch with a sh script as the worker. */
function shLaunch(substrate: TmuxSubstrate, home: string, session: string, script: string, args: string[] = []) {
  return substrate.launch({
    session,
    cwd: home,
    argv: ['/bin/sh', '-c', script, 'worker', ...args],
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home },
    exitRecordDir: join(home, 'events'),
  });
}

describe('a state root behind a symlink whose target does not exist yet', () => {
  it.each([
    ['the root itself is a dangling symlink', 'link', ''],
    ['the root lies below an existing symlink and is not created yet', 'link', 'state/umbel'],
  ])('%s: a substrate made before and one made after the root exists share one socket', async (_name, linkName, below) => {
    const scratch = await dir('umbel-tmux-symroot-');
    const target = join(scratch, 'target');
    await symlink(target, join(scratch, linkName));
    if (below !== '') await mkdir(target);
    const home = below === '' ? join(scratch, linkName) : join(scratch, linkName, below);
    const tmuxTmp = await dir('umbel-tmux-sock-');
    const env = baseEnv({ TMUX_TMPDIR: tmuxTmp });
    // The first substrate is made while the root does not exist (as spawn does before creating it).
    const first = substrateOver({ home, env, callTimeoutMs: 15_000 });
    await mkdir(below === '' ? target : join(target, below), { recursive: true });
    await shLaunch(first, home, 'umbel-sym', 'exec sleep 1000');
    // Every later call (status, kill, prune) makes its substrate after the root exists.
    const later = substrateOver({ home, env, callTimeoutMs: 15_000 });
    expect(later.socket).toBe(first.socket);
    expect(await later.list()).toEqual(['umbel-sym']);
    expect(await later.inspect('umbel-sym')).toMatchObject({ exists: true, dead: false });
    await later.kill('umbel-sym');
    expect(await first.list()).toEqual([]);
  });
});

describe('orphaned tool processes', () => {
  /**
   * A worker that starts "tool" processes the way a CLI's shell tool does: a shell that backgrounds
   * work and outlives the terminal's hangup (one of its jobs deaf to TERM too), and a job in a session
   * of its own. It records their pids, then waits.
   */
  const TOOLS = [
    'echo $$ > "$2.tmp" && mv "$2.tmp" "$2"',
    'sh -c \'trap "" HUP; sleep 300 & echo $! >> "$1"; (trap "" TERM; exec sleep 301) & echo $! >> "$1"; wait\' tool "$1" &',
    'setsid sleep 302 & echo $! >> "$1"; wait',
  ].join('\n');

  /** Launch TOOLS; the worker's pid, then its three sleeps' (the tool shell itself is not recorded). */
  async function launchTools(r: Rig, substrate: TmuxSubstrate, session: string): Promise<number[]> {
    const scratch = await dir('umbel-tmux-orphans-');
    const pids = join(scratch, 'pids');
    const worker = join(scratch, 'worker');
    await shLaunch(substrate, r.home, session, TOOLS, [pids, worker]);
    const workerPid = Number(await until(async () => (await readFile(worker, 'utf8').catch(() => '')).trim() || undefined));
    const sleeps = await until(async () => {
      const list = (await readFile(pids, 'utf8').catch(() => '')).trim().split('\n').filter(Boolean).map(Number);
      return list.length >= 3 ? list : undefined;
    });
    return [workerPid, ...sleeps];
  }

  it.each([
    ['the pane process (launch wrapper)', 'pane'],
    ['the CLI itself', 'worker'],
  ])('after SIGKILL of %s, processTree still reports the orphans and kill ends every marked process', async (_name, victim) => {
    const r = await rig();
    const session = 'umbel-orph';
    const mark = markOf(r, session);
    const pids = await launchTools(r, r.substrate, session);
    // Bystanders: another session on this socket, and the same session name on another socket.
    await launchTools(r, r.substrate, 'umbel-orph-other');
    const other = await rig();
    await launchTools(other, other.substrate, session);
    const bystanders = [...(await markedPids(markOf(r, 'umbel-orph-other'))), ...(await markedPids(markOf(other, session)))];
    expect(bystanders.length).toBeGreaterThanOrEqual(10);

    const pane = (await r.substrate.inspect(session)).pid!;
    const killed = victim === 'pane' ? pane : pids[0]!;
    process.kill(killed, 'SIGKILL');
    await until(async () => !(await alive(killed)));
    // The tools outlive the CLI and the pane (the hangup may end the worker's own shell).
    const tools = pids.slice(1);
    for (const pid of tools) expect(await alive(pid), `tool ${pid} runs on`).toBe(true);
    const orphans = [...tools, ...((await alive(pids[0]!)) ? [pids[0]!] : [])];

    // Yet they are part of the session's processes, and nothing of the bystanders is. The worker's
    // shell may still be ending of the hangup: it is in the tree, or gone by then.
    const tree = await r.substrate.processTree(session);
    for (const pid of tools) expect(tree).toContain(pid);
    if (!tree.includes(pids[0]!)) expect(await alive(pids[0]!), 'a worker shell missing from the tree is gone').toBe(false);
    for (const pid of bystanders) expect(tree).not.toContain(pid);

    await r.substrate.kill(session);
    expect(await markedPids(mark)).toEqual([]);
    for (const pid of orphans) expect(await alive(pid), `orphan ${pid}`).toBe(false);
    for (const pid of bystanders) expect(await alive(pid), `bystander ${pid}`).toBe(true);
    expect(await r.substrate.processTree(session)).toEqual([]);
  });
});

describe('a tmux that does not answer (test-fixtures/bin/tmux-stall)', () => {
  /** A substrate over `r`'s socket through the stall shim with `rules`, and its calls.log. */
  async function stalling(r: Rig, rules: string, via: 'setting' | 'env' = 'setting') {
    const stallDir = join(await dir('umbel-tmux-stall-'), 'state');
    const env = { ...r.env, UMBEL_TMUX_STALL: rules, UMBEL_TMUX_STALL_DIR: stallDir, UMBEL_TMUX_STALL_SECONDS: STALL_SECONDS };
    const substrate = createTmuxSubstrate({
      home: r.home,
      env: via === 'env' ? { ...env, UMBEL_TMUX_BIN: STALL_SHIM } : env,
      callTimeoutMs: 2000,
      ...(via === 'setting' ? { tmuxBin: STALL_SHIM } : {}),
    });
    const log = async () => (await readFile(join(stallDir, 'calls.log'), 'utf8').catch(() => '')).trim().split('\n');
    return { substrate, log };
  }

  it('inspect, list, capture and processTree are tried again after an unanswered call', async () => {
    const r = await rig();
    await shLaunch(r.substrate, r.home, 'umbel-slow', 'echo slow-ready; exec sleep 1000');
    await until(async () => (await r.substrate.capture('umbel-slow')).includes('slow-ready'));
    const { substrate, log } = await stalling(r, 'list-panes:2,list-sessions:1,capture-pane:2', 'env');
    expect(await substrate.inspect('umbel-slow')).toMatchObject({ exists: true, dead: false });
    expect(await substrate.list()).toEqual(['umbel-slow']);
    expect(await substrate.capture('umbel-slow')).toContain('slow-ready');
    expect((await substrate.processTree('umbel-slow')).length).toBeGreaterThanOrEqual(2);
    const lines = await log();
    expect(lines.filter((line) => line === 'stall list-panes')).toHaveLength(2);
    expect(lines.filter((line) => line === 'stall list-sessions')).toHaveLength(1);
    expect(lines.filter((line) => line === 'stall capture-pane')).toHaveLength(2);
    expect(lines).toContain('pass capture-pane');
  });

  it('kill survives a stalled list-panes and a stalled kill-session', async () => {
    const r = await rig();
    await shLaunch(r.substrate, r.home, 'umbel-slowkill', 'trap "" TERM HUP; sleep 1000 & wait');
    const tree = await until(async () => {
      const t = await r.substrate.processTree('umbel-slowkill');
      return t.length >= 3 ? t : undefined;
    });
    const { substrate, log } = await stalling(r, 'list-panes:1,kill-session:1');
    await substrate.kill('umbel-slowkill');
    for (const pid of tree) expect(await alive(pid), `pid ${pid}`).toBe(false);
    expect(await r.substrate.list()).toEqual([]);
    expect(await log()).toEqual(expect.arrayContaining(['stall list-panes', 'stall kill-session', 'pass kill-session']));
  });

  it('gives up after the retries, and never repeats what types or launches', async () => {
    const r = await rig();
    await shLaunch(r.substrate, r.home, 'umbel-hung', 'exec sleep 1000');
    const { substrate, log } = await stalling(r, 'capture-pane:*,send-keys:1,new-session:1');
    await expect(substrate.capture('umbel-hung')).rejects.toMatchObject({ code: UmbelErrorCode.TmuxTimeout });
    await expect(substrate.typeText('umbel-hung', 'x')).rejects.toMatchObject({ code: UmbelErrorCode.TmuxTimeout });
    await expect(shLaunch(substrate, r.home, 'umbel-hung-2', 'exec sleep 1000')).rejects.toMatchObject({ code: UmbelErrorCode.TmuxTimeout });
    const lines = await log();
    expect(lines.filter((line) => line.endsWith(' capture-pane'))).toEqual(['stall capture-pane', 'stall capture-pane', 'stall capture-pane']);
    expect(lines.filter((line) => line.endsWith(' send-keys'))).toEqual(['stall send-keys']);
    expect(lines.filter((line) => line.includes('new-session'))).toEqual(['stall load-buffer;set-option;set-option;set-option;new-session']);
    // timeoutRetries: 0 is one attempt.
    const once = createTmuxSubstrate({
      home: r.home,
      env: {
        ...r.env,
        UMBEL_TMUX_STALL: 'list-sessions:1',
        UMBEL_TMUX_STALL_DIR: join(await dir('umbel-tmux-stall-'), 's'),
        UMBEL_TMUX_STALL_SECONDS: STALL_SECONDS,
      },
      tmuxBin: STALL_SHIM,
      callTimeoutMs: 2000,
      timeoutRetries: 0,
    });
    await expect(once.list()).rejects.toMatchObject({ code: UmbelErrorCode.TmuxTimeout });
    expect(await once.list()).toEqual(['umbel-hung']);
    // The shim's sleeping clients went with their process groups.
    await until(async () => (await stallSleeps()).length === 0);
  });
});

/** How long the shim stalls here: a value no other process's `sleep` is likely to use. */
const STALL_SECONDS = '61.25';

/** The shim's `sleep STALL_SECONDS` processes still running. */
async function stallSleeps(): Promise<number[]> {
  const out: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    if (cmdline === `sleep\u0000${STALL_SECONDS}\u0000` && (await alive(Number(name)))) out.push(Number(name));
  }
  return out;
}

describe('concurrent kills', () => {
  it('of one session all succeed, also when the kill ends the server', async () => {
    const r = await rig();
    const s = r.substrate;
    const errors = (settled: PromiseSettledResult<unknown>[]) =>
      settled.filter((k): k is PromiseRejectedResult => k.status === 'rejected').map((k) => String(k.reason));
    for (let round = 0; round < 8; round += 1) {
      // Even rounds: the session is the server's only one, so the kill also ends the server.
      await shLaunch(s, r.home, 'umbel-race', 'exec sleep 1000');
      if (round % 2 === 1) await shLaunch(s, r.home, 'umbel-race-keep', 'exec sleep 1000');
      const kills = Array.from({ length: 6 }, () => s.kill('umbel-race'));
      // Reads racing the teardown read "gone", never an error.
      const reads = [s.list(), s.inspectAll(), s.inspect('umbel-race'), s.processTree('umbel-race')];
      expect(errors(await Promise.allSettled([...kills, ...reads]))).toEqual([]);
      expect(await s.inspect('umbel-race')).toEqual({ exists: false, dead: true });
      expect(await s.list()).toEqual(round % 2 === 1 ? ['umbel-race-keep'] : []);
      await s.kill('umbel-race-keep');
    }
  });
});
