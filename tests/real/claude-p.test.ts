// Real-CLI tier: the REAL pinned `claude` binary (pnpm install:real-clis) against the local
// Anthropic mock on 127.0.0.1. No network, no model service. When the binary is not installed
// these tests FAIL (realCliPath throws), they never skip.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM fixture without type declarations
import { startAnthropicMock } from '../../test-fixtures/mock-servers/anthropic.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { readPins, realCliPath } from '../../test-fixtures/real/clis.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { claudeEnv } from '../../test-fixtures/real/seed-claude.mjs';
import { startProcess } from '../../test-fixtures/real/umbel-helpers.mjs';

type Json = any;
type Mock = { url: string; requests: () => Array<Record<string, Json>>; close: () => Promise<void> };

let claude: string;
/** Set when the pinned binary is not installed: every test then fails with it (never skips). */
let missing: Error | undefined;
let mock: Mock;
let root: string;
let cwd: string;

/** Run the real claude with a cleared env (like `env -i`), stdin from /dev/null. */
function runClaude(args: string[], extraEnv: Record<string, string> = {}) {
  if (missing) throw missing;
  const configDir = mkdtempSync(join(root, 'config-')); // `-p` needs no seed (§2.2)
  const env = {
    HOME: join(root, 'home'),
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LANG: 'C.UTF-8',
    ...claudeEnv({ configDir, baseUrl: mock.url }),
    ...extraEnv,
  };
  return startProcess(claude, args, { cwd, env }).done;
}

beforeAll(async () => {
  try {
    claude = realCliPath('claude'); // throws "run `pnpm install:real-clis`" when missing
  } catch (err) {
    missing = err as Error;
  }
  root = mkdtempSync(join(tmpdir(), 'umbel-real-claude-p-'));
  cwd = join(root, 'work');
  mkdirSync(cwd, { recursive: true });
  mkdirSync(join(root, 'home'), { recursive: true });
  mock = await startAnthropicMock();
});

afterAll(async () => {
  await mock?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe(`real claude -p (${readPins().claude.package}@${readPins().claude.version}) against the mock`, () => {
  it('is the pinned version', async () => {
    const r = await runClaude(['--version']);
    expect(r.stdout.trim()).toBe(`${readPins().claude.version} (Claude Code)`);
  });

  it('`-p \'ECHO exact text\' --output-format json` returns result "exact text"', async () => {
    const r = await runClaude(['-p', 'ECHO exact text', '--output-format', 'json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ type: 'result', subtype: 'success', is_error: false, result: 'exact text' });
    const main = mock.requests().filter((q) => q.kind === 'main' && q.prompt === 'ECHO exact text');
    expect(main).toHaveLength(1);
    expect(main[0]?.path).toBe('/v1/messages?beta=true');
    expect(main[0]?.headers['x-api-key']).toBe('[redacted]');
    expect(main[0]?.headers['user-agent']).toContain(`claude-cli/${readPins().claude.version}`);
  });

  it('prints the reply text plus a newline in text mode, multi-line exact', async () => {
    const r = await runClaude(['-p', 'ECHO line one\nline two']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('line one\nline two\n');
  });

  it('runs a Bash tool call and answers the follow-up', async () => {
    const r = await runClaude(['-p', 'TOOL echo tool-ran', '--output-format', 'json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).result).toBe('TOOL-RESULT: tool-ran');
    expect(mock.requests().some((q) => q.kind === 'tool-result')).toBe(true);
  });

  it('reports an API error with the mock message verbatim, is_error and rc 1', async () => {
    const r = await runClaude(['-p', 'FAIL 529 mock overloaded now', '--output-format', 'json'], {
      CLAUDE_CODE_MAX_RETRIES: '0',
    });
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ is_error: true, api_error_status: 529 });
    expect(out.result).toContain('mock overloaded now');
  });

  it('recovers from FAIL 503 x1 on its single retry (CLAUDE_CODE_MAX_RETRIES=1)', async () => {
    const r = await runClaude(['-p', 'FAIL 503 x1 ECHO came back', '--output-format', 'json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).result).toBe('came back');
  });
});
