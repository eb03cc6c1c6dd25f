// The world every real-claude tier file that drives the built `umbel` starts from (tests/real/claude-*.test.ts).
// Plain Node ESM; the types are in claude-tier.d.mts.
//
//   let tier; beforeAll(async () => { tier = await claudeTier('umbel-real-verbs-'); });
//   afterAll(() => cleanUp({ workers: [tier?.run], reap: [tier?.root], close: [tier?.mock], remove: [tier?.root] }));
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAnthropicMock } from '../mock-servers/anthropic.mjs';
import { realCliPath } from './clis.mjs';
import { MOCK_API_KEY } from './seed-claude.mjs';
import { assertBuilt, testEnv, umbelRunner } from './umbel-helpers.mjs';

/**
 * The pinned real `claude` (throws "run `pnpm install:real-clis`" when it is missing: the tier
 * fails, never skips), the build checked (`built`: more dist files, relative to BUILD_ROOT), a fresh
 * temp `root` (realpath, named `prefix…`) holding `user-home/`, the local Anthropic mock logging to
 * `root/requests.jsonl`, and umbel's own environment: CI=true, HOME=root/user-home,
 * UMBEL_HOME=root/umbel-home (`home`), UMBEL_CLAUDE_BIN=the real claude and the mock key in
 * ANTHROPIC_API_KEY (a worker gets it by name), with an umbel runner in `root`.
 * @param {string} prefix
 * @param {{built?: string[]}} [options]
 */
export async function claudeTier(prefix, { built = [] } = {}) {
  const claude = realCliPath('claude');
  assertBuilt(built);
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  try {
    const home = join(root, 'umbel-home');
    mkdirSync(join(root, 'user-home'), { recursive: true });
    const mock = await startAnthropicMock({ logFile: join(root, 'requests.jsonl') });
    const env = testEnv({ home: join(root, 'user-home'), umbelHome: home, CI: 'true', UMBEL_CLAUDE_BIN: claude, ANTHROPIC_API_KEY: MOCK_API_KEY });
    return { claude, root, home, mock, env, ...umbelRunner({ cwd: root, env }) };
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}
