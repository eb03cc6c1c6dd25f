// Real-CLI tier: `umbel doctor --turn` (the BUILT bin) on the REAL pinned claude, codex, gemini, opencode and qwen,
// each against its local mock model server on 127.0.0.1 (no network, no model service). Each CLI
// must pass every check — its pinned version verified, signed in (the mock key), the scratch
// worker's session hook with a readable payload, one turn end to end — and leave nothing behind
// (the scratch dirs live under this test's TMPDIR). When a binary is missing these tests FAIL
// (realCliPath throws), they never skip. Needs `pnpm build`.
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM fixture without type declarations
import { startAnthropicMock } from '../../test-fixtures/mock-servers/anthropic.mjs';
import { seedOpencodeUser } from '../../test-fixtures/fake-opencode/seed.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { startGeminiMock } from '../../test-fixtures/mock-servers/gemini.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { startChatMock } from '../../test-fixtures/mock-servers/openai-chat.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { startResponsesMock } from '../../test-fixtures/mock-servers/openai-responses.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { readPins, realCliPath } from '../../test-fixtures/real/clis.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { MOCK_API_KEY, seedClaudeConfig } from '../../test-fixtures/real/seed-claude.mjs';
import { assertBuilt, cleanUp, codexMockConfig, processesOf, testEnv, umbelRunner } from '../../test-fixtures/real/umbel-helpers.mjs';

type Json = any;
type Mock = { url: string; close: () => Promise<void> };
/** Per-test budget: a real CLI on a loaded 2-core box (nothing asserts on time). */
const T = 300_000;
const IDS = ['binary', 'version', 'login', 'billing', 'endpoint', 'launch', 'session-hook', 'payload', 'turn'];

let scratch: string;
const mocks: Mock[] = [];

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs']);
  scratch = await realpath(await mkdtemp(join(tmpdir(), 'umbel-real-doctor-')));
}, T);

afterAll(() => cleanUp({ reap: [scratch], close: mocks, remove: [scratch] }), T);

