// Real-CLI tier: a warm pool of the REAL pinned `claude` (UMBEL_CLAUDE_BIN, absolute path) in tmux,
// against the local Anthropic mock on 127.0.0.1, driven by the BUILT `umbel` bin: `pool start`
// (the workspace not trusted: the trust dialog is answered at startup, before any call), one
// `umbel -p` through the pool (the answer from the transcript, the same as a cold -p prints), the
// detached refill bringing the pool back to full, and `pool stop` leaving no process. No network,
// no model service. When the binary or the build is missing these tests FAIL, they never skip.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeTier } from '../../test-fixtures/real/claude-tier.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { readPins } from '../../test-fixtures/real/clis.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { seedClaudeConfig } from '../../test-fixtures/real/seed-claude.mjs';
import { cleanUp, processesOf } from '../../test-fixtures/real/umbel-helpers.mjs';

type Json = any;
type Result = { code: number; stdout: string; stderr: string };
type Mock = { url: string; requests: () => Array<Record<string, Json>>; close: () => Promise<void> };

const T = 600_000;
let root: string;
let home: string;
let mock: Mock;
let run: (args: string[], options?: { input?: string }) => Promise<Result>;
let work: string;
let options: string[];

beforeAll(async () => {
  ({ root, home, mock, run } = await claudeTier('umbel-real-pool-'));
  work = join(root, 'work');
  const config = join(root, 'config');
  mkdirSync(work, { recursive: true });
  seedClaudeConfig({ configDir: config }); // the workspace is NOT trusted: the pool's startup answers it
  options = [
    '--cwd',
    work,
    '--env',
    'ANTHROPIC_API_KEY',
    '--env',
    `ANTHROPIC_BASE_URL=${mock.url}`,
    '--env',
    `CLAUDE_CONFIG_DIR=${config}`,
    '--env',
    'CLAUDE_CODE_MAX_RETRIES=1',
  ];
}, T);

afterAll(async () => {
  await run?.(['pool', 'stop']);
  await cleanUp({ workers: [run], reap: [root], close: [mock], remove: [root] });
}, T);

const json = async (args: string[]): Promise<Json> => {
  const r = await run(args);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};
/** Live detached refills and worker processes of this state root (the shared tmux server left out). */
const refills = () => processesOf({ envIncludes: [`UMBEL_HOME=${home}`] }).filter((p) => p.args.includes('pool finish --detached'));
/** Poll `check` until it holds (bounded; then fail naming `what`). */
async function until(check: () => boolean | Promise<boolean>, what: string, ms = 240_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 250))) if (await check()) return;
  throw new Error(`timed out waiting for ${what}`);
}
const workerProcs = () => processesOf({ argsIncludes: [join(home, 'workers')] }).filter((p) => !/^\S*tmux /.test(p.args));

describe(`a warm pool of the real claude ${readPins().claude.version} (same mock)`, () => {
  it(
    'pool of 1 → one umbel -p through it → refilled → pool stop leaves nothing',
    async () => {
      const pool = await json(['pool', 'start', '--size', '1', '--startup-timeout', '180s', ...options, '--json']);
      expect(pool.counts).toMatchObject({ ready: 1, starting: 0, claimed: 0, dead: 0 });
      const warm = pool.workers[0].worker as string;
      const out = await json(['-p', 'ECHO from the warm pool', ...options, '--timeout', '240s', '--output-format', 'json']);
      expect(out).toMatchObject({ type: 'result', subtype: 'success', is_error: false, result: 'from the warm pool', worker: warm, provider: 'claude' });
      expect(out.session_id).toMatch(/^[0-9a-f-]{36}$/);
      // The mock saw the prompt once, from that worker's session.
      expect(mock.requests().filter((q) => q.kind === 'main' && q.prompt === 'ECHO from the warm pool')).toHaveLength(1);
      await until(async () => refills().length === 0 && (await json(['pool', 'status', pool.name, '--json']))[0].counts.ready === 1, 'the refill');
      expect(existsSync(join(home, 'workers', warm))).toBe(false); // removed by the detached teardown, never reused
      const [after] = await json(['pool', 'status', pool.name, '--json']);
      expect(after.workers.map((w: { worker: string }) => w.worker)).not.toContain(warm);
      expect((await json(['ls', '--json'])).map((w: { name: string }) => w.name)).toEqual([after.workers[0].worker]);
      await json(['pool', 'stop', pool.name, '--json']);
      expect(await json(['ls', '--json'])).toEqual([]);
      await until(() => workerProcs().length === 0, 'no worker process', 30_000);
    },
    T,
  );
});
