// Real-CLI tier: account outcomes of the BUILT `umbel` bin driving the REAL pinned `claude` in tmux
// against the local Anthropic mock (`FAIL <status> [retry-after=…]`, test-fixtures/lib/directives.mjs).
// A 429 (with and without retry-after) must end `rate-limited` (118), a 401 `auth-failed` (119), on
// `wait` and on `-p`. No network, no model service; the key reaches the worker by name (--env).
// When the binary or the build is missing these tests FAIL, they never skip.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeTier } from '../../test-fixtures/real/claude-tier.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { readPins } from '../../test-fixtures/real/clis.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { seedClaudeConfig } from '../../test-fixtures/real/seed-claude.mjs';
import { cleanUp } from '../../test-fixtures/real/umbel-helpers.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { writeClaudeAiLogin } from '../../test-fixtures/real/account-claude.mjs';

type Json = any;
type Result = { code: number; stdout: string; stderr: string };
type Mock = { url: string; close: () => Promise<void> };

let root: string;
let mock: Mock;
let run: (args: string[], options?: { input?: string }) => Promise<Result>;

/** A fresh world: its own cwd and seeded config dir; no CLI retries (each would resend the FAIL). */
function world(id: string): string[] {
  const work = join(root, id, 'work');
  const config = join(root, id, 'config');
  mkdirSync(work, { recursive: true });
  seedClaudeConfig({ configDir: config, trustedDirs: [work] });
  return [
    '--cwd',
    work,
    '--env',
    'ANTHROPIC_API_KEY',
    '--env',
    `ANTHROPIC_BASE_URL=${mock.url}`,
    '--env',
    `CLAUDE_CONFIG_DIR=${config}`,
    '--env',
    'CLAUDE_CODE_MAX_RETRIES=0',
  ];
}

/** A world on a claude.ai (Max) login: the plan limits of ACCOUNT-FACTS §1.3 reach only a subscription. */
function subscriptionWorld(id: string): string[] {
  const work = join(root, id, 'work');
  const config = join(root, id, 'config');
  mkdirSync(work, { recursive: true });
  seedClaudeConfig({ configDir: config, trustedDirs: [work] });
  writeClaudeAiLogin(config);
  return ['--cwd', work, '--env', `ANTHROPIC_BASE_URL=${mock.url}`, '--env', `CLAUDE_CONFIG_DIR=${config}`, '--env', 'CLAUDE_CODE_MAX_RETRIES=0'];
}

/**
 * Poll `check` once a second until it holds, for `seconds` (a deadline, however long each check
 * takes); then fail naming `what` and, with `explain`, the worker's state then.
 */
async function until(check: () => Promise<boolean>, what: string, seconds = 240, explain?: () => Promise<string>): Promise<void> {
  for (const end = Date.now() + seconds * 1000; Date.now() < end; await new Promise((r) => setTimeout(r, 1000))) {
    if (await check()) return;
  }
  throw new Error(`timed out waiting for ${what}${explain ? `; then: ${await explain().catch((e) => `(${e})`)}` : ''}`);
}

/** What a worker looked like: its status, its last wait's outcome and its screen (for a failure's message). */
async function worldOf(name: string, last: unknown): Promise<string> {
  const status = (await run(['status', name, '--json'])).stdout.trim();
  const screen = (await run(['capture', name])).stdout.trim().split('\n').slice(-15).join('\n');
  return `last wait ${JSON.stringify(last)}; status ${status}; screen:\n${screen}`;
}

async function statusJson(name: string): Promise<Json> {
  return JSON.parse((await run(['status', name, '--json'])).stdout);
}

