// Real-CLI tier: the account facts of test-fixtures/real/ACCOUNT-FACTS.md still hold for the REAL
// pinned CLIs (pnpm install:real-clis), offline against the local mocks — a short subset of what
// test-fixtures/real/record-account.mjs records, run through the very same drivers, compared with the
// recordings in test-fixtures/real/recorded/account/. A CLI bump that changes how billing shows or how
// a usage limit / auth failure reads fails here (re-record, then adapt the providers and the fakes).
// The TUIs run in a private tmux host through @umbel/tmux (needs `pnpm build`). Never skips.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM fixture without type declarations
import { startAnthropicMock } from '../../test-fixtures/mock-servers/anthropic.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { startGeminiMock } from '../../test-fixtures/mock-servers/gemini.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { startResponsesMock } from '../../test-fixtures/mock-servers/openai-responses.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { claudePrintCase, claudeTuiCase } from '../../test-fixtures/real/account-claude.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { codexExecCase, codexTuiCase } from '../../test-fixtures/real/account-codex.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { geminiPrintCase, geminiTuiCase } from '../../test-fixtures/real/account-gemini.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { makeWorld, tmuxHost } from '../../test-fixtures/real/account-harness.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { realCliPath } from '../../test-fixtures/real/clis.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { CASES } from '../../test-fixtures/real/record-account-cases.mjs';
import { REPO_ROOT, assertBuilt } from '../../test-fixtures/real/umbel-helpers.mjs';

type Json = any;
const T = 300_000;
const recorded = (name: string): Json => JSON.parse(readFileSync(join(REPO_ROOT, 'test-fixtures/real/recorded/account', `${name}.json`), 'utf8'));
/** The recorder's case `name` (with `extra` on top) and its recording. */
const again = (name: string, extra: Json = {}) => {
  const c = CASES.find((k: Json) => k.name === name);
  if (!c) throw new Error(`no recorder case ${name}`);
  return { real: recorded(name), c: { ...c, name: `again-${name}`, ...extra } };
};
/** A reset time as the CLIs word it → a pattern ("12:20pm", "6pm", "12:55 PM", "Dec 4th, 2026 10:55 AM"). */
const timeless = (text: string) => String(text).replace(/(?:[A-Z][a-z]{2} \d{1,2}(?:st|nd|rd|th)?, (?:\d{4} )?)?\d{1,2}(?::\d\d)? ?(?:[ap]m|[AP]M)/g, '<time>');

describe('timeless', () => {
  it('hides every way the CLIs word a reset time, on the hour too', () => {
    for (const t of ['12:20pm', '12:55 PM', '6pm', '12pm', '6 PM', 'Dec 4th, 2026 10:55 AM', 'Dec 4th, 6pm'])
      expect(timeless(`resets ${t} (UTC)`), t).toBe('resets <time> (UTC)');
    expect(timeless('resets in 5 hours')).toBe('resets in 5 hours');
  });
});

const mocks: Json[] = [];
beforeAll(() => {
  assertBuilt(['packages/tmux/dist/index.js']);
});
afterAll(async () => {
  for (const m of mocks) await m.close();
});
async function mockOf(start: () => Promise<Json>) {
  const m = await start();
  mocks.push(m);
  return m;
}

