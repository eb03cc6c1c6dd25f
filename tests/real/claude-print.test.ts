// Real-CLI tier: `umbel -p` (through the real claude TUI in tmux) against the real `claude -p`, for
// the same prompt on the same local Anthropic mock. A script that reads `claude -p --output-format
// json` must be able to read `umbel -p` the same way. No network, no model service. When the
// binary or the build is missing these tests FAIL, they never skip.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeTier } from '../../test-fixtures/real/claude-tier.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { readPins } from '../../test-fixtures/real/clis.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { claudeEnv, seedClaudeConfig } from '../../test-fixtures/real/seed-claude.mjs';
import { cleanUp, processesOf, runCommand, teardownsDone } from '../../test-fixtures/real/umbel-helpers.mjs';

type Json = any;
type Result = { code: number; stdout: string; stderr: string };
type Mock = { url: string; requests: () => Array<Record<string, Json>>; close: () => Promise<void> };

/** Every key a script reads from `claude -p --output-format json`. */
const SCRIPT_KEYS = [
  'type',
  'subtype',
  'is_error',
  'result',
  'session_id',
  'duration_ms',
  'duration_api_ms',
  'num_turns',
  'usage',
  'modelUsage',
  'total_cost_usd',
  'permission_denials',
  'terminal_reason',
  'stop_reason',
  'api_error_status',
] as const;

let claude: string;
let root: string;
let home: string;
let work: string;
let mock: Mock;
let umbel: (args: string[], options?: { input?: string }) => Promise<Result>;
let n = 0;

/** The real `claude -p` with a cleared env (like `env -i`), a fresh empty config dir (-p needs no seed). */
function claudeP(args: string[], { maxRetries = 1 }: { maxRetries?: number } = {}): Promise<Result> {
  const configDir = join(root, `claude-p-config-${++n}`);
  mkdirSync(configDir, { recursive: true });
  const env = {
    HOME: join(root, 'user-home'),
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LANG: 'C.UTF-8',
    ...claudeEnv({ configDir, baseUrl: mock.url, maxRetries }),
  };
  return runCommand(claude, args, { cwd: work, env });
}

/** `umbel -p` with a fresh seeded (untrusted) config dir and the same endpoint; the key by name. */
function umbelP(args: string[], { maxRetries = 1, input }: { maxRetries?: number; input?: string } = {}): Promise<Result> {
  const configDir = join(root, `umbel-p-config-${++n}`);
  seedClaudeConfig({ configDir });
  return umbel(
    [
      '-p',
      ...args,
      '--cwd',
      work,
      '--env',
      'ANTHROPIC_API_KEY',
      '--env',
      `ANTHROPIC_BASE_URL=${mock.url}`,
      '--env',
      `CLAUDE_CONFIG_DIR=${configDir}`,
      '--env',
      `CLAUDE_CODE_MAX_RETRIES=${maxRetries}`,
      '--timeout',
      '240s',
    ],
    { input },
  );
}