async function waitJson(name: string): Promise<{ code: number; outcome: Json; stderr: string }> {
  const r = await run(['wait', name, '--json', '--timeout', '240s']);
  try {
    return { code: r.code, outcome: JSON.parse(r.stdout), stderr: r.stderr };
  } catch {
    throw new Error(`wait ${name} printed no JSON (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  }
}

beforeAll(async () => {
  ({ root, mock, run } = await claudeTier('umbel-real-account-', { built: ['packages/cli/dist/cli.cjs'] }));
}, 120_000);

afterAll(() => cleanUp({ workers: [run], reap: [root], close: [mock], remove: [root] }), 300_000);

describe(`account outcomes on the real claude ${readPins().claude.version} (mock model on 127.0.0.1)`, () => {
  it('a 429 with and without retry-after is rate-limited (118), a 401 auth-failed (119); the worker lives on', { timeout: 600_000 }, async () => {
    const args = world('tui');
    const spawned = await run(['spawn', 'acct', ...args, '--startup-timeout', '180s']);
    expect(spawned.code, spawned.stderr).toBe(0);
    for (const prompt of [
      'FAIL 429 retry-after=3 Number of requests has exceeded your rate limit',
      'FAIL 429 Number of requests has exceeded your rate limit',
    ]) {
      await run(['send', 'acct', prompt]);
      const limited = await waitJson('acct');
      expect(limited.code, limited.stderr).toBe(118);
      expect(limited.outcome).toMatchObject({ reason: 'rate-limited', apiErrorStatus: 429 });
      expect(limited.outcome.message).toContain('Request rejected (429)');
      expect(limited.outcome).not.toHaveProperty('resetsAt');
    }
    await run(['send', 'acct', 'FAIL 401 invalid x-api-key']);
    const refused = await waitJson('acct');
    expect(refused.code, refused.stderr).toBe(119);
    expect(refused.outcome).toMatchObject({ reason: 'auth-failed', apiErrorStatus: 401, message: 'Invalid API key · Fix external API key' });
    await run(['send', 'acct', 'ECHO still here']);
    expect(await run(['wait', 'acct', '--timeout', '240s'])).toMatchObject({ code: 0, stdout: 'still here\n' });
  });

  it('a weekly limit days away: /rate-limit-options blocks; status needs-input, send refused (126) until keys answer it', { timeout: 600_000 }, async () => {
    const spawned = await run(['spawn', 'weekly', ...subscriptionWorld('weekly'), '--startup-timeout', '180s']);
    expect(spawned.code, spawned.stderr).toBe(0);
    await run(['send', 'weekly', 'FAIL 429 limit=weekly reset=259200 You have reached your usage limit.']);
    const limited = await waitJson('weekly');
    expect(limited.code, limited.stderr).toBe(118);
    expect(limited.outcome).toMatchObject({ reason: 'rate-limited', limit: 'seven_day' });
    expect(Date.parse(limited.outcome.resetsAt)).toBeGreaterThan(Date.now() + 250_000_000);
    await until(async () => (await statusJson('weekly')).state === 'needs-input', 'the dialog in status', 60);
    expect((await statusJson('weekly')).needsInput).toMatchObject({ kind: 'rate-limited' });
    const refused = await run(['send', 'weekly', 'ECHO into the dialog', '--json']);
    expect(refused.code).toBe(126);
    expect(JSON.parse(refused.stdout).error).toMatchObject({ code: 'UMBEL_ACCOUNT_DIALOG' });
    expect((await run(['capture', 'weekly'])).stdout).not.toContain('ECHO into the dialog');
    await run(['keys', 'weekly', 'Enter']); // the caller's answer: 1. Stop and wait for limit to reset
    await until(async () => (await statusJson('weekly')).state === 'ready', 'the dialog answered', 60);
    await run(['send', 'weekly', 'ECHO after the dialog']);
    expect(await run(['wait', 'weekly', '--timeout', '240s'])).toMatchObject({ code: 0, stdout: 'after the dialog\n' });
  });

  it('a 5-hour limit resetting in 1 s: Claude continues by itself; wait gets that answer for turn 1, the next send turn 2', { timeout: 600_000 }, async () => {
    const spawned = await run(['spawn', 'resume', ...subscriptionWorld('resume'), '--startup-timeout', '180s']);
    expect(spawned.code, spawned.stderr).toBe(0);
    await run(['send', 'resume', 'FAIL 429 x1 limit=usage reset=1 ECHO resumed after the reset']);
    const limited = await waitJson('resume');
    expect(limited.code, limited.stderr).toBe(118);
    expect(limited.outcome).toMatchObject({ reason: 'rate-limited', turn: 1, limit: 'five_hour' });
    // Claude continues 30–90 s (random) after the reset, never sooner (ACCOUNT-FACTS.md §1.3): until then wait
    // reports the limit, never hangs. A reset 1 s away leaves that margin and waits no longer than needed.
    let last = limited;
    await until(
      async () => (last = await waitJson('resume')).code === 0,
      'the automatic continue',
      300,
      () => worldOf('resume', last),
    );
    expect(last.outcome).toMatchObject({ reason: 'completed', turn: 1 });
    expect(last.outcome.result).toMatch(/^MOCK-REPLY: Your claude\.ai usage limit has reset\./);
    expect(await statusJson('resume')).toMatchObject({ state: 'ready', turn: 1, completedTurn: 1 });
    await run(['send', 'resume', 'ECHO the next one']);
    const next = await waitJson('resume');
    expect(next.outcome).toMatchObject({ reason: 'completed', turn: 2, result: 'the next one' });
  });

  it('-p: is_error with the reason under umbel, exit 118 / 119', { timeout: 600_000 }, async () => {
    const limited = await run(['-p', 'FAIL 429 Number of requests has exceeded your rate limit', '--output-format', 'json', ...world('p429')]);
    expect(limited.code, limited.stderr).toBe(118);
    expect(JSON.parse(limited.stdout)).toMatchObject({
      is_error: true,
      subtype: 'success',
      terminal_reason: 'api_error',
      api_error_status: 429,
      umbel: { reason: 'rate-limited', exit_code: 118 },
    });
    const refused = await run(['-p', 'FAIL 401 invalid x-api-key', ...world('p401')]);
    expect(refused.code, refused.stderr).toBe(119);
    expect(refused.stdout).toBe('Invalid API key · Fix external API key\n');
    expect(refused.stderr).toContain('sign in again');
  });
});
