import { purgeWorkers, runCommand, teardownsDone } from '../../test-fixtures/real/umbel-helpers.mjs';
import { describe, expect, it } from 'vitest';
import { PIN, T, oc, ocPrint, opencode, freshUser, spawn, turnsFor } from './opencode-world.js';

describe(`umbel --provider opencode on the real ${PIN.package}@${PIN.version} against the chat-completions mock: -p and --model`, () => {
  it(
    '--model provider/model is checked against `opencode models` and reaches the model API; an unknown one is exit 2',
    async () => {
      const user = await freshUser();
      await spawn(user, 'm2', ['--model', 'mock/mock-model-2']);
      await user.umbel(['send', 'm2', 'ECHO from model two']);
      expect((await user.umbel(['wait', 'm2', '--timeout', '150s'])).stdout).toBe('from model two\n');
      expect(turnsFor('ECHO from model two')[0]?.body?.model).toBe('mock-model-2');
      const unknown = await user.umbel(['spawn', 'm3', ...oc, '--model', 'mock/nope']);
      expect(unknown.code, unknown.stderr).toBe(2);
      expect(unknown.stderr).toContain("opencode has no model 'mock/nope': it lists mock/mock-model, mock/mock-model-2, opencode/big-pickle");
      await purgeWorkers(user.umbel);
    },
    T,
  );

  it(
    '`umbel -p` prints what `opencode run` prints (text); json has the result contract and agrees with `opencode run --format json`',
    async () => {
      const user = await freshUser();
      const prompt = 'ECHO same answer\nacross two lines';
      // `opencode run` takes the prompt byte-exact on stdin (one argument with spaces would arrive quoted)
      const run = await runCommand(opencode, ['run'], { cwd: user.work, env: user.env, input: prompt });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe('same answer\nacross two lines\n');
      const print = await user.umbel(['-p', prompt, ...ocPrint]);
      expect(print, print.stderr).toMatchObject({ code: 0, stdout: run.stdout });

      const runJson = await runCommand(opencode, ['run', '--format', 'json'], { cwd: user.work, env: user.env, input: 'ECHO as json' });
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
      const runFailed = await runCommand(opencode, ['run', '--format', 'json'], { cwd: user.work, env: user.env, input: 'FAIL 400 bad run' });
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
