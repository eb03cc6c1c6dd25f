/**
 * Billing end to end on real tmux (issue 17): the built `umbel` bin drives the fake `claude`
 * (test-fixtures/bin/claude, which bills like the real 2.1.328: test-fixtures/real/ACCOUNT-FACTS.md)
 * with ANTHROPIC_API_KEY set in the caller's environment, as it often is for other tools. The key
 * must never reach a worker unless passed by name; passed, it bills the API and says so; the
 * `--billing subscription` guard refuses it and leaves nothing behind. Needs `pnpm build`.
 */
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UmbelRun } from '../../../test-fixtures/real/umbel-helpers.mjs';
import { assertBuilt, cleanUp, processesOf, REPO_ROOT, testEnv, umbelRunner } from '../../../test-fixtures/real/umbel-helpers.mjs';

const fakeClaude = join(REPO_ROOT, 'test-fixtures/bin/claude');
/** A key the fake's dialog shows by its last 20 characters. */
const KEY = 'sk-ant-test-not-a-secret-abcdefghij0123456789';
const TAIL = KEY.slice(-20);
const T = 240_000;

let scratch: string;
let work: string;
let umbel: UmbelRun;

async function seed(dir: string, trusted: string[]): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, '.claude.json'),
    JSON.stringify({ hasCompletedOnboarding: true, projects: Object.fromEntries(trusted.map((t) => [t, { hasTrustDialogAccepted: true }])) }),
  );
}

/** A fresh config dir per case: approvals are recorded in its .claude.json. */
async function config(name: string): Promise<string[]> {
  const dir = join(scratch, `config-${name}`);
  await seed(dir, [work]);
  return ['--env', `CLAUDE_CONFIG_DIR=${dir}`];
}

/** A claude.ai (Max) login as `claude auth login` stores it without a keychain (the fake reads it like the real one). */
async function writeClaudeAiLogin(dir: string): Promise<void> {
  const claudeAiOauth = { accessToken: 'sk-ant-oat01-umbel-mock-0000', refreshToken: 'r', expiresAt: 4102444800000, subscriptionType: 'max' };
  await writeFile(join(dir, '.credentials.json'), JSON.stringify({ claudeAiOauth }), { mode: 0o600 });
}

const keyResponses = async (name: string) => JSON.parse(await readFile(join(scratch, `config-${name}`, '.claude.json'), 'utf8')).customApiKeyResponses;
// This test's worker only: processesOf matches any one needle, and other fake claudes may run on the machine.
const claudeProcesses = (worker: string) =>
  processesOf({ argsIncludes: [join(scratch, 'state', 'workers', worker)] }).filter((p: { args: string }) => p.args.includes('fake-claude'));

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs']);
  scratch = await mkdtemp(join(tmpdir(), 'umbel-e2e-billing-'));
  work = join(scratch, 'project');
  await mkdir(work, { recursive: true });
  const env = testEnv({ home: scratch, umbelHome: join(scratch, 'state'), UMBEL_CLAUDE_BIN: fakeClaude, ANTHROPIC_API_KEY: KEY });
  ({ run: umbel } = umbelRunner({ cwd: work, env }));
});

afterAll(() => cleanUp({ workers: [umbel], reap: [scratch], remove: [scratch] }), T);

