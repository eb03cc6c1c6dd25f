/**
 * Confined workers end to end on real tmux: `spawn --sandbox` on the fake `claude` wraps it in
 * srt (bubblewrap + socat here). Its shell tool writes inside its cwd but not beside it, cannot read
 * a planted ~/.ssh key, cannot reach a local http server it was not allowed; hooks still arrive (the
 * turns complete); no env value is on srt's command line or in its settings; kill leaves no srt
 * helper running; without bubblewrap `--sandbox` is refused (116) before anything is created.
 * Needs `pnpm build`, bubblewrap and socat (`.ci/run` installs them).
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UmbelRun } from '../../../test-fixtures/real/umbel-helpers.mjs';
import { assertBuilt, cleanUp, processesOf, REPO_ROOT, testEnv, umbelRunner, teardownsDone } from '../../../test-fixtures/real/umbel-helpers.mjs';

const fakeClaude = join(REPO_ROOT, 'test-fixtures/bin/claude');
const SECRET = 'sandbox-e2e-secret-value-9f3';
const KEY = 'PLANTED-SSH-KEY-7c1';
const BODY = 'served-to-the-sandbox-4e2';
let scratch: string;
let home: string;
let project: string;
let config: string;
let server: Server;
let port: number;
let umbel: UmbelRun;

const cfg = () => ['--env', `CLAUDE_CONFIG_DIR=${config}`, '--env', 'SBX_TOKEN', '--allowed-tools', 'Bash'];

/** Send one TOOL command and wait for its answer (the fake's `TOOL-RESULT: …`). */
async function tool(name: string, command: string): Promise<string> {
  const sent = await umbel(['send', name, `TOOL ${command}`]);
  expect(sent.code, sent.stderr).toBe(0);
  const waited = await umbel(['wait', name, '--timeout', '60s', '--json']);
  expect(waited.code, waited.stderr).toBe(0);
  return String(JSON.parse(waited.stdout).result);
}

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs']);
  scratch = await mkdtemp(join(tmpdir(), 'umbel-e2e-sbx-'));
  home = join(scratch, 'state');
  project = join(scratch, 'project');
  config = join(scratch, 'claude-config');
  await mkdir(project, { recursive: true });
  await mkdir(join(scratch, '.ssh'), { recursive: true });
  await writeFile(join(scratch, '.ssh', 'id_test'), `${KEY}\n`);
  await mkdir(config, { recursive: true });
  await writeFile(join(config, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, projects: {} }));
  server = createServer((_req, res) => res.end(BODY));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  port = (server.address() as AddressInfo).port;
  const env = testEnv({ home: scratch, umbelHome: home, UMBEL_CLAUDE_BIN: fakeClaude, SBX_TOKEN: SECRET });
  ({ run: umbel } = umbelRunner({ cwd: project, env }));
});

afterAll(async () => {
  await umbel?.(['pool', 'stop']);
  await cleanUp({
    workers: [umbel],
    reap: [scratch],
    close: [server ? { close: () => new Promise((done) => server.close(() => done(undefined))) } : undefined],
    remove: [scratch],
  });
}, 300_000);