/** A user dir with its own HOME and TMPDIR; `doctor --json --turn` for one provider run as that user. */
async function doctorAs(
  id: string,
  extraEnv: Record<string, string>,
  args: string[],
  home?: string,
): Promise<{ code: number; report: Json; temp: string; stderr: string }> {
  const dir = await mkdtemp(join(scratch, `${id}-`));
  const temp = join(dir, 'tmp');
  await mkdir(temp);
  const userHome = home ?? join(dir, 'home');
  await mkdir(userHome, { recursive: true });
  const env = testEnv({ home: userHome, umbelHome: join(dir, 'state'), TMPDIR: temp, ...extraEnv });
  const r = await umbelRunner({ cwd: dir, env }).run(['doctor', '--json', '--turn', '--provider', id, '--startup-timeout', '180s', ...args]);
  let report: Json;
  try {
    report = JSON.parse(r.stdout);
  } catch {
    throw new Error(`doctor printed no JSON (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  }
  return { code: r.code, report, temp, stderr: r.stderr };
}

async function expectHealthy(id: string, result: Awaited<ReturnType<typeof doctorAs>>): Promise<void> {
  const provider = result.report.providers[0];
  const failures = provider.checks.filter((c: Json) => c.status !== 'pass');
  expect(failures, JSON.stringify(provider, null, 2)).toEqual([]);
  expect(provider.checks.map((c: Json) => c.id)).toEqual(IDS);
  expect(result.code).toBe(0);
  expect(provider.checks.find((c: Json) => c.id === 'version').detail).toBe(`${readPins()[id].version} is verified`);
  expect(await readdir(result.temp)).toEqual([]);
  expect(processesOf({ argsIncludes: [result.temp] })).toEqual([]);
}

describe('umbel doctor --turn on the real pinned CLIs against the mock servers', () => {
  it(
    `claude ${readPins().claude.version}`,
    async () => {
      const mock = (await startAnthropicMock({})) as Mock;
      mocks.push(mock);
      const config = join(scratch, 'claude-config');
      seedClaudeConfig({ configDir: config });
      const env = {
        UMBEL_CLAUDE_BIN: realCliPath('claude'),
        ANTHROPIC_API_KEY: MOCK_API_KEY,
        ANTHROPIC_BASE_URL: mock.url,
        CLAUDE_CONFIG_DIR: config,
        CI: 'true',
      };
      // the key is passed by name (an inherited one never reaches a worker: subscription first)
      const result = await doctorAs('claude', env, ['--env', 'ANTHROPIC_API_KEY']);
      await expectHealthy('claude', result);
      const checks = result.report.providers[0].checks;
      expect(checks.find((c: Json) => c.id === 'billing').detail).toMatch(/^api: ANTHROPIC_API_KEY/);
      expect(checks.find((c: Json) => c.id === 'endpoint').detail).toBe(`custom: ANTHROPIC_BASE_URL=${new URL(mock.url).toString()}`);
      expect(JSON.stringify(result.report)).not.toContain(MOCK_API_KEY);
      // the scratch session's transcript is gone from the user's config dir, and so is what Claude
      // recorded about the scratch folder and session: its trust entry, its history, its session dirs
      expect(await readdir(join(config, 'projects')).catch(() => [])).toEqual([]);
      const state = JSON.parse(await readFile(join(config, '.claude.json'), 'utf8'));
      expect(Object.keys(state.projects ?? {}).filter((p) => p.includes('umbel-doctor-'))).toEqual([]);
      expect(await readFile(join(config, 'history.jsonl'), 'utf8').catch(() => '')).not.toContain('umbel-doctor-');
      expect(await readdir(join(config, 'session-env')).catch(() => [])).toEqual([]);
      expect(await readdir(join(config, 'telemetry')).catch(() => [])).toEqual([]);
    },
    T,
  );

  it(
    `codex ${readPins().codex.version}`,
    async () => {
      const mock = (await startResponsesMock()) as Mock;
      mocks.push(mock);
      const codexHome = join(scratch, 'codex-home');
      await mkdir(codexHome, { recursive: true });
      await writeFile(
        join(codexHome, 'config.toml'),
        codexMockConfig({ baseUrl: mock.url, envKey: 'MOCK_API_KEY', providerLines: ['request_max_retries = 0'] }),
      );
      const env = { UMBEL_CODEX_BIN: realCliPath('codex'), CODEX_HOME: codexHome, MOCK_API_KEY: 'sk-real-codex-mock-key' };
      await expectHealthy('codex', await doctorAs('codex', env, ['--env', 'MOCK_API_KEY']));
    },
    T,
  );

  it(
    `gemini ${readPins().gemini.version}`,
    async () => {
      const mock = (await startGeminiMock()) as Mock;
      mocks.push(mock);
      const home = join(scratch, 'gemini-user');
      await mkdir(join(home, '.gemini'), { recursive: true });
      await writeFile(join(home, '.gemini', 'settings.json'), '{ "privacy": { "usageStatisticsEnabled": false }, "ui": { "hideTips": true } }\n');
      const env = { UMBEL_GEMINI_BIN: realCliPath('gemini'), GEMINI_API_KEY: 'real-gemini-mock-key', GOOGLE_GEMINI_BASE_URL: mock.url, CI: 'true' };
      await expectHealthy('gemini', await doctorAs('gemini', env, ['--env', 'GEMINI_API_KEY'], home));
      await rm(home, { recursive: true, force: true });
    },
    T,
  );

  it(
    `opencode ${readPins().opencode.version}`,
    async () => {
      const mock = (await startChatMock()) as Mock;
      mocks.push(mock);
      // a user whose opencode config names the mock (its key in the file) and who never ran opencode online
      const home = join(scratch, 'opencode-user');
      const seeded = seedOpencodeUser({ home, baseUrl: mock.url, installed: false });
      const env = { UMBEL_OPENCODE_BIN: realCliPath('opencode'), TERM: 'xterm-256color', ...seeded };
      const result = await doctorAs('opencode', env, [], home);
      await expectHealthy('opencode', result);
      const checks = result.report.providers[0].checks;
      // its stored logins decide how it bills: doctor cannot tell, and says why
      expect(checks.find((c: Json) => c.id === 'billing').detail).toMatch(/^unknown: no API key passed/);
      await rm(home, { recursive: true, force: true });
    },
    T,
  );

  it(
    `qwen ${readPins().qwen.version}`,
    async () => {
      const mock = (await startChatMock()) as Mock;
      mocks.push(mock);
      const env = {
        UMBEL_QWEN_BIN: realCliPath('qwen'),
        OPENAI_API_KEY: 'real-qwen-mock-key',
        OPENAI_BASE_URL: mock.url,
        OPENAI_MODEL: 'mock-model',
        CI: 'true',
      };
      const result = await doctorAs('qwen', env, ['--env', 'OPENAI_API_KEY']);
      await expectHealthy('qwen', result);
      expect(result.report.providers[0].checks.find((c: Json) => c.id === 'billing').detail).toMatch(/^api: OPENAI_API_KEY/);
    },
    T,
  );
});
