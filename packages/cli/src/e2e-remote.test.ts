/**
 * Workers on another host, end to end: the built `umbel` bin here, a real sshd on 127.0.0.1, and a
 * second state root standing in for the remote machine (its umbel runs the same built bin with its
 * own UMBEL_HOME and HOME), driving the fake `claude` there. See test-fixtures/ssh/.
 */
import { readdirSync, readlinkSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, environOf, eventually, processesOf, REPO_ROOT, workerProcesses } from '../../../test-fixtures/real/umbel-helpers.mjs';
import { type RemoteWorld, remoteWorld } from '../../../test-fixtures/ssh/remote-world.mjs';

const fakeClaude = join(REPO_ROOT, 'test-fixtures/bin/claude');
let world: RemoteWorld;
let claudeConfig: string;
type ChatMocks = { startChatMock(): Promise<{ url: string; close(): Promise<void> }> };
let chatMock: Awaited<ReturnType<ChatMocks['startChatMock']>> | undefined;

/** The spawn flags of a worker on `loop` (its cwd and the fake claude's config are paths there). */
const onLoop = () => ['--host', 'loop', '--cwd', world.remoteWork, '--env', `CLAUDE_CONFIG_DIR=${claudeConfig}`];

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs', 'packages/runtime/dist/index.js']);
  world = await remoteWorld({
    prefix: 'umbel-rmt-',
    remoteEnv: {
      UMBEL_CLAUDE_BIN: fakeClaude,
      UMBEL_COPILOT_BIN: join(REPO_ROOT, 'test-fixtures/bin/copilot'),
      UMBEL_QWEN_BIN: join(REPO_ROOT, 'test-fixtures/bin/qwen'),
    },
  });
  chatMock = await ((await import(join(REPO_ROOT, 'test-fixtures/mock-servers/openai-chat.mjs'))) as ChatMocks).startChatMock();
  claudeConfig = join(world.remoteUser, 'claude-config');
  const { mkdir, writeFile } = await import('node:fs/promises');
  await mkdir(claudeConfig, { recursive: true });
  await writeFile(
    join(claudeConfig, '.claude.json'),
    JSON.stringify({ hasCompletedOnboarding: true, projects: { [world.remoteWork]: { hasTrustDialogAccepted: true } } }),
  );
}, 120_000);

afterAll(async () => {
  await world?.cleanUp();
  await chatMock?.close();
}, 180_000);

/** Sample every process's argv (/proc/*\/cmdline) every 25 ms until stopped; report which needles were seen. */
function sampleArgv(needles: readonly string[]) {
  const seen = new Set<string>();
  let samples = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      for (const entry of await readdir('/proc')) {
        if (!/^\d+$/.test(entry)) continue;
        const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
        for (const needle of needles) if (cmdline.includes(needle)) seen.add(`${needle} in ${entry}: ${cmdline.replace(/\0/g, ' ').slice(0, 200)}`);
      }
      samples += 1;
      await new Promise((r) => setTimeout(r, 25));
    }
  })();
  return async () => {
    running = false;
    await loop;
    return { samples, leaks: [...seen] };
  };
}

/** Whether a process holds an inotify handle (fs.watch: a wait is watching), from /proc. */
function watching(pid: number): boolean {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === 'anon_inode:inotify';
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

/** Every file under `dir`, recursively (sockets and the like skipped by the read). */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) if (entry.isFile()) out.push(join(entry.parentPath, entry.name));
  return out;
}

