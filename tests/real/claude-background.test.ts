// Real-CLI tier: `completed.background` with the REAL pinned `claude` against the local Anthropic
// mock on 127.0.0.1 (test-fixtures/real/REVIVE-FACTS.md §4). The mock's `BGTOOL <cmd>` answers with a
// Bash tool_use carrying `run_in_background: true`; the turn ends while the shell still runs, and the
// outcome lists it from the Stop record's `background_tasks`. No network, no model service. When the
// binary or the build is missing it FAILS.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeTier } from '../../test-fixtures/real/claude-tier.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { seedClaudeConfig } from '../../test-fixtures/real/seed-claude.mjs';
import { cleanUp } from '../../test-fixtures/real/umbel-helpers.mjs';

type Json = any;
type Result = { code: number; stdout: string; stderr: string };
type Run = (args: string[], options?: { input?: string; env?: Record<string, string | undefined> }) => Promise<Result>;

let root: string;
let mock: { url: string; close: () => Promise<void> };
let run: Run;

beforeAll(async () => {
  ({ root, mock, run } = (await claudeTier('umbel-real-background-')) as unknown as { root: string; mock: typeof mock; run: Run });
}, 120_000);

afterAll(() => cleanUp({ workers: [run], reap: [root], close: [mock], remove: [root] }), 300_000);

describe('completed.background on the real claude (mock model on 127.0.0.1)', () => {
  it('a turn that ends while its background shell runs completes with background [{kind: shell, id, running: true}]', { timeout: 600_000 }, async () => {
    const work = join(root, 'work');
    const config = join(root, 'config');
    mkdirSync(work, { recursive: true });
    seedClaudeConfig({ configDir: config });
    const env = { ANTHROPIC_BASE_URL: mock.url, CLAUDE_CONFIG_DIR: config, CLAUDE_CODE_MAX_RETRIES: '1' };
    const names = Object.keys(env).flatMap((n) => ['--env', n]);
    const spawned = await run(['spawn', 'bg', '--cwd', work, '--allowed-tools', 'Bash', '--env', 'ANTHROPIC_API_KEY', ...names, '--startup-timeout', '180s'], {
      env,
    });
    expect(spawned.code, spawned.stderr).toBe(0);
    // the shell waits for a file nobody writes: still running at the Stop (reaped with the root)
    await run(['send', 'bg', `BGTOOL while [ ! -e ${join(root, 'never')} ]; do sleep 1; done`]);
    const r = await run(['wait', 'bg', '--timeout', '240s', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const outcome: Json = JSON.parse(r.stdout);
    expect(outcome).toMatchObject({ reason: 'completed', background: [{ kind: 'shell', running: true }] });
    expect(outcome.background).toHaveLength(1);
    expect(outcome.result).toContain(`Command running in background with ID: ${outcome.background[0].id}`);
  });
});
