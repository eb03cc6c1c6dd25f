// Real-CLI tier: `completed.background` with the REAL pinned `claude` against the local Anthropic
// mock on 127.0.0.1 (test-fixtures/real/REVIVE-FACTS.md §4). The mock's `BGTOOL <cmd>` answers with a
// Bash tool_use carrying `run_in_background: true`; the turn ends while the shell still runs, and the
// outcome lists it from the Stop record's `background_tasks`. No network, no model service. When the
// binary or the build is missing it FAILS.
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeTier } from '../../test-fixtures/real/claude-tier.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { seedClaudeConfig } from '../../test-fixtures/real/seed-claude.mjs';
import { cleanUp, until } from '../../test-fixtures/real/umbel-helpers.mjs';

type Json = any;
type Result = { code: number; stdout: string; stderr: string };
type Run = (args: string[], options?: { input?: string; env?: Record<string, string | undefined> }) => Promise<Result>;

let root: string;
let home: string;
let mock: { url: string; close: () => Promise<void> };
let run: Run;

beforeAll(async () => {
  ({ root, home, mock, run } = (await claudeTier('umbel-real-background-')) as unknown as { root: string; home: string; mock: typeof mock; run: Run });
}, 120_000);

afterAll(() => cleanUp({ workers: [run], reap: [root], close: [mock], remove: [root] }), 300_000);

/** The worker's env: the mock, its own config dir (seeded), the mock key by name. */
function claudeEnv(name: string) {
  const config = join(root, `config-${name}`);
  seedClaudeConfig({ configDir: config });
  const env = { ANTHROPIC_BASE_URL: mock.url, CLAUDE_CONFIG_DIR: config, CLAUDE_CODE_MAX_RETRIES: '1' };
  return { env, args: ['--env', 'ANTHROPIC_API_KEY', ...Object.keys(env).flatMap((n) => ['--env', n])] };
}

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

  it(
    "a background subagent (Agent tool): completed with background [{kind: subagent, id, running: true}]; the turn Claude starts by itself when it ends is no turn of umbel's",
    { timeout: 600_000 },
    async () => {
      const work = join(root, 'work-agent');
      mkdirSync(work, { recursive: true });
      const { env, args } = claudeEnv('agent');
      const spawned = await run(['spawn', 'agent', '--cwd', work, '--allowed-tools', 'Agent', ...args, '--startup-timeout', '180s'], { env });
      expect(spawned.code, spawned.stderr).toBe(0);
      // the subagent's own model request is answered 15 s later: it still runs at the main turn's Stop
      await run(['send', 'agent', 'BGAGENT DELAY 15000 ECHO sub-done']);
      const r = await run(['wait', 'agent', '--timeout', '240s', '--json']);
      expect(r.code, r.stderr).toBe(0);
      const first: Json = JSON.parse(r.stdout);
      expect(first).toMatchObject({ reason: 'completed', turn: 1, background: [{ kind: 'subagent', running: true }] });
      expect(first.background).toHaveLength(1);
      expect(first.result).toContain(`agentId: ${first.background[0].id}`);
      // when it ends Claude Code answers a <task-notification> by itself: a second Stop
      const stops = () => readdirSync(join(home, 'workers', 'agent', 'events')).filter((f) => f.endsWith('-stop.json')).length;
      await until(() => stops() >= 2, 'the self-started turn to stop', 240_000);
      const events = await run(['events', 'agent', '--json']);
      const kinds = events.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).kind);
      expect(kinds.filter((k) => k === 'self-started')).toHaveLength(1);
      const read = await run(['read', 'agent', '--turn', '1', '--json']);
      expect(read.code, read.stderr).toBe(0);
      expect(JSON.parse(read.stdout).result).toBe(first.result);
      const sent = await run(['send', 'agent', 'ECHO after the notification', '--json']);
      expect(JSON.parse(sent.stdout)).toMatchObject({ turn: 2 });
      const second = await run(['wait', 'agent', '--timeout', '240s', '--json']);
      expect(JSON.parse(second.stdout)).toMatchObject({ reason: 'completed', turn: 2, result: 'after the notification' });
      expect(JSON.parse(second.stdout)).not.toHaveProperty('background');
    },
  );

  it(
    'a subagent asked for in the foreground (run_in_background: false) runs in the background on 2.1.332 too: under --idle-timeout 5s its turn completes listing it, never idle',
    { timeout: 600_000 },
    async () => {
      const work = join(root, 'work-fg');
      mkdirSync(work, { recursive: true });
      const { env, args } = claudeEnv('fg');
      const spawned = await run(['spawn', 'fg', '--cwd', work, '--allowed-tools', 'Agent', ...args, '--startup-timeout', '180s'], { env });
      expect(spawned.code, spawned.stderr).toBe(0);
      await run(['send', 'fg', 'AGENT DELAY 20000 ECHO sub-done']);
      const r = await run(['wait', 'fg', '--timeout', '240s', '--idle-timeout', '5s', '--json']);
      expect(r.code, r.stderr).toBe(0);
      const outcome: Json = JSON.parse(r.stdout);
      expect(outcome).toMatchObject({ reason: 'completed', turn: 1, background: [{ kind: 'subagent', running: true }] });
      expect(outcome.result).toContain('Async agent launched successfully');
    },
  );
});