describe('a confined worker on another host', () => {
  it(
    'spawn --host --sandbox makes the sandbox there (status shows it, a write beside its cwd fails); the config default reaches a --host spawn too',
    { timeout: 120_000 },
    async () => {
      const { existsSync } = await import('node:fs');
      const { writeFile } = await import('node:fs/promises');
      const spawned = await world.run(['spawn', 'rbox', ...onLoop(), '--sandbox', '--allowed-tools', 'Bash']);
      expect(spawned, spawned.stderr).toMatchObject({ code: 0, stdout: 'rbox\n' });
      const status = JSON.parse((await world.run(['status', 'rbox', '--json'])).stdout);
      expect(status).toMatchObject({ host: 'loop', sandbox: { enabled: true } });
      expect(status.sandbox.write).toContain(world.remoteWork);
      // the settings file is the host's, in the remote worker's dir
      expect(existsSync(join(world.remoteHome, 'workers', 'rbox', 'sandbox.json'))).toBe(true);
      expect(existsSync(join(world.localHome, 'workers', 'rbox'))).toBe(false);
      const outside = join(world.remoteUser, 'outside-rbox');
      const probe = `touch ${outside} 2>&1 || echo refused; touch made-inside && echo inside-ok`;
      expect((await world.run(['send', 'rbox', `TOOL ${probe}`])).code).toBe(0);
      const waited = await world.run(['wait', 'rbox', '--timeout', '60s', '--json']);
      expect(waited.code, waited.stderr).toBe(0);
      expect(JSON.parse(waited.stdout).result).toMatch(/refused[\s\S]*inside-ok/);
      expect(existsSync(outside)).toBe(false);
      expect(existsSync(join(world.remoteWork, 'made-inside'))).toBe(true);
      expect((await world.run(['kill', 'rbox', '--purge'])).code).toBe(0);

      // the local config file's sandbox default applies to a spawn on the host
      const config = join(world.root, 'config-sandbox.json');
      await writeFile(config, JSON.stringify({ ...JSON.parse(await readFile(world.config, 'utf8')), sandbox: true }), { mode: 0o600 });
      const dflt = await world.run(['spawn', 'rdflt', ...onLoop(), '--json'], { env: { UMBEL_CONFIG: config } });
      expect(dflt.code, dflt.stderr).toBe(0);
      expect(JSON.parse(dflt.stdout)).toMatchObject({ host: 'loop', sandbox: { enabled: true } });
      expect((await world.run(['kill', 'rdflt', '--purge'])).code).toBe(0);
    },
  );
});

describe('an isolated worker on another host', () => {
  it(
    'spawn --host --worktree makes the worktree there; status, diff --against base and kill --discard-worktree route to it',
    { timeout: 120_000 },
    async () => {
      const { execFileSync } = await import('node:child_process');
      const { mkdir, writeFile } = await import('node:fs/promises');
      const repo = join(world.remoteWork, 'repo');
      await mkdir(repo, { recursive: true });
      const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
      const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env: gitEnv, encoding: 'utf8' });
      git('init', '-q', '-b', 'main');
      await writeFile(join(repo, 'f.txt'), 'base\n');
      git('add', '.');
      git('commit', '-q', '-m', 'base');
      const flags = ['--host', 'loop', '--cwd', repo, '--env', `CLAUDE_CONFIG_DIR=${claudeConfig}`, '--worktree'];
      expect(await world.run(['spawn', 'rw', ...flags])).toMatchObject({ code: 0, stdout: 'rw\n' });
      const path = join(world.remoteHome, 'worktrees', 'rw');
      const status = JSON.parse((await world.run(['status', 'rw', '--json'])).stdout);
      expect(status).toMatchObject({ host: 'loop', cwd: path, worktree: { path, branch: 'umbel/rw', dirty: false, ahead: 0 } });
      await writeFile(join(path, 'f.txt'), 'changed on the host\n');
      const diff = JSON.parse((await world.run(['diff', 'rw', '--against', 'base', '--json'])).stdout);
      expect(diff).toMatchObject({ against: 'base', files: [{ path: 'f.txt', status: 'modified' }] });
      expect((await world.run(['kill', 'rw', '--purge'])).code).toBe(1);
      expect(await world.run(['kill', 'rw', '--discard-worktree'])).toMatchObject({ code: 0, stdout: 'purged: rw\n' });
      expect(await readdir(join(world.localHome, 'remote')).catch(() => [])).not.toContain('rw.json');
      // the checkout alone (the reserve's spare, under worktrees/.spares/, is no worker's: docs/cli.md)
      expect(git('worktree', 'list', '--porcelain').match(/^worktree (?!.*\/\.spares\/)/gm)).toHaveLength(1);
    },
  );
});

