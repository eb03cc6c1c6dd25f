// Real-CLI tier (issue 17): billing with the REAL pinned `claude` 2.1.328 driven by the BUILT `umbel`
// in tmux, against the local Anthropic mock (no network). umbel's own env carries ANTHROPIC_API_KEY
// (claudeTier), as a user's shell often does for other tools; the config dirs are seeded with
// onboarding and trust but NO key approval, so Claude Code asks about any key it sees.
// When the binary or the build is missing these tests FAIL, they never skip.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeTier } from '../../test-fixtures/real/claude-tier.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { approvedKeySuffix, MOCK_API_KEY, seedClaudeConfig } from '../../test-fixtures/real/seed-claude.mjs';
import { cleanUp, processesOf } from '../../test-fixtures/real/umbel-helpers.mjs';

type Result = { code: number; stdout: string; stderr: string };
const T = 400_000;

let tier: Awaited<ReturnType<typeof claudeTier>>;
let run: (args: string[]) => Promise<Result>;

beforeAll(async () => {
  tier = await claudeTier('umbel-real-billing-', { built: ['packages/cli/dist/cli.cjs'] });
  run = tier.run as typeof run;
}, T);

afterAll(() => cleanUp({ workers: [tier?.run], reap: [tier?.root], close: [tier?.mock], remove: [tier?.root] }), T);

/** A world with its own cwd and config dir: onboarding and trust seeded, no key approved. */
function world(id: string) {
  const work = join(tier.root, id, 'work');
  const config = join(tier.root, id, 'config');
  mkdirSync(work, { recursive: true });
  seedClaudeConfig({ configDir: config, apiKey: '', trustedDirs: [work] });
  const args = [
    '--cwd',
    work,
    '--env',
    `ANTHROPIC_BASE_URL=${tier.mock.url}`,
    '--env',
    `CLAUDE_CONFIG_DIR=${config}`,
    '--env',
    'CLAUDE_CODE_MAX_RETRIES=1',
    '--startup-timeout',
    '180s',
  ];
  const responses = () => JSON.parse(readFileSync(join(config, '.claude.json'), 'utf8')).customApiKeyResponses ?? {};
  return { args, responses };
}

const claudesOf = (worker: string) => processesOf({ envIncludes: [`UMBEL_WORKER=${worker}`] });

describe('billing with the real claude 2.1.328', () => {
  it(
    "the caller's ANTHROPIC_API_KEY is not inherited: nothing approved, no login → 126 naming --env ANTHROPIC_API_KEY, nothing left",
    async () => {
      const w = world('inherited');
      const r = await run(['spawn', 'inherited', ...w.args]);
      expect(r.code, r.stderr).toBe(126);
      expect(r.stderr).toContain('Not logged in');
      expect(r.stderr).toContain('--env ANTHROPIC_API_KEY');
      expect(w.responses().approved ?? []).toEqual([]);
      expect((await run(['status', 'inherited'])).code).toBe(1);
      expect(claudesOf('inherited')).toEqual([]);
    },
    T,
  );

  it(
    'passed with --env ANTHROPIC_API_KEY: the dialog is answered Yes, ready, billing api from the banner',
    async () => {
      const w = world('paid');
      const r = await run(['spawn', 'paid', ...w.args, '--env', 'ANTHROPIC_API_KEY', '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({
        state: 'ready',
        billing: 'api',
        billingEvidence: 'banner "API Usage Billing" with ANTHROPIC_API_KEY passed',
        endpoint: new URL(tier.mock.url).toString(),
      });
      // Claude records the answer in its config file on its own time, after the ready prompt can show.
      await expect.poll(() => w.responses().approved, { timeout: 10_000 }).toEqual([approvedKeySuffix(MOCK_API_KEY)]);
      expect((await run(['kill', 'paid', '--purge'])).code).toBe(0);
    },
    T,
  );

  it(
    '--billing subscription with the key: refused (exit 3) before anything runs; no approval, nothing left',
    async () => {
      const w = world('guarded');
      const r = await run(['spawn', 'guarded', ...w.args, '--env', 'ANTHROPIC_API_KEY', '--billing', 'subscription']);
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toContain('ANTHROPIC_API_KEY passed to the worker');
      expect(w.responses().approved ?? []).toEqual([]);
      expect((await run(['status', 'guarded'])).code).toBe(1);
      expect(claudesOf('guarded')).toEqual([]);
    },
    T,
  );
});
