// Real-CLI tier: the REAL pinned Qwen Code 0.15.10 with `--provider qwen` against the chat-completions
// mock (the world: ./qwen-world.ts). Facts: test-fixtures/real/QWEN-FACTS.md.
import { existsSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM fixture without type declarations
import { readPins } from '../../test-fixtures/real/clis.mjs';
import { Q, T, useQwenWorld } from './qwen-world.js';

const w = useQwenWorld();
const waitJson = (name: string) => w.waitJson(name);

describe(`real Qwen Code ${readPins().qwen.version} with --provider qwen (umbel runs with CI=true)`, () => {
  it(
    'answers exactly, turn after turn; a multi-line prompt arrives byte-exact; billing api from the banner; no update check',
    async () => {
      const spawned = await w.umbel(['spawn', 'r1', ...Q, '--json']);
      expect(spawned.code, spawned.stderr).toBe(0);
      expect(JSON.parse(spawned.stdout)).toMatchObject({ state: 'ready', billing: 'api', billingEvidence: 'the banner says "API Key"' });
      await w.umbel(['send', 'r1', 'ECHO first real answer']);
      expect(await w.umbel(['wait', 'r1', '--timeout', '180s'])).toMatchObject({ code: 0, stdout: 'first real answer\n' });
      const multi = 'line one\nline "two" with $HOME and `ticks`\n\n\tindented ünïcödé 🚀';
      await w.umbel(['send', 'r1', `ECHO ${multi}`]);
      const { outcome } = await waitJson('r1');
      expect(outcome).toMatchObject({ reason: 'completed', turn: 2, result: multi, provider: 'qwen' });
      expect(outcome.transcriptPath).toMatch(/\/\.qwen\/projects\/[^/]+\/chats\/[0-9a-f-]{36}\.jsonl$/);
      expect(
        w.mock
          .requests()
          .filter((r) => r.kind === 'turn')
          .map((r) => r.prompt),
      ).toEqual(expect.arrayContaining(['ECHO first real answer', `ECHO ${multi}`]));
      // auto-update never ran: no npm cache or update-notifier state in the user's home
      expect(await readdir(w.userHome).catch(() => [])).not.toContain('.npm');
    },
    T,
  );

  it(
    'a permission prompt is needs-input (126); `keys Enter` approves it and the turn completes after the tool result',
    async () => {
      await w.umbel(['spawn', 'perm', ...Q]);
      await w.umbel(['send', 'perm', 'TOOL touch approved-by-keys.txt']);
      const blocked = await waitJson('perm');
      expect(blocked).toMatchObject({ code: 126, outcome: { reason: 'needs-input', inputKind: 'permission', tool: 'run_shell_command' } });
      expect(blocked.outcome.paneTail).toContain('Yes, allow once');
      expect(existsSync(join(w.work, 'approved-by-keys.txt'))).toBe(false);
      expect((await w.umbel(['keys', 'perm', 'Enter'])).code).toBe(0);
      const done = await waitJson('perm');
      expect(done.outcome).toMatchObject({ reason: 'completed', turn: 1 });
      expect(done.outcome.result).toMatch(/^TOOL-RESULT: Command: touch approved-by-keys.txt\n/);
      expect(existsSync(join(w.work, 'approved-by-keys.txt'))).toBe(true);
      await w.umbel(['send', 'perm', 'ECHO after the tool']);
      expect((await waitJson('perm')).outcome).toMatchObject({ reason: 'completed', result: 'after the tool', turn: 2 });
    },
    T,
  );

  it(
    '--unattended (YOLO: its input box reads `*   Type your message…`) is ready, and a tool runs without asking',
    async () => {
      const spawned = await w.umbel(['spawn', 'yolo', ...Q, '--unattended', '--json']);
      expect(spawned.code, spawned.stderr).toBe(0);
      expect(JSON.parse(spawned.stdout)).toMatchObject({ state: 'ready' });
      await w.umbel(['send', 'yolo', 'TOOL touch unattended.txt']);
      expect((await waitJson('yolo')).outcome).toMatchObject({ reason: 'completed', turn: 1 });
      expect(existsSync(join(w.work, 'unattended.txt'))).toBe(true);
    },
    T,
  );

  it(
    'a send while a turn runs is refused (Qwen may drain it into that turn): nothing typed, no number taken',
    async () => {
      // turn 1's tool runs until the test opens the gate: the send below meets it running on any machine
      writeFileSync(join(w.work, 'gate.sh'), 'while [ ! -e gate-open ]; do sleep 0.2; done\n');
      await w.umbel(['spawn', 'busy', ...Q, '--unattended']);
      expect((await w.umbel(['send', 'busy', 'TOOL sh gate.sh'])).stdout).toBe('1\n');
      const refused = await w.umbel(['send', 'busy', 'ECHO typed while busy', '--json']);
      expect(refused.code, refused.stdout).toBe(1);
      expect(refused.stderr).toMatch(/still running turn 1.*into that turn.*nothing was typed/);
      writeFileSync(join(w.work, 'gate-open'), '');
      expect((await waitJson('busy')).outcome).toMatchObject({ reason: 'completed', turn: 1 });
      expect(w.mock.requests().some((r) => r.prompt?.includes('typed while busy'))).toBe(false);
      expect((await w.umbel(['send', 'busy', 'ECHO after the busy turn'])).stdout).toBe('2\n');
      expect(await w.umbel(['wait', 'busy', '--timeout', '180s'])).toMatchObject({ code: 0, stdout: 'after the busy turn\n' });
    },
    T,
  );

  it(
    'an API error is provider-error (122), a 401 auth-failed (119), a 429 it keeps retrying rate-limited (118); the worker answers again',
    async () => {
      await w.umbel(['spawn', 'err', ...Q]);
      await w.umbel(['send', 'err', 'FAIL 400 real bad request']);
      expect(await waitJson('err')).toMatchObject({ code: 122, outcome: { reason: 'provider-error', apiErrorStatus: 400 } });
      await w.umbel(['send', 'err', 'FAIL 401 real invalid key']);
      expect(await waitJson('err')).toMatchObject({ code: 119, outcome: { reason: 'auth-failed', apiErrorStatus: 401 } });
      await w.umbel(['send', 'err', 'FAIL 429 real slow down']);
      expect(await waitJson('err')).toMatchObject({ code: 118, outcome: { reason: 'rate-limited', apiErrorStatus: 429, apiErrorType: 'RateLimitError' } });
      await w.umbel(['send', 'err', 'ECHO still here']);
      expect(await w.umbel(['wait', 'err', '--timeout', '180s'])).toMatchObject({ code: 0, stdout: 'still here\n' });
    },
    T,
  );

  it(
    'umbel -p: text and json output',
    async () => {
      const text = await w.umbel(['-p', 'ECHO one shot\nsecond line', ...Q, '--pool', 'none']);
      expect(text, text.stderr).toMatchObject({ code: 0, stdout: 'one shot\nsecond line\n' });
      const json = await w.umbel(['-p', 'ECHO as json', ...Q, '--pool', 'none', '--output-format', 'json']);
      expect(JSON.parse(json.stdout)).toMatchObject({ type: 'result', is_error: false, result: 'as json' });
    },
    T,
  );
});