describe('a worker on another host, over ssh', () => {
  // The CLIs added last (fakes with the real ones' records): spawn there with the call's own env values
  // (passed by name: never on an argv), two turns, kill. Copilot's BYOK endpoint is never called by its fake.
  it.each([
    ['copilot', { COPILOT_PROVIDER_BASE_URL: 'http://127.0.0.1:9/v1' }],
    ['qwen', { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'chat-mock' }],
  ] as const)('--provider %s on a host: spawn, send, wait, read, kill', { timeout: 120_000 }, async (provider, values) => {
    const env = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v === 'chat-mock' ? (chatMock?.url as string) : v]));
    const envFlags = Object.keys(env).flatMap((k) => ['--env', k]);
    const name = `h-${provider}`;
    const spawned = await world.run(['spawn', name, '--provider', provider, '--host', 'loop', '--cwd', world.remoteWork, ...envFlags], { env });
    expect(spawned, spawned.stderr).toMatchObject({ code: 0, stdout: `${name}\n` });
    expect(JSON.parse((await world.remoteRun(['status', name, '--json'])).stdout)).toMatchObject({ name, provider });
    for (const [turn, text] of [
      [1, `ECHO ${provider} over ssh`],
      [2, 'ECHO line one\nline two'],
    ] as const) {
      expect(await world.run(['send', name, text])).toMatchObject({ code: 0, stdout: `${turn}\n` });
      expect(await world.run(['wait', name, '--timeout', '60s'])).toMatchObject({ code: 0, stdout: `${text.slice(5)}\n` });
    }
    expect(await world.run(['read', name, '--turn', '1'])).toMatchObject({ code: 0, stdout: `${provider} over ssh\n` });
    expect(await world.run(['kill', name, '--purge'])).toMatchObject({ code: 0, stdout: `purged: ${name}\n` });
  });

  it('spawn --host → send → wait → read → kill, every verb after spawn routed with no flag', { timeout: 120_000 }, async () => {
    expect(await world.run(['spawn', 'r1', ...onLoop()])).toMatchObject({ code: 0, stdout: 'r1\n' });
    // It lives on the remote state root; here there is only the record of where.
    expect(await readdir(join(world.remoteHome, 'workers'))).toContain('r1');
    expect(await readdir(join(world.localHome, 'remote'))).toEqual(['r1.json']);
    expect(await world.run(['send', 'r1', 'ECHO answered over ssh'])).toMatchObject({ code: 0, stdout: '1\n' });
    expect(await world.run(['wait', 'r1', '--timeout', '60s'])).toMatchObject({ code: 0, stdout: 'answered over ssh\n' });
    expect(await world.run(['read', 'r1'])).toMatchObject({ code: 0, stdout: 'answered over ssh\n' });
    const status = JSON.parse((await world.run(['status', 'r1', '--json'])).stdout);
    expect(status).toMatchObject({ name: 'r1', host: 'loop', state: 'ready', completedTurn: 1, cwd: world.remoteWork });
    expect((await world.run(['capture', 'r1'])).code).toBe(0);
    expect((await world.run(['logs', 'r1'])).stdout).toMatch(/sent/);
    // The remote machine's own umbel sees the same worker.
    expect(JSON.parse((await world.remoteRun(['status', 'r1', '--json'])).stdout)).toMatchObject({ name: 'r1', completedTurn: 1 });
    expect(await world.run(['kill', 'r1', '--purge'])).toMatchObject({ code: 0, stdout: 'purged: r1\n' });
    expect(await readdir(join(world.localHome, 'remote'))).toEqual([]);
    expect(JSON.parse((await world.remoteRun(['ls', '--json'])).stdout)).toEqual([]);
    // One shared connection per host, kept for the next call.
    expect(world.masters()).toHaveLength(1);
  });

  it('ls lists this machine and the host, with a HOST column; a host that does not answer is named, never dead', { timeout: 120_000 }, async () => {
    const { writeFile, mkdir } = await import('node:fs/promises');
    const localConfig = join(world.localUser, 'claude-config');
    await mkdir(localConfig, { recursive: true });
    await writeFile(
      join(localConfig, '.claude.json'),
      JSON.stringify({ hasCompletedOnboarding: true, projects: { [world.localWork]: { hasTrustDialogAccepted: true } } }),
    );
    expect((await world.run(['spawn', 'here', '--env', `CLAUDE_CONFIG_DIR=${localConfig}`], { env: { UMBEL_CLAUDE_BIN: fakeClaude } })).code).toBe(0);
    expect((await world.run(['spawn', 'there', ...onLoop()])).code).toBe(0);
    const table = await world.run(['ls']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^NAME\s+PROVIDER\s+STATE\s+TURN\s+MODEL\s+CWD\s+HOST\s+CREATED/);
    expect(table.stdout).toMatch(/\nhere\s+claude\s+ready\s+0\/0\s+\S+\s+\S+\s+local\s/);
    expect(table.stdout).toMatch(/\nthere\s+claude\s+ready\s+0\/0\s+\S+\s+\S+\s+loop\s/);
    // `down` listens nowhere: said on stderr, with ssh's reason.
    expect(table.stderr).toMatch(/host down is unreachable \(.*Connection refused\)/);
    const listed = JSON.parse((await world.run(['ls', '--json'])).stdout).map((w: { name: string; host?: string }) => [w.name, w.host ?? null]);
    expect(listed).toEqual([
      ['here', null],
      ['there', 'loop'],
    ]);

    // The host goes away: its worker is unreachable with the reason, and nothing is pruned.
    await world.drop();
    const dark = await world.run(['ls', '--json']);
    expect(dark.code).toBe(0);
    const there = JSON.parse(dark.stdout).find((w: { name: string }) => w.name === 'there');
    expect(there).toMatchObject({ state: 'unreachable', alive: false, host: 'loop', unreachable: { reason: expect.stringMatching(/refused|closed|reset/) } });
    expect((await world.run(['ls'])).stdout).toMatch(/\nthere\s+claude\s+unreachable\s/);
    const pruned = await world.run(['prune']);
    expect(pruned.stderr).toMatch(/host loop is unreachable/);
    expect(await world.run(['send', 'there', 'ECHO x'])).toMatchObject({ code: 120, stderr: expect.stringMatching(/host 'loop' is unreachable/) });
    await world.restart();
    expect(JSON.parse((await world.run(['status', 'there', '--json'])).stdout)).toMatchObject({ state: 'ready', host: 'loop' });
    for (const name of ['here', 'there']) expect((await world.run(['kill', name, '--purge'])).code).toBe(0);
  });

  it('an --env value and a prompt never appear on any argv, here or there, and the env value is on no disk', { timeout: 120_000 }, async () => {
    const token = Math.random().toString(36).slice(2, 10);
    const envCanary = `env-canary-${token}-it's "q" $(id)`;
    const promptCanary = `prompt-canary-${token}`;
    const stop = sampleArgv([`env-canary-${token}`, promptCanary]);
    const spawned = await world.run(['spawn', 'sec', ...onLoop(), '--env', 'UMBEL_REMOTE_CANARY'], { env: { UMBEL_REMOTE_CANARY: envCanary } });
    const sent = await world.run(['send', 'sec', '-'], { input: `ECHO ${promptCanary}` });
    const { samples, leaks } = await stop();
    expect(leaks).toEqual([]);
    // the sampler looked several times while they ran (about a second, now that the test sshd runs no
    // shell rc: 8 looks were seen once, so 10 was a bound on the machine's speed, not on the check)
    expect(samples).toBeGreaterThan(2);
    expect(spawned.code, spawned.stderr).toBe(0);
    expect(sent).toMatchObject({ code: 0, stdout: '1\n' });
    // It did reach the worker there, byte-exact, through the remote umbel's own hand-over.
    // (a process of the worker's that ended since it was listed — a hook's — has no environ to read)
    const environs = workerProcesses(world.remoteHome, 'sec').flatMap((p: { pid: number }) => {
      try {
        return [environOf(p.pid)];
      } catch {
        return [];
      }
    });
    expect(environs.length, 'the remote worker process').toBeGreaterThan(0);
    expect(environs.map((e) => e.UMBEL_REMOTE_CANARY)).toContain(envCanary);
    expect(await world.run(['wait', 'sec'])).toMatchObject({ code: 0, stdout: `${promptCanary}\n` });
    for (const file of [...(await filesUnder(world.localHome)), ...(await filesUnder(world.remoteHome))]) {
      const text = await readFile(file, 'utf8').catch(() => '');
      expect(text.includes(`env-canary-${token}`), file).toBe(false);
    }
    expect((await world.run(['kill', 'sec', '--purge'])).code).toBe(0);
  });

  it('umbel -p --host answers from the host and leaves no worker there', { timeout: 120_000 }, async () => {
    const printed = await world.run(['-p', 'ECHO printed from the host', ...onLoop()]);
    expect(printed).toMatchObject({ code: 0, stdout: 'printed from the host\n' });
    expect(JSON.parse((await world.remoteRun(['ls', '--json'])).stdout)).toEqual([]);
    expect(await readdir(join(world.localHome, 'remote'))).toEqual([]);
    const json = JSON.parse((await world.run(['-p', 'ECHO as json', '--output-format', 'json', ...onLoop()])).stdout);
    expect(json).toMatchObject({ type: 'result', is_error: false, result: 'as json' });
  });

  it('a host that drops mid-wait: host-unreachable (120), the worker lives on; wait again once it is back → the answer', { timeout: 180_000 }, async () => {
    const gate = join(world.remoteWork, 'gate');
    expect((await world.run(['spawn', 'drop', ...onLoop()])).code).toBe(0);
    // A turn that runs until the test opens the gate (the fake's TUI allows the tool).
    expect((await world.run(['send', 'drop', `TOOL until [ -e ${gate} ]; do sleep 0.1; done; echo opened`])).code).toBe(0);
    const waiting = world.start(['wait', 'drop', '--json', '--timeout', '120s']);
    // The remote umbel serving the wait: `umbel rpc` with the remote state root, once it watches the worker's files.
    const rpcOfWait = () => processesOf({ envIncludes: [`UMBEL_HOME=${world.remoteHome}`] }).filter((p) => /umbel\.js rpc$/.test(p.args));
    expect(await eventually(() => rpcOfWait().some((p) => watching(p.pid)), { timeoutMs: 60_000 }), 'the wait runs on the host').toBe(true);
    await world.drop();
    const dropped = await waiting.done;
    expect(dropped.code, dropped.stderr).toBe(120);
    expect(JSON.parse(dropped.stdout)).toMatchObject({ worker: 'drop', reason: 'host-unreachable', exitCode: 120, turn: 1, provider: 'claude' });
    // The wait on the host ended with its connection: nothing of it is left running there.
    expect(await eventually(() => rpcOfWait().length === 0, { timeoutMs: 30_000 }), 'the remote rpc ended').toBe(true);
    // The worker itself kept running there.
    expect(workerProcesses(world.remoteHome, 'drop').length).toBeGreaterThan(0);
    const { writeFile } = await import('node:fs/promises');
    await writeFile(gate, '');
    await world.restart();
    const again = await world.run(['wait', 'drop', '--json', '--timeout', '60s']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ reason: 'completed', turn: 1, result: 'TOOL-RESULT: opened' });
    expect((await world.run(['kill', 'drop', '--purge'])).code).toBe(0);
  });

  it(
    'clear errors: unknown host, unreachable host, no umbel on the host, an umbel there too old for rpc, a CLI missing there',
    { timeout: 120_000 },
    async () => {
      expect(await world.run(['spawn', 'x', '--host', 'nowhere'])).toMatchObject({
        code: 2,
        stderr: expect.stringContaining("unknown host 'nowhere' (configured: loop, down, nocmd, old)"),
      });
      const down = await world.run(['spawn', 'x', '--host', 'down']);
      expect(down).toMatchObject({ code: 120, stderr: expect.stringMatching(/host 'down' is unreachable: .*Connection refused/) });
      const nocmd = await world.run(['spawn', 'x', '--host', 'nocmd']);
      expect(nocmd.code).toBe(1);
      expect(nocmd.stderr).toMatch(new RegExp(`host 'nocmd' cannot run '${world.root}/no-such-dir/umbel': .*(not found|No such file)`));
      const old = await world.run(['spawn', 'x', '--host', 'old', '--json']);
      expect(old.code).toBe(1);
      expect(JSON.parse(old.stdout).error).toMatchObject({ code: 'UMBEL_HOST_INCOMPATIBLE', message: expect.stringContaining('umbel 0.0.9') });
      const noCli = await world.run(['spawn', 'x', '--host', 'loop', '--provider', 'codex'], {});
      expect(noCli.code).toBe(1);
      expect(noCli.stderr).toMatch(/host loop: .*`codex`.*not found/);
      // Nothing was left claimed by the failures.
      expect(await readdir(join(world.localHome, 'remote'))).toEqual([]);
    },
  );
});
