// Real-CLI tier: the supervisor verbs of the BUILT `umbel` bin driving the REAL pinned `claude`
// (UMBEL_CLAUDE_BIN, absolute path) in tmux, against the local Anthropic mock on 127.0.0.1.
// No network, no model service. Each test gets its own Claude config dir, seeded with onboarding
// done and the mock key approved but NOT the workspace trust (umbel's dialog handling must run),
// and its own working directory. The key reaches the worker as `--env ANTHROPIC_API_KEY` (by name,
// from umbel's own env, as a user passes a secret); the rest as `--env NAME=VALUE`.
// When the binary or the build is missing these tests FAIL, they never skip.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM fixture without type declarations
import { plan } from '../../test-fixtures/lib/directives.mjs';
import { claudeTier } from '../../test-fixtures/real/claude-tier.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { readPins } from '../../test-fixtures/real/clis.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { seedClaudeConfig } from '../../test-fixtures/real/seed-claude.mjs';
import { cleanUp, processesOf, readJsonl, userPrompts } from '../../test-fixtures/real/umbel-helpers.mjs';

type Json = any;
type Result = { code: number; stdout: string; stderr: string };
type Mock = { url: string; requests: () => Array<Record<string, Json>>; close: () => Promise<void> };

const STARTUP = ['--startup-timeout', '180s'];
const WAIT = ['--timeout', '240s'];

let root: string;
let home: string;
let mock: Mock;
let run: (args: string[], options?: { input?: string }) => Promise<Result>;

/** A fresh world for one test: its own cwd and seeded (untrusted) config dir, and the spawn flags. */
function world(id: string, { maxRetries = 1 }: { maxRetries?: number } = {}) {
  const work = join(root, id, 'work');
  const config = join(root, id, 'config');
  mkdirSync(work, { recursive: true });
  seedClaudeConfig({ configDir: config }); // onboarding + key approval, NO trust for `work`
  const spawnArgs = [
    '--cwd',
    work,
    '--env',
    'ANTHROPIC_API_KEY', // by name: the value comes from umbel's own env, never argv
    '--env',
    `ANTHROPIC_BASE_URL=${mock.url}`,
    '--env',
    `CLAUDE_CONFIG_DIR=${config}`,
    '--env',
    `CLAUDE_CODE_MAX_RETRIES=${maxRetries}`,
    ...STARTUP,
  ];
  return { work, config, spawnArgs };
}

