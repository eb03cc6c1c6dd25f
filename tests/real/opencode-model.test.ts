import { purgeWorkers } from '../../test-fixtures/real/umbel-helpers.mjs';
import { describe, expect, it } from 'vitest';
import { PIN, T, oc, freshUser, spawn, turnsFor, send } from './opencode-world.js';

// Its own file (not opencode-print's): the two cases take minutes each on a loaded machine, and
// two files run on two workers.
describe(`umbel --provider opencode on the real ${PIN.package}@${PIN.version} against the chat-completions mock: --model`, () => {
  it(
    '--model provider/model is checked against `opencode models` and reaches the model API; an unknown one is exit 2',
    async () => {
      const user = await freshUser();
      await spawn(user, 'm2', ['--model', 'mock/mock-model-2']);
      await send(user, 'm2', 'ECHO from model two');
      expect((await user.umbel(['wait', 'm2', '--timeout', '150s'])).stdout).toBe('from model two\n');
      expect(turnsFor('ECHO from model two')[0]?.body?.model).toBe('mock-model-2');
      const unknown = await user.umbel(['spawn', 'm3', ...oc, '--model', 'mock/nope']);
      expect(unknown.code, unknown.stderr).toBe(2);
      expect(unknown.stderr).toContain("opencode has no model 'mock/nope': it lists mock/mock-model, mock/mock-model-2, opencode/big-pickle");
      await purgeWorkers(user.umbel);
    },
    T,
  );
});
