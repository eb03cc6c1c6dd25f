/**
 * Warm pools work for every provider: a pool of the fake codex, gemini, opencode, copilot and qwen (real tmux,
 * the built bin), one `umbel -p` through each (the answer right, the worker removed by the call),
 * the detached refill filling it again, `pool stop` leaving nothing. Needs `pnpm build`.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UmbelRun } from '../../../test-fixtures/real/umbel-helpers.mjs';
import { assertBuilt, cleanUp, codexMockConfig, processesOf, REPO_ROOT, testEnv, umbelRunner, until } from '../../../test-fixtures/real/umbel-helpers.mjs';

const T = 300_000;
let scratch: string;
let mock: { url: string; close(): Promise<void> } | undefined;
let chatMock: { url: string; close(): Promise<void> } | undefined;
const runners: UmbelRun[] = [];

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs']);
  scratch = await realpath(await mkdtemp(join(tmpdir(), 'umbel-e2e-pool-providers-')));
  const mocks = (await import(join(REPO_ROOT, 'test-fixtures/mock-servers/gemini.mjs'))) as {
    startGeminiMock(): Promise<{ url: string; close(): Promise<void> }>;
  };
  mock = await mocks.startGeminiMock();
  const chat = (await import(join(REPO_ROOT, 'test-fixtures/mock-servers/openai-chat.mjs'))) as {
    startChatMock(): Promise<{ url: string; close(): Promise<void> }>;
  };
  chatMock = await chat.startChatMock();
});

afterAll(async () => {
  for (const run of runners) await run(['pool', 'stop']);
  await cleanUp({ workers: runners, reap: [scratch], close: [mock, chatMock], remove: [scratch] });
}, T);

/** One user of one provider: a state root, a project, the env; returns the runner and the call's options. */
async function world(id: 'codex' | 'gemini' | 'opencode' | 'copilot' | 'qwen'): Promise<{ umbel: UmbelRun; home: string; args: string[] }> {
  const dir = join(scratch, id);
  const home = join(dir, 'state');
  const work = join(dir, 'project');
  const userHome = join(dir, 'home');
  await mkdir(work, { recursive: true });
  await mkdir(userHome, { recursive: true });
  let env: Record<string, string>;
  if (id === 'codex') {
    const codexHome = join(dir, 'codex-home');
    await mkdir(codexHome, { recursive: true });
    await writeFile(join(codexHome, 'config.toml'), codexMockConfig({ baseUrl: 'http://127.0.0.1:9/v1', envKey: 'MOCK_API_KEY' }));
    env = testEnv({ home: userHome, umbelHome: home, UMBEL_CODEX_BIN: join(REPO_ROOT, 'test-fixtures/bin/codex'), CODEX_HOME: codexHome, MOCK_API_KEY: 'k' });
  } else if (id === 'opencode') {
    // a user config dir never installed online, and the fake stalling on it like the real one would
    const { seedOpencodeUser } = (await import(
      join(REPO_ROOT, 'test-fixtures/fake-opencode/seed.mjs')
    )) as typeof import('../../../test-fixtures/fake-opencode/seed.mjs');
    const seeded = seedOpencodeUser({ home: userHome, baseUrl: chatMock?.url as string, installed: false });
    env = testEnv({
      home: userHome,
      umbelHome: home,
      UMBEL_OPENCODE_BIN: join(REPO_ROOT, 'test-fixtures/bin/opencode'),
      FAKE_OPENCODE_INSTALL_STALL_MS: '600000',
      ...seeded,
    });
  } else if (id === 'copilot') {
    // a BYOK endpoint passed on purpose (the fake never calls it)
    env = testEnv({
      home: userHome,
      umbelHome: home,
      UMBEL_COPILOT_BIN: join(REPO_ROOT, 'test-fixtures/bin/copilot'),
      COPILOT_PROVIDER_BASE_URL: 'http://127.0.0.1:9/v1',
    });
  } else if (id === 'qwen') {
    env = testEnv({
      home: userHome,
      umbelHome: home,
      UMBEL_QWEN_BIN: join(REPO_ROOT, 'test-fixtures/bin/qwen'),
      OPENAI_API_KEY: 'k',
      OPENAI_BASE_URL: chatMock?.url as string,
    });
  } else {
    await mkdir(join(userHome, '.gemini'), { recursive: true });
    await writeFile(join(userHome, '.gemini', 'settings.json'), '{"privacy":{"usageStatisticsEnabled":false}}\n');
    env = testEnv({
      home: userHome,
      umbelHome: home,
      UMBEL_GEMINI_BIN: join(REPO_ROOT, 'test-fixtures/bin/gemini'),
      GEMINI_API_KEY: 'k',
      GOOGLE_GEMINI_BASE_URL: mock?.url as string,
    });
  }
  const umbel = umbelRunner({ cwd: work, env }).run;
  runners.push(umbel);
  const key = {
    codex: 'MOCK_API_KEY',
    gemini: 'GEMINI_API_KEY',
    opencode: 'FAKE_OPENCODE_INSTALL_STALL_MS',
    copilot: 'COPILOT_PROVIDER_BASE_URL',
    qwen: 'OPENAI_API_KEY',
  }[id];
  return { umbel, home, args: ['--provider', id, '--env', key] };
}

describe.each(['codex', 'gemini', 'opencode', 'copilot', 'qwen'] as const)('a warm pool of the fake %s', (id) => {
  it(
    'pool start → one -p through it → refilled → pool stop leaves nothing',
    async () => {
      const { umbel, home, args } = await world(id);
      const json = async (argv: string[]) => {
        const r = await umbel(argv);
        expect(r.code, r.stderr).toBe(0);
        return JSON.parse(r.stdout);
      };
      const pool = await json(['pool', 'start', '--size', '1', ...args, '--json']);
      expect(pool).toMatchObject({ provider: id, counts: { ready: 1 } });
      const warm = pool.workers[0].worker as string;
      const out = await json(['-p', `ECHO warm ${id}`, ...args, '--output-format', 'json']);
      expect(out).toMatchObject({ result: `warm ${id}`, worker: warm, provider: id, is_error: false });
      const refills = () => processesOf({ envIncludes: [`UMBEL_HOME=${home}`] }).filter((p) => p.args.includes('pool finish --detached'));
      await until(
        async () => refills().length === 0 && (await json(['pool', 'status', pool.name, '--json']))[0].counts.ready === 1,
        'the refill',
        120_000,
        async () => `pool status ${(await umbel(['pool', 'status', pool.name, '--json'])).stdout.trim()}; refills alive: ${JSON.stringify(refills())}`,
      );
      expect(existsSync(join(home, 'workers', warm))).toBe(false); // removed by the detached teardown, never reused
      await json(['pool', 'stop', pool.name, '--json']);
      expect(await json(['ls', '--json'])).toEqual([]);
      await until(() => processesOf({ argsIncludes: [join(home, 'workers')] }).filter((p) => !/^\S*tmux /.test(p.args)).length === 0, 'no worker process');
    },
    T,
  );
});
