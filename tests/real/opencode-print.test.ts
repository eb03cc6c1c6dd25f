import { teardownsDone } from '../../test-fixtures/real/umbel-helpers.mjs';
import { describe, expect, it } from 'vitest';
import { PIN, T, ocPrint, freshUser, referenceRun } from './opencode-world.js';

describe(`umbel --provider opencode on the real ${PIN.package}@${PIN.version} against the chat-completions mock: -p`, () => {
  it(
    '`umbel -p` prints what `opencode run` prints (text); json has the result contract and agrees with `opencode run --format json`',
    async () => {
      const user = await freshUser();
      const prompt = 'ECHO same answer\nacross two lines';
      // `opencode run` takes the prompt byte-exact on stdin (one argument with spaces would arrive quoted)
      const run = await referenceRun(user, ['run'], prompt);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe('same answer\nacross two lines\n');
      const print = await user.umbel(['-p', prompt, ...ocPrint]);
      expect(print, print.stderr).toMatchObject({ code: 0, stdout: run.stdout });

      const runJson = await referenceRun(user, ['run', '--format', 'json'], 'ECHO as json');
      expect(runJson.code, runJson.stderr).toBe(0);
      const lines = runJson.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const runText = lines.filter((l) => l.type === 'text').map((l) => l.part.text);
      const finish = lines.find((l) => l.type === 'step_finish');
      const json = await user.umbel(['-p', 'ECHO as json', '--output-format', 'json', ...ocPrint]);
      expect(json.code, json.stderr).toBe(0);
      const result = JSON.parse(json.stdout);
      expect(result).toMatchObject({ type: 'result', subtype: 'success', is_error: false, result: runText.join(''), provider: 'opencode', num_turns: 1 });
      expect(result.session_id).toMatch(/^ses_/);
      expect(finish.part.reason).toBe('stop');
      // the same counters opencode reports, in Claude's names
      expect(result.usage.output_tokens).toBe(finish.part.tokens.output);
      expect(result.usage.input_tokens).toBeGreaterThan(0);

      const failed = await user.umbel(['-p', 'FAIL 400 bad run', '--output-format', 'json', ...ocPrint]);
      expect(failed.code).toBe(1);
      expect(JSON.parse(failed.stdout)).toMatchObject({ type: 'result', is_error: true, umbel: { reason: 'provider-error' } });
      const runFailed = await referenceRun(user, ['run', '--format', 'json'], 'FAIL 400 bad run');
      expect(runFailed.code).toBe(1);
      expect(JSON.parse(runFailed.stdout.trim().split('\n').at(-1) ?? '{}')).toMatchObject({
        type: 'error',
        error: { data: { message: 'bad run', statusCode: 400 } },
      });
      expect(JSON.parse(failed.stdout).result).toContain('bad run');
      await teardownsDone(user.state); // -p exited with its answer; its worker goes after, in a detached process
      expect(JSON.parse((await user.umbel(['ls', '--json'])).stdout)).toEqual([]);
    },
    T,
  );
});