describe('billing on the fake claude (caller env has ANTHROPIC_API_KEY)', () => {
  it(
    'not passed: the key never reaches the worker, nothing is approved, and with no login spawn exits 126 naming --env ANTHROPIC_API_KEY',
    async () => {
      // FAKE_CLAUDE_AUTH=strict: like the real one with no credential ("Not logged in · run /login")
      const r = await umbel(['spawn', 'inherited', ...(await config('inherited')), '--env', 'FAKE_CLAUDE_AUTH=strict']);
      expect(r.code).toBe(126);
      expect(r.stderr).toContain('Not logged in');
      expect(r.stderr).toContain('--env ANTHROPIC_API_KEY');
      expect(await keyResponses('inherited')).toBeUndefined();
      expect((await umbel(['status', 'inherited'])).code).toBe(1);
      expect(claudeProcesses('inherited')).toEqual([]);
    },
    T,
  );

  it(
    'passed with --env: the dialog is answered Yes, the worker is ready and billed api in status, ls --json and the outcome',
    async () => {
      const spawned = await umbel(['spawn', 'paid', ...(await config('paid')), '--env', 'ANTHROPIC_API_KEY', '--json']);
      expect(spawned.code).toBe(0);
      const evidence = 'banner "API Usage Billing" with ANTHROPIC_API_KEY passed';
      expect(JSON.parse(spawned.stdout)).toMatchObject({ state: 'ready', billing: 'api', billingEvidence: evidence });
      expect((await keyResponses('paid')).approved).toEqual([TAIL]);
      const listed = JSON.parse((await umbel(['ls', '--json'])).stdout) as { name: string; billing: string }[];
      expect(listed.find((w) => w.name === 'paid')).toMatchObject({ billing: 'api' });
      expect(JSON.stringify(listed)).not.toContain(KEY);
      await umbel(['send', 'paid', 'ECHO billed']);
      const outcome = JSON.parse((await umbel(['wait', 'paid', '--json', '--timeout', '120s'])).stdout);
      expect(outcome).toMatchObject({ reason: 'completed', result: 'billed', billing: 'api', billingEvidence: evidence });
      expect((await umbel(['kill', 'paid', '--purge'])).code).toBe(0);
    },
    T,
  );

  it(
    '-p reports the billing under umbel; --billing subscription refuses a passed key (exit 3) on spawn and -p, leaving nothing',
    async () => {
      const cfg = await config('print');
      const printed = await umbel(['-p', 'ECHO printed', '--output-format', 'json', '--pool', 'none', ...cfg, '--env', 'ANTHROPIC_API_KEY']);
      expect(printed.code).toBe(0);
      expect(JSON.parse(printed.stdout)).toMatchObject({ is_error: false, result: 'printed', umbel: { billing: 'api' } });
      const refused = await umbel(['spawn', 'guarded', ...(await config('guarded')), '--env', 'ANTHROPIC_API_KEY', '--billing', 'subscription']);
      expect(refused.code).toBe(3);
      expect(refused.stderr).toContain('ANTHROPIC_API_KEY passed to the worker');
      expect((await umbel(['status', 'guarded'])).code).toBe(1);
      expect(await keyResponses('guarded')).toBeUndefined();
      const p = await umbel([
        '-p',
        'ECHO never',
        '--output-format',
        'json',
        '--pool',
        'none',
        ...cfg,
        '--env',
        'ANTHROPIC_API_KEY',
        '--billing',
        'subscription',
      ]);
      expect(p.code).toBe(3);
      expect(JSON.parse(p.stdout)).toMatchObject({ is_error: true, umbel: { reason: 'error', code: 'UMBEL_BILLING_REFUSED', exit_code: 3 } });
      expect(JSON.parse((await umbel(['ls', '--json'])).stdout)).toEqual([]);
      const bad = await umbel(['spawn', 'bad', ...cfg, '--billing', 'free']);
      expect(bad.code).toBe(2);
    },
    T,
  );

  it(
    "a claude.ai login: billing subscription (the guard lets it through), quota from the statusLine in status --json and the outcome, and the user's own statusLine still gets its input",
    async () => {
      const cfg = await config('plan');
      const dir = join(scratch, 'config-plan');
      await writeClaudeAiLogin(dir);
      const userLog = join(scratch, 'user-statusline.jsonl');
      await writeFile(join(dir, 'settings.json'), JSON.stringify({ statusLine: { type: 'command', command: `cat >> '${userLog}'; echo; echo MY-STATUS` } }));
      const spawned = await umbel(['spawn', 'plan', ...cfg, '--billing', 'subscription', '--json']);
      expect(spawned.code).toBe(0);
      expect(JSON.parse(spawned.stdout)).toMatchObject({ billing: 'subscription', billingEvidence: 'banner "Claude Max"' });
      expect(JSON.parse(spawned.stdout).quota).toBeUndefined();
      const before = Math.floor(Date.now() / 1000);
      await umbel(['send', 'plan', 'QUOTA 5h=42@3600 7d=13@86400 ECHO with usage']);
      const outcome = JSON.parse((await umbel(['wait', 'plan', '--json', '--timeout', '120s'])).stdout);
      expect(outcome).toMatchObject({ reason: 'completed', result: 'with usage', billing: 'subscription' });
      // the statusLine runs after the Stop: poll status until its input arrived
      let status: { quota?: { fiveHour?: { usedPercent: number; resetsAt?: string }; sevenDay?: { usedPercent: number } } } = {};
      for (let i = 0; i < 200 && !status.quota; i++) {
        status = JSON.parse((await umbel(['status', 'plan', '--json'])).stdout);
        if (!status.quota) await new Promise((r) => setTimeout(r, 100));
      }
      expect(status.quota).toMatchObject({ fiveHour: { usedPercent: 42 }, sevenDay: { usedPercent: 13 } });
      expect(Date.parse(status.quota?.fiveHour?.resetsAt ?? '') / 1000).toBeGreaterThanOrEqual(before + 3600);
      const inputs = (await readFile(userLog, 'utf8')).split('\n').filter((l) => l.trim().startsWith('{'));
      expect(inputs.length).toBeGreaterThanOrEqual(2);
      expect(JSON.parse(inputs[inputs.length - 1] as string).rate_limits.five_hour.used_percentage).toBe(42);
      expect((await umbel(['capture', 'plan'])).stdout).toContain('MY-STATUS');
      expect((await umbel(['kill', 'plan', '--purge'])).code).toBe(0);
    },
    T,
  );

  it(
    'the endpoint is shown, without credentials',
    async () => {
      const cfg = await config('endpoint');
      const r = await umbel(['spawn', 'ep', ...cfg, '--env', 'ANTHROPIC_BASE_URL=http://user:secret@127.0.0.1:9/gw?key=k', '--json']);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).endpoint).toBe('http://127.0.0.1:9/gw');
      expect((await umbel(['status', 'ep'])).stdout).not.toContain('secret');
      expect((await umbel(['kill', 'ep', '--purge'])).code).toBe(0);
    },
    T,
  );
});
