/**
 * The fake `gemini` on account trouble, checked against what the REAL 0.61.0 did in the same world
 * (test-fixtures/real/recorded/account/gemini-*.json, recorded by test-fixtures/real/record-account.mjs):
 * `-p -o json` / stream-json errors and exit codes, and in the TUI the daily-quota dialog, the
 * endless retry of a retryable 429 until Escape, and the error / info chat records of a 401. The
 * worlds and drivers are the recorder's own (account-gemini.mjs); the fake talks to the same Gemini
 * mock the real one did. TUI cases run through @umbel/tmux (needs `pnpm build`).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM fixture without type declarations
import { startGeminiMock } from './mock-servers/gemini.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { geminiPrintCase, geminiTuiCase } from './real/account-gemini.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { makeWorld, tmuxHost } from './real/account-harness.mjs';

type Json = any;
const here = dirname(fileURLToPath(import.meta.url));
const FAKE = join(here, 'bin', 'gemini');
const recorded = (name: string): Json => JSON.parse(readFileSync(join(here, 'real', 'recorded', 'account', `${name}.json`), 'utf8'));

let mock: Json;
beforeAll(async () => {
  mock = await startGeminiMock();
});
afterAll(async () => {
  await mock?.close();
});

/** The recorded case with its inputs, run on the fake (a faster retry backoff: FAKE_GEMINI_RETRY_MS). */
async function run(name: string, runner: (o: Json) => Promise<Json>, overrides: Json = {}) {
  const real = recorded(name);
  const c = {
    name: `fake-${name}`,
    auth: real.auth,
    prompt: real.prompt,
    prompts: real.prompt,
    format: real.args?.includes('-o') ? real.args[real.args.indexOf('-o') + 1] : undefined,
    maxAttempts: 3,
    ...overrides,
  };
  const { out } = await runner({ gemini: FAKE, mock, c, makeWorld, tmuxHost });
  return { real, out };
}

describe('fake gemini -p on account errors, like the real one', () => {
  it.each([
    'gemini-p-429-json',
    'gemini-p-usage-limit-json',
    'gemini-p-401-json',
    'gemini-p-403-json',
    'gemini-p-api-key-missing-json',
  ])('%s: the same exit code and error JSON (message, code) on stderr', async (name) => {
    const { real, out } = await run(name, geminiPrintCase);
    expect(out.exitCode).toBe(real.exitCode);
    expect(out.stdout).toBe(real.stdout);
    const err = (o: Json) => ({ message: o.stderrJson?.error?.message, code: o.stderrJson?.error?.code, type: o.stderrJson?.error?.type });
    expect(err(out)).toEqual(err(real));
  });

  it('stream-json on the daily quota: the result error message with its hint', async () => {
    const { real, out } = await run('gemini-p-usage-limit-stream-json', geminiPrintCase);
    expect(out.exitCode).toBe(real.exitCode);
    const result = (o: Json) => o.stdout.find((e: Json) => e.type === 'result');
    expect(result(out).status).toBe('error');
    expect(result(out).error).toEqual(result(real).error);
  });
});

describe('fake gemini TUI on account errors, like the real one', () => {
  const chatOf = (turn: Json) => turn.chat.filter((r: Json) => r.type === 'error' || r.type === 'info').map((r: Json) => [r.type, r.content]);
  const response = (turn: Json) => turn.hooks.find((h: Json) => h.event === 'AfterAgent')?.payload.prompt_response;

  it.each(['gemini-401', 'gemini-403', 'gemini-400-bad-key'])('%s: AfterAgent "[no response text]", the same error and info records', async (name) => {
    const { real, out } = await run(name, geminiTuiCase);
    const turn = out.turns[0];
    expect(response(turn)).toBe(response(real.turns[0]));
    expect(chatOf(turn)).toEqual(chatOf(real.turns[0]));
  });

  it('a daily quota opens "Usage limit reached for <model>"; 2. Stop ends the turn with the quota error', async () => {
    const { real, out } = await run('gemini-usage-limit', geminiTuiCase, { dialog: 'Usage limit reached for', dialogKeys: ['Down', 'Enter'], maxAttempts: 3 });
    const turn = out.turns[0];
    for (const line of ['/stats model for usage details', '/model to switch models.', '● 1. Keep trying', '2. Stop']) {
      expect(real.turns[0].dialogScreen).toContain(line);
      expect(turn.dialogScreen).toContain(line);
    }
    expect(turn.dialogScreen).toMatch(/Usage limit reached for \S+\./);
    expect(response(turn)).toBe(response(real.turns[0]));
    expect(chatOf(turn)).toEqual(chatOf(real.turns[0]));
  });

  it('the daily-quota dialog answered 1. Keep trying sends the prompt again', async () => {
    const { real, out } = await run('gemini-usage-limit-keep-trying', geminiTuiCase, { dialog: 'Usage limit reached for', dialogKeys: ['Enter'] });
    expect(response(out.turns[0])).toBe(response(real.turns[0]));
  });

  it('a 429 the CLI can retry: no error shown, still working after the attempts; Escape cancels ("Request cancelled.")', async () => {
    const before = mock.requests().length;
    const { real, out } = await run('gemini-429', geminiTuiCase, { cancelAfterMs: 6000, midScreenMs: [] });
    const turn = out.turns[0];
    expect(real.turns[0].stillWorkingScreen).toMatch(/Thinking\.\.\. \(esc to cancel/);
    expect(turn.stillWorkingScreen).toMatch(/Thinking\.\.\. \(esc to cancel/);
    expect(turn.stillWorkingScreen).not.toContain('✕');
    // more requests than general.maxAttempts (3): the attempts start over
    expect(
      mock
        .requests()
        .slice(before)
        .filter((r: Json) => r.prompt === real.turns[0].prompt && r.kind === 'turn').length,
    ).toBeGreaterThan(3);
    expect(response(turn)).toBe(response(real.turns[0]));
    expect(chatOf(turn)).toEqual(chatOf(real.turns[0]));
  });

  it("the local telemetry records each retried 429 attempt like the real one's (event, role, status, the API body)", async () => {
    const { out } = await run('gemini-429', geminiTuiCase, { cancelAfterMs: 4000, midScreenMs: [], telemetry: true });
    const real = apiRecords(readFileSync(join(here, 'real', 'recorded', 'account', 'gemini-429-telemetry.log'), 'utf8'));
    const fake = out.telemetry as Json[];
    const shape = (r: Json) => ({ event: r['event.name'], role: r.role, status: r.status_code, error: r.error });
    const errors = (records: Json[]) => records.filter((r) => r['event.name'] === 'gemini_cli.api_error');
    expect(errors(fake).length).toBeGreaterThan(3);
    expect(shape(errors(fake)[0])).toEqual(shape(errors(real)[0]));
    // the fields a reader needs carry the same names as the real one's
    for (const key of ['event.timestamp', 'session.id', 'prompt_id', 'model']) expect(errors(fake)[0]).toHaveProperty([key]);
  });
});

/** The api_* log records' attributes of a telemetry file (pretty-printed JSON objects, one after another). */
function apiRecords(text: string): Json[] {
  return text
    .split(/\n(?=\{\n)/)
    .filter((chunk) => chunk.includes('"gemini_cli.api_'))
    .map((chunk) => JSON.parse(chunk).attributes)
    .filter((a: Json) => a.role === 'main');
}