function parseJson(r: Result, who: string): Json {
  try {
    return JSON.parse(r.stdout);
  } catch {
    throw new Error(`${who} printed no JSON (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  }
}

function parseLines(r: Result, who: string): Json[] {
  const lines = r.stdout.split('\n').filter((l) => l.trim() !== '');
  return lines.map((l, i) => {
    try {
      return JSON.parse(l);
    } catch {
      throw new Error(`${who}: stream-json line ${i + 1} is not JSON: ${l}\n${r.stderr}`);
    }
  });
}

/** What a script can rely on for each key: present, and of the same JSON type. */
function keyTypes(o: Json): Record<string, string> {
  return Object.fromEntries(SCRIPT_KEYS.map((k) => [k, k in o ? (o[k] === null ? 'null' : typeof o[k]) : 'missing']));
}

async function noAnonymousWorkerLeft(): Promise<void> {
  await teardownsDone(home); // -p exited with its answer; its worker goes after, in a detached process
  const listed = await umbel(['ls', '--json']);
  expect(listed.code, listed.stderr).toBe(0);
  expect(JSON.parse(listed.stdout).map((w: { name: string }) => w.name)).toEqual([]);
  // No Claude Code process of an umbel -p worker is left either (they all ran in `work`).
  expect(processesOf({ cwd: work, argsIncludes: [join(home, 'workers')] }).filter((p: { args: string }) => !/^\S*tmux /.test(p.args))).toEqual([]);
}

beforeAll(async () => {
  ({ claude, root, home, mock, run: umbel } = await claudeTier('umbel-real-print-'));
  work = join(root, 'work');
  mkdirSync(work, { recursive: true });
}, 120_000);

afterAll(() => cleanUp({ workers: [umbel], reap: [root], close: [mock], remove: [root] }), 300_000);

describe(`umbel -p vs the real claude -p ${readPins().claude.version} (same mock)`, () => {
  it('--output-format json: same result, is_error and subtype; every key a script reads is in both', { timeout: 600_000 }, async () => {
    const prompt = 'ECHO the same answer';
    const real = await claudeP(['-p', prompt, '--output-format', 'json']);
    const ours = await umbelP([prompt, '--output-format', 'json']);
    expect(real.code, real.stderr).toBe(0);
    expect(ours.code, ours.stderr).toBe(0);
    const r = parseJson(real, 'claude -p');
    const u = parseJson(ours, 'umbel -p');
    expect(u.result).toBe('the same answer');
    expect({ result: u.result, is_error: u.is_error, subtype: u.subtype, type: u.type }).toEqual({
      result: r.result,
      is_error: r.is_error,
      subtype: r.subtype,
      type: r.type,
    });
    expect(keyTypes(u)).toEqual(keyTypes(r));
    expect(Object.values(keyTypes(r))).not.toContain('missing');
    expect(u.session_id).toMatch(/^[0-9a-f-]{36}$/);
    for (const k of ['input_tokens', 'output_tokens']) {
      expect(typeof r.usage[k], `claude usage.${k}`).toBe('number');
      expect(typeof u.usage[k], `umbel usage.${k}`).toBe('number');
    }
    expect(u).toMatchObject({ provider: 'claude', turn: 1 });
    // read from the worker's transcript: the same stop reason, no API error, the same model
    expect({ stop_reason: u.stop_reason, api_error_status: u.api_error_status }).toEqual({ stop_reason: r.stop_reason, api_error_status: null });
    expect(Object.keys(u.modelUsage)).toEqual(Object.keys(r.modelUsage));
    await noAnonymousWorkerLeft();
  });

  it('text: the same stdout (answer + newline) and exit 0, multi-line exact', { timeout: 600_000 }, async () => {
    const prompt = 'ECHO line one\n  line "two" `x` $y\nline three';
    const real = await claudeP(['-p', prompt]);
    const ours = await umbelP([prompt]);
    expect(real).toMatchObject({ code: 0, stdout: 'line one\n  line "two" `x` $y\nline three\n' });
    expect({ code: ours.code, stdout: ours.stdout }).toEqual({ code: real.code, stdout: real.stdout });
    await noAnonymousWorkerLeft();
  });

  it('stream-json --verbose: every line parses; init first, the same message sequence, a result line last', { timeout: 600_000 }, async () => {
    const args = ['TOOL echo streamed', '--output-format', 'stream-json', '--verbose', '--allowed-tools', 'Bash(echo:*)'];
    const real = await claudeP(['-p', ...args]);
    const ours = await umbelP(args);
    expect(real.code, real.stderr).toBe(0);
    expect(ours.code, ours.stderr).toBe(0);
    const r = parseLines(real, 'claude -p');
    const u = parseLines(ours, 'umbel -p');
    for (const lines of [r, u]) {
      expect(lines[0]).toMatchObject({ type: 'system', subtype: 'init' });
      expect(lines.at(-1)).toMatchObject({ type: 'result', subtype: 'success', is_error: false, result: 'TOOL-RESULT: streamed' });
      expect(lines.filter((l) => l.type === 'result')).toHaveLength(1);
    }
    // assistant (tool_use) → user (tool_result) → assistant (text), as claude -p streams them.
    const messages = (lines: Json[]) =>
      lines.filter((l) => l.type === 'assistant' || l.type === 'user').map((l) => `${l.type}:${(l.message?.content ?? []).map((b: Json) => b.type).join('+')}`);
    expect(messages(u)).toEqual(messages(r));
    expect(messages(r)).toEqual(['assistant:tool_use', 'user:tool_result', 'assistant:text']);
    await noAnonymousWorkerLeft();
  });

  it('a model failure (HTTP 500, no retries): the same is_error, subtype and result text, exit 1 in both', { timeout: 600_000 }, async () => {
    const prompt = 'FAIL 500 upstream exploded';
    const real = await claudeP(['-p', prompt, '--output-format', 'json'], { maxRetries: 0 });
    const ours = await umbelP([prompt, '--output-format', 'json'], { maxRetries: 0 });
    expect(real.code).toBe(1);
    expect(ours.code, ours.stderr).toBe(1);
    const r = parseJson(real, 'claude -p');
    const u = parseJson(ours, 'umbel -p');
    expect(r).toMatchObject({ is_error: true, api_error_status: 500 });
    expect(r.result).toContain('API Error: 500 upstream exploded');
    expect({ is_error: u.is_error, subtype: u.subtype }).toEqual({ is_error: r.is_error, subtype: r.subtype });
    expect(u.result).toBe(r.result);
    expect(keyTypes(u)).toEqual(keyTypes(r));
    expect({ api_error_status: u.api_error_status, api_error_type: u.api_error_type, stop_reason: u.stop_reason }).toEqual({
      api_error_status: r.api_error_status,
      api_error_type: r.api_error_type,
      stop_reason: r.stop_reason,
    });

    // Text mode: the error text on stdout, exit 1, in both.
    const realText = await claudeP(['-p', prompt], { maxRetries: 0 });
    const oursText = await umbelP([prompt], { maxRetries: 0 });
    expect(realText.code).toBe(1);
    expect({ code: oursText.code, stdout: oursText.stdout }).toEqual({ code: realText.code, stdout: realText.stdout });
    await noAnonymousWorkerLeft();
  });
});