describe('confined workers (--sandbox) on the fake claude', () => {
  it('writes inside its cwd only, reads no planted key, reaches no server it was not allowed; hooks still arrive', async () => {
    const spawned = await umbel(['spawn', 'box', '--sandbox', ...cfg(), '--json']);
    expect(spawned.code, spawned.stderr).toBe(0);
    const status = JSON.parse(spawned.stdout);
    expect(status.sandbox).toMatchObject({ enabled: true, network: ['api.anthropic.com', 'console.anthropic.com', 'claude.ai', 'statsig.anthropic.com'] });
    expect(status.sandbox.write).toContain(project);

    expect(await tool('box', `touch ${join(project, 'inside')} && echo inside-ok`)).toBe('TOOL-RESULT: inside-ok');
    expect(existsSync(join(project, 'inside'))).toBe(true);

    const outside = join(scratch, 'outside');
    expect(await tool('box', `touch ${outside} 2>&1 || echo refused`)).toContain('refused');
    expect(existsSync(outside)).toBe(false);

    const read = await tool('box', `cat ${join(scratch, '.ssh', 'id_test')} 2>&1 || echo refused`);
    expect(read).toContain('refused');
    expect(read).not.toContain(KEY);

    // The server answers outside the sandbox, and not inside it.
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe(BODY);
    const fetched = await tool('box', `node -e "fetch('http://127.0.0.1:${port}/').then((r) => r.text()).then(console.log, () => console.log('refused'))"`);
    expect(fetched).toContain('refused');
    expect(fetched).not.toContain(BODY);

    // Temp files land in the worker's private temp dir (srt would hand its tools /tmp/claude, which the read-only /tmp does not have).
    const tmp = join(home, 'workers', 'box', 'tmp');
    expect(await tool('box', 'mktemp 2>&1 || echo refused')).toMatch(new RegExp(`^TOOL-RESULT: ${tmp}/tmp\\.`));

    // every turn was confirmed and ended by the hooks
    const after = JSON.parse((await umbel(['status', 'box', '--json'])).stdout);
    expect(after).toMatchObject({ turn: 5, completedTurn: 5, state: 'ready' });
  });

  it('an allowed loopback host (--sandbox-allow 127.0.0.1:PORT, as a local endpoint is) is reached through srt’s proxy', async () => {
    const spawned = await umbel(['spawn', 'near', '--sandbox', '--sandbox-allow', `127.0.0.1:${port}`, ...cfg()]);
    expect(spawned.code, spawned.stderr).toBe(0);
    expect(await tool('near', `curl -sS -m 20 http://127.0.0.1:${port}/ 2>&1 || echo refused`)).toBe(`TOOL-RESULT: ${BODY}`);
    expect((await umbel(['kill', 'near'])).code).toBe(0);
  });

  it('no env value on srt’s command line or in its settings file', async () => {
    const settings = join(home, 'workers', 'box', 'sandbox.json');
    expect(readFileSync(settings, 'utf8')).not.toContain(SECRET);
    const srt = processesOf({ argsIncludes: [settings] });
    expect(srt.length).toBeGreaterThan(0);
    for (const p of srt) expect(p.args).not.toContain(SECRET);
  });

  it('kill leaves no srt helper (proxy, socat, bwrap) running', async () => {
    const dir = join(home, 'workers', 'box');
    expect(processesOf({ argsIncludes: [dir] }).length).toBeGreaterThan(0);
    const killed = await umbel(['kill', 'box']);
    expect(killed.code, killed.stderr).toBe(0);
    expect(processesOf({ argsIncludes: [dir] })).toEqual([]);
  });

  it('without bubblewrap --sandbox is refused (116, the install hint) before anything is created', async () => {
    // A PATH of the tools umbel and the CLI need, without bwrap.
    const bin = join(scratch, 'no-bwrap-bin');
    await mkdir(bin, { recursive: true });
    for (const tool of ['node', 'tmux', 'sh', 'socat'])
      for (const dir of (process.env.PATH ?? '').split(':'))
        if (existsSync(join(dir, tool)) && !existsSync(join(bin, tool))) await symlink(join(dir, tool), join(bin, tool));
    const refused = await umbel(['spawn', 'nobox', '--sandbox', ...cfg()], { env: { PATH: bin } });
    expect(refused.code, refused.stderr).toBe(116);
    expect(refused.stderr).toContain('bwrap');
    expect(refused.stderr).toContain('apt-get install bubblewrap socat');
    expect(existsSync(join(home, 'workers', 'nobox'))).toBe(false);
  });

  it('umbel -p --sandbox answers from a confined worker (a write beside its cwd refused) and leaves none behind', async () => {
    const outside = join(scratch, 'outside-p');
    const r = await umbel(['-p', `TOOL touch ${outside} 2>&1 || echo refused`, '--sandbox', ...cfg()]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('refused');
    expect(existsSync(outside)).toBe(false);
    await teardownsDone(home); // -p exited with its answer; its worker goes after, in a detached process
    expect(JSON.parse((await umbel(['ls', '--json'])).stdout).filter((w: { anonymous: boolean }) => w.anonymous)).toEqual([]);
  });

  it('the config file’s sandbox default confines every worker that does not say; --no-sandbox opts out; -p takes no unconfined pool worker unless --no-sandbox', async () => {
    const file = join(scratch, 'config-sandbox.json');
    await writeFile(file, JSON.stringify({ sandbox: { allow: ['registry.npmjs.org'] } }), { mode: 0o600 });
    const withDefault = { env: { UMBEL_CONFIG: file } };
    const spawned = await umbel(['spawn', 'dflt', ...cfg(), '--json'], withDefault);
    expect(spawned.code, spawned.stderr).toBe(0);
    expect(JSON.parse(spawned.stdout).sandbox).toMatchObject({ enabled: true, widened: { allow: ['registry.npmjs.org'] } });
    const outside = join(scratch, 'outside-default');
    const sent = await umbel(['send', 'dflt', `TOOL touch ${outside} 2>&1 || echo refused`], withDefault);
    expect(sent.code, sent.stderr).toBe(0);
    expect(JSON.parse((await umbel(['wait', 'dflt', '--timeout', '60s', '--json'], withDefault)).stdout).result).toContain('refused');
    expect(existsSync(outside)).toBe(false);
    // a call's own widening comes on top of the default's
    const both = await umbel(['spawn', 'dflt2', '--sandbox', '--sandbox-allow', 'example.com', ...cfg(), '--json'], withDefault);
    expect(JSON.parse(both.stdout).sandbox.widened.allow).toEqual(['registry.npmjs.org', 'example.com']);
    const opted = await umbel(['spawn', 'loose2', '--no-sandbox', ...cfg(), '--json'], withDefault);
    expect(opted.code, opted.stderr).toBe(0);
    expect(JSON.parse(opted.stdout).sandbox).toBeUndefined();
    for (const name of ['dflt', 'dflt2', 'loose2']) expect((await umbel(['kill', name, '--purge'], withDefault)).code).toBe(0);

    // a warm pool's workers are not confined by the default: -p spawns its own confined worker and leaves the pool's idle
    const started = await umbel(['pool', 'start', 'warm', '--size', '1', ...cfg(), '--json']);
    expect(started.code, started.stderr).toBe(0);
    const members = async () => JSON.parse((await umbel(['pool', 'status', 'warm', '--json'])).stdout)[0].workers;
    const before = await members();
    expect(before).toEqual([{ worker: expect.any(String), state: 'ready' }]);
    const outsideP = join(scratch, 'outside-default-p');
    const printed = await umbel(['-p', `TOOL touch ${outsideP} 2>&1 || echo refused`, ...cfg()], withDefault);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toContain('refused');
    expect(existsSync(outsideP)).toBe(false);
    expect(await members()).toEqual(before);
    // -p --no-sandbox asks for a plain worker: it claims the pool's member
    const plain = await umbel(['-p', 'hello', '--no-sandbox', ...cfg()], withDefault);
    expect(plain.code, plain.stderr).toBe(0);
    await teardownsDone(home);
    expect((await members()).map((m: { worker: string }) => m.worker)).not.toContain(before[0].worker);
    expect((await umbel(['pool', 'stop', 'warm'])).code).toBe(0);
    await teardownsDone(home);
  });

  it('pool start --sandbox: -p --sandbox claims its confined member (a write outside refused); a plain -p never does', async () => {
    const started = await umbel(['pool', 'start', '--sandbox', '--size', '1', ...cfg(), '--json']);
    expect(started.code, started.stderr).toBe(0);
    const pool = JSON.parse(started.stdout);
    expect(pool.sandbox).toEqual({ write: [], read: [], allow: [] });
    const member = pool.workers[0].worker;
    const members = async () => JSON.parse((await umbel(['pool', 'status', pool.name, '--json'])).stdout)[0].workers.map((w: { worker: string }) => w.worker);
    // a plain call starts cold (unconfined): its tool writes beside the project, the member stays in the pool
    const loose = join(scratch, 'outside-plain');
    const plain = await umbel(['-p', `TOOL touch ${loose} && echo wrote`, ...cfg()]);
    expect(plain, plain.stderr).toMatchObject({ code: 0, stdout: 'TOOL-RESULT: wrote\n' });
    expect(existsSync(loose)).toBe(true);
    await teardownsDone(home);
    expect(await members()).toEqual([member]);
    const outside = join(scratch, 'outside-pool');
    const got = await umbel(['-p', `TOOL touch ${outside} 2>&1 || echo refused`, '--sandbox', ...cfg()]);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toContain('refused');
    expect(existsSync(outside)).toBe(false);
    await teardownsDone(home);
    // the member answered it: claimed, then removed after the call (the refill started another)
    expect(await members()).not.toContain(member);
    expect((await umbel(['pool', 'stop'])).code).toBe(0);
  }, 300_000);

  it('--sandbox-allow without --sandbox is a usage error', async () => {
    const r = await umbel(['spawn', 'loose', '--sandbox-allow', 'example.com', ...cfg()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--sandbox-allow goes with --sandbox');
  });
});