/** `umbel wait NAME --json` → the parsed Outcome plus the exit code. */
async function waitJson(name: string, extra: string[] = []): Promise<{ code: number; outcome: Json; stderr: string }> {
  const r = await run(['wait', name, '--json', ...WAIT, ...extra]);
  let outcome: Json;
  try {
    outcome = JSON.parse(r.stdout);
  } catch {
    throw new Error(`wait ${name} printed no JSON (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  }
  return { code: r.code, outcome, stderr: r.stderr };
}

async function statusOf(name: string): Promise<Json> {
  const r = await run(['status', name, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

/** Spawn and fail with the whole story (stderr) when it does not work. */
async function spawnWorker(name: string, args: string[]): Promise<void> {
  const r = await run(['spawn', name, ...args]);
  expect(r, `spawn ${name}: ${r.stderr}`).toMatchObject({ code: 0, stdout: `${name}\n` });
}

/** The Messages API requests of one worker's Claude session (by its x-claude-code-session-id header). */
function mainRequestsOf(sessionId: string): Array<Record<string, Json>> {
  return mock.requests().filter((q) => q.kind === 'main' && q.headers?.['x-claude-code-session-id'] === sessionId);
}

beforeAll(async () => {
  ({ root, home, mock, run } = await claudeTier('umbel-real-verbs-'));
}, 120_000);

afterAll(() => cleanUp({ workers: [run], reap: [root], close: [mock], remove: [root] }), 300_000);

describe(`umbel verbs on the real claude ${readPins().claude.version} (mock model on 127.0.0.1)`, () => {
  it('spawn → send → wait returns the exact answer; a second turn gets its own answer', { timeout: 600_000 }, async () => {
    const w = world('echo');
    await spawnWorker('echo', w.spawnArgs);
    expect(await run(['send', 'echo', 'ECHO exact answer'])).toMatchObject({ code: 0, stdout: '1\n' });
    expect(await run(['wait', 'echo', ...WAIT])).toMatchObject({ code: 0, stdout: 'exact answer\n' });

    expect(await run(['send', 'echo', 'ECHO second answer'])).toMatchObject({ code: 0, stdout: '2\n' });
    const second = await waitJson('echo');
    expect(second.code).toBe(0);
    expect(second.outcome).toMatchObject({ reason: 'completed', turn: 2, result: 'second answer', provider: 'claude' });
    expect((await run(['read', 'echo', '--turn', '1'])).stdout).toBe('exact answer\n');

    // The model really was asked, once per turn, by this worker's Claude session.
    const status = await statusOf('echo');
    expect(status.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(mainRequestsOf(status.sessionId).map((q) => q.prompt)).toEqual(['ECHO exact answer', 'ECHO second answer']);
  });

  it('multi-line and 20 KB prompts arrive byte-exact (at the model and in the transcript)', { timeout: 600_000 }, async () => {
    const w = world('bytes');
    await spawnWorker('bytes', w.spawnArgs);
    const multi = 'line one\nline "two" with $HOME and `ticks` \\ back\n\n  indented ünïcödé 🚀\nlast line';
    expect((await run(['send', 'bytes', multi])).stdout).toBe('1\n');
    expect(await run(['wait', 'bytes', ...WAIT])).toMatchObject({ code: 0, stdout: `${plan(multi).text}\n` });

    const large = Array.from({ length: 400 }, (_, i) => `${String(i).padStart(4, '0')} ${'x'.repeat(40)} "q" $v \`b\``).join('\n');
    expect(large.length).toBeGreaterThan(20_000);
    expect((await run(['send', 'bytes', '-'], { input: large })).stdout).toBe('2\n');
    const outcome = await waitJson('bytes');
    expect(outcome.outcome).toMatchObject({ reason: 'completed', turn: 2, result: plan(large).text });

    const status = await statusOf('bytes');
    // What the model saw (the prompt as the mock received it) …
    expect(mainRequestsOf(status.sessionId).map((q) => q.prompt)).toEqual([multi, large]);
    // … and what Claude Code recorded as the user's prompts.
    expect(userPrompts(readJsonl(status.transcriptPath))).toEqual([multi, large]);
  });

  it('the workspace-trust dialog is shown and accepted (hasTrustDialogAccepted for the cwd afterwards)', { timeout: 600_000 }, async () => {
    const w = world('trust');
    const before = JSON.parse(readFileSync(join(w.config, '.claude.json'), 'utf8'));
    expect(before.projects?.[w.work]?.hasTrustDialogAccepted).not.toBe(true);
    await spawnWorker('trust', w.spawnArgs);
    // Only Claude Code itself writes this, and only when "Yes, I trust this folder" was chosen. It saves
    // its config on its own time: the prompt may be on the screen before the file has it (CI, loaded).
    const trusted = () => JSON.parse(readFileSync(join(w.config, '.claude.json'), 'utf8')).projects?.[w.work]?.hasTrustDialogAccepted;
    await expect.poll(trusted, { timeout: 20_000, interval: 200 }).toBe(true);
    expect(await statusOf('trust')).toMatchObject({ alive: true, state: 'ready' });
  });

  it(
    'a tool call needing permission is needs-input (126, tool Bash); `umbel keys Enter` approves it and the turn completes',
    { timeout: 600_000 },
    async () => {
      const w = world('perm');
      await spawnWorker('perm', [...w.spawnArgs, '--permission-mode', 'default']);
      expect((await run(['send', 'perm', 'TOOL touch x.txt'])).stdout).toBe('1\n');
      const blocked = await waitJson('perm');
      expect(blocked.code, blocked.stderr).toBe(126);
      expect(blocked.outcome).toMatchObject({ reason: 'needs-input', tool: 'Bash', turn: 1 });
      // what the provider's doDetectInputPrompt keys on, on the real screen
      expect(blocked.outcome.paneTail).toContain('Do you want to proceed?');
      expect(blocked.outcome.paneTail).toMatch(/^\s*❯ 1\. Yes\b/m);
      expect(existsSync(join(w.work, 'x.txt'))).toBe(false);

      expect((await run(['keys', 'perm', 'Enter'])).code).toBe(0);
      expect(await run(['wait', 'perm', ...WAIT])).toMatchObject({ code: 0, stdout: 'TOOL-RESULT: (Bash completed with no output)\n' });
      expect(existsSync(join(w.work, 'x.txt'))).toBe(true);
    },
  );

  it('the model failing (HTTP 500, CLAUDE_CODE_MAX_RETRIES=0) is provider-error (122) with the API error text', { timeout: 600_000 }, async () => {
    const w = world('fail', { maxRetries: 0 });
    await spawnWorker('fail', w.spawnArgs);
    await run(['send', 'fail', 'FAIL 500 upstream exploded']);
    const failed = await waitJson('fail');
    expect(failed.code, failed.stderr).toBe(122);
    expect(failed.outcome.reason).toBe('provider-error');
    expect(failed.outcome.message).toContain('API Error: 500');
    expect(failed.outcome.message).toContain('upstream exploded');
    // The worker is still usable afterwards.
    expect(await statusOf('fail')).toMatchObject({ alive: true });
  });

  it('kill leaves no process of the worker (checked in the process table, not only tmux)', { timeout: 600_000 }, async () => {
    const w = world('gone');
    await spawnWorker('gone', w.spawnArgs);
    await run(['send', 'gone', 'ECHO remember me']);
    expect((await run(['wait', 'gone', ...WAIT])).stdout).toBe('remember me\n');
    const status = await statusOf('gone');
    const match = {
      argsIncludes: [join(home, 'workers', 'gone'), status.sessionId],
      cwd: w.work,
      envIncludes: [`CLAUDE_CONFIG_DIR=${w.config}`, `UMBEL_EVENTS_DIR=${join(home, 'workers', 'gone', 'events')}`],
    };
    // The tmux server is shared by every worker of this UMBEL_HOME (its argv is its first client's
    // command line): it is not the worker's process, so it is left out.
    const ofWorker = () => processesOf(match).filter((p: { args: string }) => !/^\S*tmux /.test(p.args));
    const before = ofWorker();
    expect(
      before.some((p: { args: string }) => p.args.includes('claude')),
      JSON.stringify(before, null, 1),
    ).toBe(true);

    expect(await run(['kill', 'gone'])).toMatchObject({ code: 0, stdout: 'killed: gone\n' });
    expect(ofWorker()).toEqual([]);
    expect((await run(['read', 'gone'])).stdout).toBe('remember me\n');
  });
});