describe('Claude Code: billing shown, plan limits, statusLine rate_limits', () => {
  it(
    'a claude.ai login bills the subscription (banner, auth status); a 5-hour limit: StopFailure rate_limit, usage_limit_reached with resetsAt',
    async () => {
      const { real, c } = again('claude-usage-limit');
      const { out } = await claudeTuiCase({ claude: realCliPath('claude'), mock: await mockOf(startAnthropicMock), c, makeWorld, tmuxHost });
      const banner = (s: string) =>
        s
          .split('\n')
          .find((l) => l.includes(' · Claude '))
          ?.trim();
      expect(banner(out.startupScreen)).toBe(banner(real.startupScreen));
      expect(out.authStatus.json.authMethod).toBe('claude.ai');
      const failure = out.turns[0].hooks.find((h: Json) => h.event === 'StopFailure').payload;
      const realFailure = real.turns[0].hooks.find((h: Json) => h.event === 'StopFailure').payload;
      expect({ ...failure, last_assistant_message: timeless(failure.last_assistant_message) }).toMatchObject({
        error: realFailure.error,
        last_assistant_message: timeless(realFailure.last_assistant_message),
      });
      const entry = out.turns[0].transcript.find((r: Json) => r.apiError === 'usage_limit_reached');
      expect(entry.apiErrorParams.rate_limit_info).toMatchObject({ status: 'rejected', rateLimitType: 'five_hour' });
      expect(entry.apiErrorParams.rate_limit_info.resetsAt).toBeGreaterThan(Date.now() / 1000 + 7000);
    },
    T,
  );

  it(
    'statusLine input carries rate_limits for a subscription once the server reported plan usage',
    async () => {
      const { real, c } = again('claude-statusline', { prompts: [recorded('claude-statusline').prompt[0]], idleMs: 0 });
      expect(c.statusLine).toBeTruthy();
      const { out } = await claudeTuiCase({ claude: realCliPath('claude'), mock: await mockOf(startAnthropicMock), c, makeWorld, tmuxHost });
      const withLimits = out.statusLine.inputs.find((i: Json) => i.input.rate_limits);
      expect(Object.keys(withLimits.input.rate_limits)).toEqual(Object.keys(real.statusLine.inputs[1].input.rate_limits));
      expect(withLimits.input.rate_limits.five_hour.used_percentage).toBe(42);
    },
    T,
  );

  it(
    '-p uses ANTHROPIC_API_KEY; a 401 reads like the recording',
    async () => {
      const { real, c } = again('claude-p-401-json');
      const { out } = await claudePrintCase({ claude: realCliPath('claude'), mock: await mockOf(startAnthropicMock), c, makeWorld });
      expect(out.exitCode).toBe(real.exitCode);
      expect(out.stdout.result).toBe(real.stdout.result);
      expect(out.stdout.api_error_status).toBe(401);
    },
    T,
  );
});

describe('Codex: plan limits and rate_limits', () => {
  it(
    'a plan usage limit: task_complete.error usage_limit_exceeded, the used-up window in token_count.rate_limits',
    async () => {
      const { real, c } = again('codex-usage-limit', { status: false });
      const { out } = await codexTuiCase({ codex: realCliPath('codex'), mock: await mockOf(startResponsesMock), c, makeWorld, tmuxHost });
      const end = (rollout: Json[]) => rollout.find((r) => r.payload?.type === 'task_complete').payload.error;
      expect({ ...end(out.turns[0].rollout), message: timeless(end(out.turns[0].rollout).message) }).toEqual({
        ...end(real.turns[0].rollout),
        message: timeless(end(real.turns[0].rollout).message),
      });
      const limits = out.turns[0].rollout.filter((r: Json) => r.payload?.type === 'token_count').at(-1).payload.rate_limits;
      expect(limits.primary).toMatchObject({ used_percent: 100, window_minutes: 300 });
    },
    T,
  );

  it(
    'exec --json on a 401: the error events and codex_error_info of the recording',
    async () => {
      const { real, c } = again('codex-exec-401');
      const { out } = await codexExecCase({ codex: realCliPath('codex'), mock: await mockOf(startResponsesMock), c, makeWorld });
      expect(out.exitCode).toBe(1);
      const info = (rollout: Json[]) => rollout.find((r) => r.payload?.type === 'task_complete').payload.error.codex_error_info;
      expect(info(out.rollout)).toEqual(info(real.rollout));
    },
    T,
  );
});

describe('Gemini CLI: the daily quota', () => {
  it(
    '-p: exit 173 and "You have exhausted your daily quota on this model."',
    async () => {
      const { real, c } = again('gemini-p-usage-limit-json');
      const { out } = await geminiPrintCase({ gemini: realCliPath('gemini'), mock: await mockOf(startGeminiMock), c, makeWorld });
      expect(out.exitCode).toBe(real.exitCode);
      expect(out.stderrJson.error).toEqual(real.stderrJson.error);
    },
    T,
  );

  it(
    'TUI: the "Usage limit reached for <model>" dialog; Stop ends the turn with the quota error',
    async () => {
      const { real, c } = again('gemini-usage-limit');
      const { out } = await geminiTuiCase({ gemini: realCliPath('gemini'), mock: await mockOf(startGeminiMock), c, makeWorld, tmuxHost });
      for (const line of ['/stats model for usage details', '● 1. Keep trying', '2. Stop']) expect(out.turns[0].dialogScreen).toContain(line);
      const errors = (turn: Json) => turn.chat.filter((r: Json) => r.type === 'error').map((r: Json) => r.content);
      expect(errors(out.turns[0])).toEqual(errors(real.turns[0]));
    },
    T,
  );
});
