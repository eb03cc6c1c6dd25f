// Real-CLI tier: a confined worker (`spawn --sandbox --unattended`, as root too: umbel sets
// IS_SANDBOX=1 inside its own sandbox) of the BUILT `umbel` bin driving the REAL pinned `claude`
// against the local Anthropic mock on 127.0.0.1 (reached through srt's proxy: the mock's host:port
// comes from ANTHROPIC_BASE_URL). One mock-driven Bash tool call runs the four probes — a write
// beside the cwd, a write inside it, a read of a planted ~/.ssh key, a local http server that is not
// allowed — and the probes' results are read from the tool_result the mock received; the answer
// still arrives from the transcript. Needs bubblewrap and socat. No network, no model service.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM fixture without type declarations
import { findToolResult } from '../../test-fixtures/mock-servers/anthropic.mjs';
import { claudeTier } from '../../test-fixtures/real/claude-tier.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { seedClaudeConfig } from '../../test-fixtures/real/seed-claude.mjs';
import { cleanUp } from '../../test-fixtures/real/umbel-helpers.mjs';

type Result = { code: number; stdout: string; stderr: string };
type Mock = { url: string; close: () => Promise<void>; requests: () => object[] };

const KEY = 'PLANTED-SSH-KEY-real-5d8';
const BODY = 'served-outside-the-sandbox-3b9';
let root: string;
let mock: Mock;
let server: Server;
let port: number;
let run: (args: string[], options?: { input?: string }) => Promise<Result>;

beforeAll(async () => {
  ({ root, mock, run } = await claudeTier('umbel-real-sandbox-'));
  mkdirSync(join(root, 'user-home', '.ssh'), { recursive: true });
  writeFileSync(join(root, 'user-home', '.ssh', 'id_test'), `${KEY}\n`);
  server = createServer((_req, res) => res.end(BODY));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  port = (server.address() as AddressInfo).port;
}, 120_000);

afterAll(
  () =>
    cleanUp({
      workers: [run],
      reap: [root],
      close: [mock, server ? { close: () => new Promise<void>((done) => server.close(() => done())) } : undefined],
      remove: [root],
    }),
  300_000,
);

/** The tool_result of the mock's tool follow-up requests (what Claude's Bash tool printed). */
function toolResults(): string[] {
  return mock
    .requests()
    .filter((r) => (r as { kind?: string }).kind === 'tool-result')
    .map((r) => findToolResult((r as { body: unknown }).body) ?? '');
}

describe('a confined worker on the real claude (mock model on 127.0.0.1)', () => {
  it(
    'its Bash tool writes inside its cwd only, reads no planted key, reaches no server it was not allowed; the answer arrives',
    { timeout: 600_000 },
    async () => {
      const project = join(root, 'project');
      const config = join(root, 'config');
      mkdirSync(project, { recursive: true });
      seedClaudeConfig({ configDir: config });
      const spawned = await run([
        'spawn',
        'box',
        '--sandbox',
        '--unattended',
        '--cwd',
        project,
        '--env',
        'ANTHROPIC_API_KEY',
        '--env',
        `ANTHROPIC_BASE_URL=${mock.url}`,
        '--env',
        `CLAUDE_CONFIG_DIR=${config}`,
        '--env',
        'CLAUDE_CODE_MAX_RETRIES=1',
        '--startup-timeout',
        '180s',
        '--json',
      ]);
      expect(spawned.code, spawned.stderr).toBe(0);
      expect(JSON.parse(spawned.stdout).sandbox).toMatchObject({ enabled: true, network: expect.arrayContaining([new URL(mock.url).host]) });

      const outside = join(root, 'outside');
      const probes = [
        `touch ${outside} 2>/dev/null && echo out=made || echo out=refused`,
        'touch inside && echo in=made || echo in=refused',
        `cat ${join(root, 'user-home', '.ssh', 'id_test')} 2>/dev/null || echo key=refused`,
        `curl -sS -m 20 -o /dev/null -w 'net=%{http_code}\\n' http://127.0.0.1:${port}/ 2>/dev/null || echo net=refused`,
      ].join('; ');
      expect((await run(['send', 'box', `TOOL ${probes}`])).code).toBe(0);
      const waited = await run(['wait', 'box', '--timeout', '240s', '--json']);
      expect(waited.code, waited.stderr).toBe(0);

      const [seen] = toolResults();
      expect(seen).toMatch(/out=refused/);
      expect(seen).toMatch(/in=made/);
      expect(seen).toMatch(/key=refused/);
      expect(seen).not.toContain(KEY);
      // the mock is on loopback, so loopback goes through srt's proxy, which answers 403 for a host it was not told to allow
      expect(seen).toMatch(/net=403/);
      expect(existsSync(outside)).toBe(false);
      expect(existsSync(join(project, 'inside'))).toBe(true);
      // the server does answer outside the sandbox
      expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe(BODY);

      // the answer is the mock's reply to that tool result, read from the transcript
      const outcome = JSON.parse(waited.stdout);
      expect(outcome).toMatchObject({ reason: 'completed', turn: 1 });
      expect(outcome.result).toBe(`TOOL-RESULT: ${seen?.trim()}`);
    },
  );
});
