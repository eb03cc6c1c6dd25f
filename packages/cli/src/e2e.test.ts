/**
 * End to end on real tmux: the built `umbel` bin drives the fake `claude` from test-fixtures
 * (UMBEL_CLAUDE_BIN) through the tmux substrate and the Claude provider. Needs `pnpm build`
 * (the root `pnpm test` builds first).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveSocketName } from '@umbel/tmux';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UmbelRun, UmbelStart } from '../../../test-fixtures/real/umbel-helpers.mjs';
import { assertBuilt, cleanUp, processesOf, REPO_ROOT, testEnv, umbelRunner, teardownsDone } from '../../../test-fixtures/real/umbel-helpers.mjs';

const fakeClaude = join(REPO_ROOT, 'test-fixtures/bin/claude');
let scratch: string;
let home: string;
let work: string;
let config: string;
let umbel: UmbelRun;
let startUmbel: UmbelStart;
let socket: string;
let env: Record<string, string>;

const cfg = (dir = config) => ['--env', `CLAUDE_CONFIG_DIR=${dir}`];

async function seed(dir: string, trusted: string[] = []): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, '.claude.json'),
    JSON.stringify({ hasCompletedOnboarding: true, projects: Object.fromEntries(trusted.map((t) => [t, { hasTrustDialogAccepted: true }])) }),
  );
}

async function transcriptOf(name: string): Promise<string> {
  const status = JSON.parse((await umbel(['status', name, '--json'])).stdout);
  return readFile(status.transcriptPath, 'utf8');
}

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs']);
  scratch = await mkdtemp(join(tmpdir(), 'umbel-e2e-'));
  home = join(scratch, 'state');
  work = join(scratch, 'project');
  config = join(scratch, 'claude-config');
  await mkdir(work, { recursive: true });
  await seed(config, [work]);
  env = testEnv({ home: scratch, umbelHome: home, UMBEL_CLAUDE_BIN: fakeClaude });
  socket = resolveSocketName(home, env);
  ({ run: umbel, start: startUmbel } = umbelRunner({ cwd: work, env }));
});

afterAll(() => cleanUp({ workers: [umbel], reap: [scratch], remove: [scratch] }));

/** Poll `check` every 50 ms until it holds (30 s bound, then fail naming `what`). */
async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Whether a process holds an inotify handle (fs.watch), from /proc. */
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

