// Real-CLI tier: `umbel revive` of the BUILT `umbel` bin with the REAL pinned `claude` against the
// local Anthropic mock on 127.0.0.1. The CLI is killed with SIGKILL after one turn; `revive` starts
// it again with `--resume <session>`, and the next request the mock gets carries the earlier
// conversation. No network, no model service. When the binary or the build is missing it FAILS.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeTier } from '../../test-fixtures/real/claude-tier.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { seedClaudeConfig } from '../../test-fixtures/real/seed-claude.mjs';
import { cleanUp, workerProcesses } from '../../test-fixtures/real/umbel-helpers.mjs';

type Json = any;
type Result = { code: number; stdout: string; stderr: string };
type Mock = { url: string; requests: () => Array<Record<string, Json>>; close: () => Promise<void> };
type Run = (args: string[], options?: { input?: string; env?: Record<string, string | undefined> }) => Promise<Result>;

let root: string;
let home: string;
let claude: string;
let mock: Mock;
let run: Run;

beforeAll(async () => {
  ({ root, home, mock, run, claude } = (await claudeTier('umbel-real-revive-')) as unknown as {
    root: string;
    home: string;
    mock: Mock;
    run: Run;
    claude: string;
  });
}, 120_000);

afterAll(() => cleanUp({ workers: [run], reap: [root], close: [mock], remove: [root] }), 300_000);

const json = async (args: string[], env?: Record<string, string>) => {
  const r = await run([...args, '--json'], env ? { env } : {});
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout);
};

/** Until `status` says the worker is not alive (a condition polled with a generous deadline; nothing timed). */
async function deadBy(deadline: number): Promise<void> {
  while ((await json(['status', 'rv'])).alive !== false) {
    if (Date.now() > deadline) throw new Error('the worker is still alive after its CLI was killed');
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The text of every message of a Messages API request body. */
function messageTexts(body: Json): string[] {
  const parsed = typeof body === 'string' ? JSON.parse(body) : body;
  return (parsed?.messages ?? []).flatMap((m: Json) =>
    typeof m.content === 'string' ? [m.content] : (m.content ?? []).filter((b: Json) => b?.type === 'text').map((b: Json) => b.text),
  );
}

describe('revive on the real claude (mock model on 127.0.0.1)', () => {
  it('after SIGKILL, revive resumes the session: the next request carries the earlier turn', { timeout: 600_000 }, async () => {
    const work = join(root, 'work');
    const config = join(root, 'config');
    mkdirSync(work, { recursive: true });
    seedClaudeConfig({ configDir: config });
    // values the worker had come again from the caller's env at revive: given by name here
    const env = { ANTHROPIC_BASE_URL: mock.url, CLAUDE_CONFIG_DIR: config, CLAUDE_CODE_MAX_RETRIES: '1' };
    const names = Object.keys(env).flatMap((n) => ['--env', n]);
    const spawned = await run(['spawn', 'rv', '--cwd', work, '--env', 'ANTHROPIC_API_KEY', ...names, '--startup-timeout', '180s'], { env });
    expect(spawned.code, spawned.stderr).toBe(0);
    await run(['send', 'rv', 'ECHO alpha answer']);
    expect(await json(['wait', 'rv', '--timeout', '240s'])).toMatchObject({ reason: 'completed', result: 'alpha answer' });
    const { sessionId } = await json(['status', 'rv']);

    const cli = workerProcesses(home, 'rv').find((p: { args: string }) => p.args.includes(claude) || /\bclaude\b/.test(p.args));
    expect(cli, JSON.stringify(workerProcesses(home, 'rv'))).toBeDefined();
    if (!cli) throw new Error('no claude process of rv');
    process.kill(cli.pid, 'SIGKILL');
    await deadBy(Date.now() + 60_000);

    const revived = await run(['revive', 'rv', '--startup-timeout', '180s'], { env });
    expect(revived.code, revived.stderr).toBe(0);
    expect((await run(['send', 'rv', 'ECHO beta answer'])).stdout.trim()).toBe('2');
    expect(await json(['wait', 'rv', '--timeout', '240s'])).toMatchObject({ reason: 'completed', turn: 2, result: 'beta answer' });

    const beta = mock.requests().findLast((q) => q.kind === 'main' && q.prompt === 'ECHO beta answer');
    expect(beta?.headers?.['x-claude-code-session-id']).toBe(sessionId);
    const texts = messageTexts(beta?.body);
    expect(texts.some((t) => t.includes('ECHO alpha answer'))).toBe(true);
    expect(texts.some((t) => t.includes('alpha answer') && !t.includes('ECHO'))).toBe(true);
  });
});