describe('supervisor verbs on the fake claude', () => {
  it('spawn → send → wait returns the exact answer, turn after turn', async () => {
    expect(await umbel(['spawn', 'w1', ...cfg()])).toMatchObject({ code: 0, stdout: 'w1\n' });
    expect(await umbel(['send', 'w1', 'ECHO first answer'])).toMatchObject({ code: 0, stdout: '1\n' });
    expect(await umbel(['wait', 'w1', '--timeout', '60s'])).toMatchObject({ code: 0, stdout: 'first answer\n' });
    expect((await umbel(['send', 'w1', 'ECHO second answer'])).stdout).toBe('2\n');
    const second = JSON.parse((await umbel(['wait', 'w1', '--json'])).stdout);
    expect(second).toMatchObject({ reason: 'completed', result: 'second answer', turn: 2, provider: 'claude' });
    expect(second.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await umbel(['read', 'w1', '--turn', '1'])).stdout).toBe('first answer\n');
    expect((await umbel(['ls'])).stdout).toMatch(/w1\s+claude\s+ready\s+2\/2/);
  });

  it('multi-line and 100 KB prompts arrive byte-exact (checked in the transcript)', async () => {
    await umbel(['spawn', 'big', ...cfg()]);
    const multi = 'line one\nline "two" with $HOME and `ticks`\n\n  indented ünïcödé 🚀';
    await umbel(['send', 'big', multi]);
    expect((await umbel(['wait', 'big'])).code).toBe(0);
    const large = Array.from({ length: 2000 }, (_, i) => `${String(i).padStart(5, '0')} ${'x'.repeat(44)}`).join('\n');
    expect(large.length).toBeGreaterThan(100_000);
    await umbel(['send', 'big', '-'], { input: large });
    const outcome = JSON.parse((await umbel(['wait', 'big', '--json', '--timeout', '120s'])).stdout);
    expect(outcome.reason).toBe('completed');
    const prompts = (await transcriptOf('big'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((e) => e.type === 'user' && typeof e.message?.content === 'string')
      .map((e) => e.message.content);
    expect(prompts).toEqual([multi, large]);
  });

  it('answers right when the final message lands after the Stop hook', async () => {
    await umbel(['spawn', 'late', ...cfg(), '--env', 'FAKE_CLAUDE_LATE_FINAL_MS=1500']);
    await umbel(['send', 'late', 'ECHO the late one']);
    const outcome = await umbel(['wait', 'late', '--json']);
    expect(JSON.parse(outcome.stdout)).toMatchObject({ reason: 'completed', result: 'the late one' });
    expect(JSON.parse(outcome.stdout).message).toBeUndefined();
  });

  it('answers the workspace-trust dialog (its default answer exits)', async () => {
    const untrusted = join(scratch, 'untrusted');
    const fresh = join(scratch, 'fresh-config');
    await mkdir(untrusted);
    await seed(fresh);
    expect(await umbel(['spawn', 'trust', '--cwd', untrusted, ...cfg(fresh)])).toMatchObject({ code: 0 });
    const saved = JSON.parse(await readFile(join(fresh, '.claude.json'), 'utf8'));
    expect(saved.projects[untrusted]?.hasTrustDialogAccepted).toBe(true);
  });

  it('refuses a sign-in screen with 126 and leaves nothing behind', async () => {
    const r = await umbel(['spawn', 'signin', ...cfg(), '--env', 'FAKE_CLAUDE_SIGN_IN=1']);
    expect(r.code).toBe(126);
    expect(r.stderr).toContain('Select login method:');
    expect((await umbel(['status', 'signin'])).code).toBe(1);
  });

  it('a permission prompt is needs-input; keys approve it and the turn completes', async () => {
    await umbel(['spawn', 'perm', ...cfg(), '--permission-mode', 'default']);
    await umbel(['send', 'perm', 'TOOL touch created-by-tool.txt']);
    const blocked = await umbel(['wait', 'perm', '--json']);
    expect(blocked.code).toBe(126);
    expect(JSON.parse(blocked.stdout)).toMatchObject({ reason: 'needs-input', inputKind: 'permission', tool: 'Bash' });
    await umbel(['keys', 'perm', 'Enter']);
    expect(await umbel(['wait', 'perm'])).toMatchObject({ code: 0, stdout: 'TOOL-RESULT: (Bash completed with no output)\n' });
    expect(existsSync(join(work, 'created-by-tool.txt'))).toBe(true);
  });

  it('a permission notification that lands after the keys answered the prompt does not make the running turn needs-input', async () => {
    await umbel(['spawn', 'perm-late', ...cfg(), '--permission-mode', 'default', '--env', 'FAKE_CLAUDE_NOTIFY_AFTER_ANSWER_MS=100']);
    await umbel(['send', 'perm-late', 'TOOL touch late.txt && sleep 4']);
    expect((await umbel(['wait', 'perm-late', '--json'])).code).toBe(126);
    await umbel(['keys', 'perm-late', 'Enter']);
    // the notification comes 100 ms after the Enter, while the tool still runs for 4 s
    expect(await umbel(['wait', 'perm-late'])).toMatchObject({ code: 0, stdout: 'TOOL-RESULT: (Bash completed with no output)\n' });
    const events = await readdir(join(home, 'workers/perm-late/events'));
    expect(events.filter((f) => f.endsWith('-notify.json'))).toHaveLength(1);
  });

  it('a provider error is outcome provider-error (122)', async () => {
    await umbel(['spawn', 'err', ...cfg(), '--env', 'CLAUDE_CODE_MAX_RETRIES=0']);
    await umbel(['send', 'err', 'FAIL 500 upstream exploded']);
    const r = await umbel(['wait', 'err', '--json']);
    expect(r.code).toBe(122);
    expect(JSON.parse(r.stdout).message).toContain('API Error: 500');
  });

  it('account failures: a 429 (with and without retry-after) is rate-limited (118), a 401 auth-failed (119), with what to do', async () => {
    await umbel(['spawn', 'acct', ...cfg(), '--env', 'CLAUDE_CODE_MAX_RETRIES=0']);
    await umbel(['send', 'acct', 'FAIL 429 retry-after=3 Number of requests has exceeded your rate limit']);
    const limited = await umbel(['wait', 'acct', '--json']);
    expect(limited.code, limited.stderr).toBe(118);
    const outcome = JSON.parse(limited.stdout);
    expect(outcome).toMatchObject({ reason: 'rate-limited', exitCode: 118, apiErrorStatus: 429 });
    expect(outcome.message).toContain('Request rejected (429)');
    expect(outcome).not.toHaveProperty('resetsAt'); // an API rate limit leaves no reset anywhere
    await umbel(['send', 'acct', 'FAIL 429 Number of requests has exceeded your rate limit']);
    const text = await umbel(['wait', 'acct']);
    expect(text.code).toBe(118);
    expect(text.stderr).toContain("hit its account's rate or usage limit");
    expect(text.stderr).toContain('no reset time recorded; retry later');
    await umbel(['send', 'acct', 'FAIL 401 invalid x-api-key']);
    const refused = await umbel(['wait', 'acct']);
    expect(refused.code).toBe(119);
    expect(refused.stderr).toContain('Invalid API key');
    expect(refused.stderr).toContain('sign in again');
    // the worker lives on: the next turn answers
    await umbel(['send', 'acct', 'ECHO still here']);
    expect(await umbel(['wait', 'acct'])).toMatchObject({ code: 0, stdout: 'still here\n' });
  });

  it("a plan's usage limit on a claude.ai login is rate-limited with resetsAt; -p keeps is_error and adds the reason", async () => {
    const subscribed = join(scratch, 'claude-config-max');
    await seed(subscribed, [work]);
    await writeFile(join(subscribed, '.credentials.json'), JSON.stringify({ claudeAiOauth: { accessToken: 'fake-oauth-token', subscriptionType: 'max' } }));
    await umbel(['spawn', 'plan', ...cfg(subscribed)]);
    const before = Date.now();
    await umbel(['send', 'plan', 'FAIL 429 limit=usage reset=7200 You have reached your usage limit.']);
    const r = await umbel(['wait', 'plan', '--json']);
    expect(r.code, r.stderr).toBe(118);
    const outcome = JSON.parse(r.stdout);
    expect(outcome).toMatchObject({ reason: 'rate-limited', limit: 'five_hour' });
    expect(outcome.message).toMatch(/^You've hit your 5-hour limit · resets /);
    const resets = Date.parse(outcome.resetsAt);
    expect(resets).toBeGreaterThanOrEqual(before + 7_100_000);
    expect(resets).toBeLessThanOrEqual(Date.now() + 7_300_000);
    await umbel(['kill', 'plan']);
    const json = await umbel(['-p', 'FAIL 429 limit=usage reset=7200 You have reached your usage limit.', '--output-format', 'json', ...cfg(subscribed)]);
    expect(json.code, json.stderr).toBe(118);
    const result = JSON.parse(json.stdout);
    expect(result).toMatchObject({ type: 'result', subtype: 'success', is_error: true, terminal_reason: 'api_error', api_error_status: 429 });
    expect(result.result).toMatch(/^You've hit your 5-hour limit/);
    expect(result.umbel).toMatchObject({ reason: 'rate-limited', exit_code: 118, limit: 'five_hour' });
    expect(Date.parse(result.umbel.resets_at)).toBeGreaterThan(Date.now() + 7_000_000);
    const text = await umbel(['-p', 'FAIL 401 invalid x-api-key', ...cfg(), '--env', 'CLAUDE_CODE_MAX_RETRIES=0']);
    expect(text.code).toBe(119);
    expect(text.stdout).toBe('Invalid API key · Fix external API key\n');
    expect(text.stderr).toContain('sign in again');
  });

  it('a limit resetting days away: /rate-limit-options blocks; status needs-input, send refused (126, nothing typed) until keys answer it', async () => {
    const subscribed = join(scratch, 'claude-config-weekly');
    await seed(subscribed, [work]);
    await writeFile(join(subscribed, '.credentials.json'), JSON.stringify({ claudeAiOauth: { accessToken: 'fake-oauth-token', subscriptionType: 'max' } }));
    await umbel(['spawn', 'weekly', ...cfg(subscribed)]);
    await umbel(['send', 'weekly', 'FAIL 429 limit=weekly reset=259200 You have reached your usage limit.']);
    const r = await umbel(['wait', 'weekly', '--json']);
    expect(r.code, r.stderr).toBe(118);
    const outcome = JSON.parse(r.stdout);
    expect(outcome).toMatchObject({ reason: 'rate-limited', limit: 'seven_day' });
    expect(Date.parse(outcome.resetsAt)).toBeGreaterThan(Date.now() + 250_000_000);
    const status = async () => JSON.parse((await umbel(['status', 'weekly', '--json'])).stdout);
    await until(async () => (await status()).state === 'needs-input', 'the dialog in status');
    expect((await status()).needsInput).toMatchObject({ kind: 'rate-limited' });
    expect((await status()).needsInput.message).toContain('/rate-limit-options');
    const refused = await umbel(['send', 'weekly', 'ECHO into the dialog', '--json']);
    expect(refused.code).toBe(126);
    const { error } = JSON.parse(refused.stdout);
    expect(error.code).toBe('UMBEL_ACCOUNT_DIALOG');
    expect(error.hint).toContain('umbel keys weekly');
    expect((await umbel(['capture', 'weekly'])).stdout).not.toContain('ECHO into the dialog');
    expect((await status()).turn).toBe(1);
    // the caller's answer (1. Stop and wait): the dialog closes, prompts go in again
    await umbel(['keys', 'weekly', 'Enter']);
    await until(async () => (await status()).state === 'ready', 'the dialog answered');
    await umbel(['send', 'weekly', 'ECHO after the dialog']);
    expect(await umbel(['wait', 'weekly'])).toMatchObject({ code: 0, stdout: 'after the dialog\n' });
  });

  it('a limit resetting soon: Claude continues by itself; wait gets that answer with no new send, the next send its own', async () => {
    const subscribed = join(scratch, 'claude-config-resume');
    await seed(subscribed, [work]);
    await writeFile(join(subscribed, '.credentials.json'), JSON.stringify({ claudeAiOauth: { accessToken: 'fake-oauth-token', subscriptionType: 'max' } }));
    await umbel(['spawn', 'resume', ...cfg(subscribed)]);
    await umbel(['send', 'resume', 'FAIL 429 x1 limit=usage reset=3 ECHO resumed after the reset']);
    const limited = await umbel(['wait', 'resume', '--json']);
    expect(limited.code, limited.stderr).toBe(118);
    expect(JSON.parse(limited.stdout)).toMatchObject({ reason: 'rate-limited', turn: 1, limit: 'five_hour' });
    // until the continuation starts, wait reports the limit (no hang); then its answer, for turn 1
    let last: { code: number; stdout: string } = limited;
    await until(async () => (last = await umbel(['wait', 'resume', '--json'])).code === 0, 'the continuation');
    const continued = JSON.parse(last.stdout);
    expect(continued).toMatchObject({ reason: 'completed', turn: 1 });
    expect(continued.result).toMatch(/^MOCK-REPLY: Your claude\.ai usage limit has reset\./);
    expect(JSON.parse((await umbel(['status', 'resume', '--json'])).stdout)).toMatchObject({ state: 'ready', turn: 1, completedTurn: 1 });
    expect((await umbel(['read', 'resume'])).stdout).toMatch(/^MOCK-REPLY: Your claude\.ai usage limit has reset\./);
    await umbel(['send', 'resume', 'ECHO the next one']);
    expect(await umbel(['wait', 'resume', '--json'])).toMatchObject({ code: 0 });
    expect(JSON.parse((await umbel(['read', 'resume', '--json'])).stdout)).toMatchObject({ turn: 2, result: 'the next one' });
  });

  it('a crash is dead (125) with its exit status; a signal with its name', async () => {
    await umbel(['spawn', 'crash', ...cfg()]);
    await umbel(['send', 'crash', 'EXIT 3']);
    const dead = await umbel(['wait', 'crash', '--json']);
    expect(dead.code).toBe(125);
    const outcome = JSON.parse(dead.stdout);
    expect(outcome).toMatchObject({ reason: 'dead', exit: { status: 3 } });
    // The evidence is what the CLI showed: no tmux "Pane is dead" line, no blank rows.
    expect(outcome.paneTail).toContain('EXIT 3');
    expect(outcome.paneTail).not.toContain('Pane is dead');
    expect(outcome.paneTail).not.toMatch(/^\s*$/m);
    const shown = await umbel(['capture', 'crash']);
    expect(shown.stdout).toContain('EXIT 3');
    expect(shown.stdout).not.toContain('Pane is dead');
    await umbel(['spawn', 'sig', ...cfg()]);
    await umbel(['send', 'sig', 'KILLSELF SIGKILL']);
    expect(JSON.parse((await umbel(['wait', 'sig', '--json'])).stdout)).toMatchObject({ reason: 'dead', exit: { signal: 'SIGKILL' } });
  });

  it("a CLI that dies at startup: the spawn's message carries what it printed last", async () => {
    const broken = join(scratch, 'broken-claude');
    await writeFile(broken, '#!/bin/sh\necho "claude: starting"\necho\necho "Error: settings.json: unexpected token at line 3" >&2\nexit 1\n', { mode: 0o755 });
    const r = await umbel(['spawn', 'broken', '--json'], { env: { UMBEL_CLAUDE_BIN: broken } });
    expect(r.code).toBe(1);
    const { error } = JSON.parse(r.stdout);
    expect(error.code).toBe('UMBEL_SPAWN_FAILED');
    expect(error.message).toContain('exited during startup (process exited 1)');
    expect(error.message).toContain('claude: starting | Error: settings.json: unexpected token at line 3');
    expect(error.message).not.toContain('Pane is dead');
  });

  it('timeout is 124 with the pane tail; SIGINT during a wait is 130 and the worker lives on', async () => {
    await umbel(['spawn', 'slow', ...cfg()]);
    await umbel(['send', 'slow', 'DELAY 60000 ECHO too late']);
    const t = await umbel(['wait', 'slow', '--timeout', '1s']);
    expect(t.code).toBe(124);
    expect(t.stderr).toContain('--- last screen ---');
    expect(t.stderr).toContain('esc to interrupt');
    const pending = startUmbel(['wait', 'slow']);
    // Signal it once it is really waiting: watching the worker's events (an inotify handle).
    await until(() => watching(pending.child.pid as number), 'the wait to watch the events');
    pending.child.kill('SIGINT');
    const cancelled = await pending.done;
    expect(cancelled.code).toBe(130);
    expect(cancelled.stderr).toContain('the wait was cancelled');
    expect(JSON.parse((await umbel(['status', 'slow', '--json'])).stdout)).toMatchObject({ alive: true, state: 'busy' });
  });

  it("host Claude Code markers in umbel's env never reach the worker (its transcript is still written)", async () => {
    const markers = { CLAUDECODE: '1', CLAUDE_CODE_CHILD_SESSION: '1', CLAUDE_CODE_ENTRYPOINT: 'cli', CLAUDE_CODE_SESSION_ID: 'parent-session' };
    expect((await umbel(['spawn', 'child', ...cfg()], { env: markers })).code).toBe(0);
    await umbel(['send', 'child', 'ECHO still recorded'], { env: markers });
    expect((await umbel(['wait', 'child'], { env: markers })).stdout).toBe('still recorded\n');
    expect(await transcriptOf('child')).toContain('still recorded');
  });

  it('spawn never attaches a tmux control-mode client to a worker, while it starts, once ready or after a failed start', async () => {
    // tmux 3.3a's server crashes (SIGSEGV in its control-mode writer) when control-mode clients
    // attach and detach while other sessions are being created (10 parallel spawns did it in CI):
    // every worker on the socket dies with it.
    const { createDefaultUmbel } = await import('@umbel/runtime');
    const controlClients = () => processesOf({ argsIncludes: [`-L ${socket}`] }).filter((p) => / -C(C)? /.test(` ${p.args} `));
    const seen: string[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        seen.push(...controlClients().map((p) => p.args));
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const slow = join(scratch, 'slow-claude');
    await writeFile(slow, `#!/bin/sh\nsleep 1.5\nexec '${fakeClaude}' "$@"\n`, { mode: 0o755 });
    const fleet = await createDefaultUmbel({ env: { ...env, UMBEL_CLAUDE_BIN: slow }, cwd: work });
    await fleet.spawn({ name: 'watched', provider: 'claude', cwd: work, env: { CLAUDE_CONFIG_DIR: config } });
    const broken = join(scratch, 'broken-claude-2');
    await writeFile(broken, '#!/bin/sh\necho "claude: starting"\nsleep 1\nexit 3\n', { mode: 0o755 });
    const failing = await createDefaultUmbel({ env: { ...env, UMBEL_CLAUDE_BIN: broken }, cwd: work });
    await expect(failing.spawn({ name: 'watched-broken', provider: 'claude', cwd: work })).rejects.toMatchObject({ code: 'UMBEL_SPAWN_FAILED' });
    sampling = false;
    await sampler;
    expect(seen).toEqual([]);
    await fleet.kill({ name: 'watched' });
  });

  it('kill leaves no process of the worker; the tombstone still reads', async () => {
    await umbel(['spawn', 'gone', ...cfg()]);
    await umbel(['send', 'gone', 'ECHO remember me']);
    await umbel(['wait', 'gone']);
    expect(processesOf({ argsIncludes: [join(home, 'workers/gone')] })).not.toEqual([]);
    expect(await umbel(['kill', 'gone'])).toMatchObject({ code: 0, stdout: 'killed: gone\n' });
    expect(processesOf({ argsIncludes: [join(home, 'workers/gone')] })).toEqual([]);
    expect((await umbel(['read', 'gone'])).stdout).toBe('remember me\n');
    expect((await umbel(['status', 'gone'])).stdout).toMatch(/state:\s+killed/);
  });
});

describe('concurrency on real tmux', () => {
  it('10 workers spawned, sent to and waited on in parallel all answer; status never reads a torn file', async () => {
    const names = Array.from({ length: 10 }, (_, i) => `par-${i}`);
    const spawned = await Promise.all(names.map((n) => umbel(['spawn', n, ...cfg()])));
    expect(
      spawned.map((r) => r.code),
      spawned.map((r) => r.stderr).join(''),
    ).toEqual(names.map(() => 0));
    await Promise.all(names.map((n) => umbel(['send', n, `ECHO answer of ${n}`])));
    let polling = true;
    const statuses: number[] = [];
    const poller = (async () => {
      while (polling) {
        const r = await umbel(['status', '--json']);
        expect(r.code).toBe(0);
        statuses.push((JSON.parse(r.stdout) as unknown[]).length);
      }
    })();
    const waited = await Promise.all(names.map((n) => umbel(['wait', n, '--timeout', '120s'])));
    polling = false;
    await poller;
    expect(waited.map((r) => r.stdout)).toEqual(names.map((n) => `answer of ${n}\n`));
    expect(statuses.length).toBeGreaterThan(0);
    await Promise.all(names.map((n) => umbel(['kill', n, '--purge'])));
  });

  it('two spawns of one name race and exactly one wins; the loser leaves nothing behind', async () => {
    const results = await Promise.all([0, 1, 2].map(() => umbel(['spawn', 'race', ...cfg()])));
    expect(results.filter((r) => r.code === 0)).toHaveLength(1);
    for (const loser of results.filter((r) => r.code !== 0)) expect(loser.stderr).toContain("worker 'race' already exists");
    const listed = JSON.parse((await umbel(['ls', '--json'])).stdout) as { name: string; alive: boolean }[];
    expect(listed.filter((w) => w.name === 'race')).toEqual([expect.objectContaining({ alive: true })]);
  });
});

describe('umbel -p on the fake claude', () => {
  it('text, json and stream-json; the anonymous worker is gone afterwards', async () => {
    expect(await umbel(['-p', 'ECHO plain answer', ...cfg()])).toMatchObject({ code: 0, stdout: 'plain answer\n' });
    const json = JSON.parse((await umbel(['-p', 'ECHO as json', '--output-format', 'json', ...cfg()])).stdout);
    expect(json).toMatchObject({ type: 'result', subtype: 'success', is_error: false, result: 'as json', provider: 'claude' });
    const lines = (await umbel(['-p', 'TOOL echo streamed', '--output-format', 'stream-json', '--verbose', '--allowed-tools', 'Bash(echo:*)', ...cfg()])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: 'system', subtype: 'init' });
    expect(lines.filter((l) => l.type === 'assistant').length).toBeGreaterThanOrEqual(2);
    expect(lines.some((l) => l.type === 'user')).toBe(true);
    expect(lines.at(-1)).toMatchObject({ type: 'result', result: 'TOOL-RESULT: streamed' });
    await teardownsDone(home); // -p exited with its answer; its worker goes after, in a detached process
    const workers = JSON.parse((await umbel(['ls', '--json'])).stdout).map((w: { name: string }) => w.name);
    expect(workers.filter((n: string) => n.startsWith('anon-'))).toEqual([]);
  });

  it('SIGTERM mid-turn leaves no session, state dir or CLI process', async () => {
    const before = new Set(await readdir(join(home, 'workers')));
    const run = startUmbel(['-p', 'DELAY 60000 ECHO never', ...cfg()]);
    let anon: string | undefined;
    for (let i = 0; i < 300 && !anon; i++) {
      await new Promise((r) => setTimeout(r, 100));
      anon = (await readdir(join(home, 'workers'))).find((n) => !before.has(n) && n.startsWith('anon-'));
    }
    expect(anon).toBeDefined();
    // Mid-turn: the fake accepted the prompt (its UserPromptSubmit hook is recorded).
    const events = join(home, 'workers', anon as string, 'events');
    await until(async () => (await readdir(events).catch(() => [])).some((f) => f.endsWith('-prompt.json')), 'the prompt to be accepted');
    run.child.kill('SIGTERM');
    expect((await run.done).code).toBe(143);
    expect(await readdir(join(home, 'workers'))).not.toContain(anon);
    expect(processesOf({ argsIncludes: [`workers/${anon}`] })).toEqual([]);
    expect((await umbel(['capture', anon as string])).code).toBe(1);
  });
});

/** A fresh git work tree under the scratch dir, with a Claude config that trusts it. */
async function gitRepo(name: string): Promise<{ repo: string; repoConfig: string }> {
  const repo = join(scratch, name);
  const repoConfig = join(scratch, `claude-config-${name}`);
  await mkdir(repo, { recursive: true });
  await seed(repoConfig, [repo]);
  execFileSync('git', ['init', '-q'], { cwd: repo });
  return { repo, repoConfig };
}

describe('evidence verbs and CLI commands on the fake claude', () => {
  it('actions and diff: what a Bash tool turn ran and changed, in a git work tree', async () => {
    const { repo, repoConfig } = await gitRepo('repo');
    await writeFile(join(repo, 'kept.txt'), 'kept\n');
    expect((await umbel(['spawn', 'ev', '--cwd', repo, ...cfg(repoConfig)])).code).toBe(0);
    await umbel(['send', 'ev', 'TOOL echo made by claude > made.txt']);
    expect((await umbel(['wait', 'ev'])).code).toBe(0);
    const actions = JSON.parse((await umbel(['actions', 'ev', '--json'])).stdout);
    expect(actions).toMatchObject({ provider: 'claude', turns: [1], toolsUsed: { Bash: 1 }, shellCommands: ['echo made by claude > made.txt'], errors: [] });
    expect((await umbel(['actions', 'ev'])).stdout).toContain('  $ echo made by claude > made.txt');
    const diff = await umbel(['diff', 'ev']);
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain('+++ b/made.txt');
    expect(diff.stdout).toContain('+made by claude');
    expect(diff.stdout).not.toContain('kept.txt');
  });

  it('umbel -p in a git work tree runs no git for the worker it removes (nobody can diff it); a kept --name worker gets its snapshot', async () => {
    const { repo, repoConfig } = await gitRepo('repo-p');
    // a git on PATH that logs each call, then runs the real one
    const shim = join(scratch, 'git-shim');
    const log = join(scratch, 'git-calls.log');
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    await mkdir(shim, { recursive: true });
    await writeFile(join(shim, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${realGit}' "$@"\n`, { mode: 0o755 });
    const options = { cwd: repo, env: { PATH: `${shim}:${process.env.PATH}` } };
    expect(await umbel(['-p', 'ECHO removed after', ...cfg(repoConfig)], options)).toMatchObject({ code: 0, stdout: 'removed after\n' });
    expect(existsSync(log)).toBe(false);
    expect(await umbel(['-p', 'ECHO kept', '--name', 'kept-p', ...cfg(repoConfig)], options)).toMatchObject({ code: 0, stdout: 'kept\n' });
    expect(await readFile(log, 'utf8')).toContain('write-tree');
    expect((await umbel(['kill', 'kept-p', '--purge'])).code).toBe(0);
  });

  it('a prompt starting with / is text; --command runs it, with no model turn', async () => {
    await umbel(['spawn', 'cmd', ...cfg()]);
    expect((await umbel(['send', 'cmd', '/notacommand please'])).stdout).toBe('1\n');
    expect((await umbel(['wait', 'cmd'])).stdout).toContain('/notacommand please');
    const ran = await umbel(['send', 'cmd', '--command', '/notacommand', '--json']);
    expect(JSON.parse(ran.stdout)).toEqual({ worker: 'cmd', turn: 2, command: true, modelTurn: false });
    expect((await umbel(['capture', 'cmd'])).stdout).toContain('Unknown command: /notacommand');
    expect((await umbel(['send', 'cmd', 'ECHO still fine'])).stdout).toBe('3\n');
    expect((await umbel(['wait', 'cmd'])).stdout).toBe('still fine\n');
  });
});
