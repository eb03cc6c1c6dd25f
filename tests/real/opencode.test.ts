// Real-CLI tier: the REAL pinned `opencode` (opencode-ai 1.18.33; pnpm install:real-clis --only
// opencode) driven by the built `umbel` bin with `--provider opencode` (UMBEL_OPENCODE_BIN = the
// absolute path of the pinned native binary), its model API served by the local chat-completions mock
// on 127.0.0.1 (test-fixtures/mock-servers/openai-chat.mjs): opencode's own `bash` tool runs for the
// permission tests. No network, no model service. When the binary is not installed these tests FAIL
// (realCliPath throws), they never skip. Needs `pnpm build`.
//
// Every test plays a fresh user: ~/.config/opencode/opencode.json names the mock as a provider (its
// key in the file) — and that dir was NEVER installed online, so the plugin-install trap would stall
// every start by ~70 s unless umbel defuses it (FACTS.md §a). Start times are printed, not asserted.
import { existsSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connectUmbelMcp, purgeWorkers, runCommand, workerProcesses } from '../../test-fixtures/real/umbel-helpers.mjs';
import { describe, expect, it } from 'vitest';
import { PIN, type Json, T, opencode, mock, clients, freshUser, spawn, waitJson, opencodeIn, turnsFor, untouched, send } from './opencode-world.js';

describe(`umbel --provider opencode on the real ${PIN.package}@${PIN.version} against the chat-completions mock`, () => {
  it(
    'is the pinned version, and `umbel providers` lists it as verified',
    async () => {
      const user = await freshUser();
      expect((await runCommand(opencode, ['--version'], { cwd: user.work, env: user.env })).stdout.trim()).toBe(PIN.version);
      const report = JSON.parse((await user.umbel(['providers', '--json'])).stdout);
      const entry = report.providers.find((p: Json) => p.id === 'opencode');
      expect(entry).toMatchObject({
        id: 'opencode',
        source: 'built-in',
        packageName: '@umbel/provider-opencode',
        binary: { status: 'found', path: opencode, version: PIN.version },
        verifiedVersions: [PIN.version],
      });
    },
    T,
  );

  it(
    'two turns exact, a multi-line prompt exact; the model got each prompt byte-exact, once; the user config is untouched',
    async () => {
      const user = await freshUser();
      await spawn(user, 'w1');
      expect(await send(user, 'w1', 'ECHO first `answer` **bold**')).toBe('1\n');
      expect(await user.umbel(['wait', 'w1', '--timeout', '150s'])).toMatchObject({ code: 0, stdout: 'first `answer` **bold**\n' });
      expect(await send(user, 'w1', 'ECHO second answer')).toBe('2\n');
      const second = await waitJson(user, 'w1');
      expect(second.outcome).toMatchObject({ reason: 'completed', result: 'second answer', turn: 2, provider: 'opencode' });
      expect(second.outcome.sessionId).toMatch(/^ses_/);
      const body = '  leading spaces\nline "two" with $HOME and `ticks`\n\n\tindented ünïcödé 🚀\ttab  ';
      expect(await send(user, 'w1', `ECHO ${body}`)).toBe('3\n');
      expect((await waitJson(user, 'w1')).outcome).toMatchObject({ reason: 'completed', result: body });
      for (const p of ['ECHO first `answer` **bold**', 'ECHO second answer', `ECHO ${body}`]) expect(turnsFor(p)).toHaveLength(1);
      expect((await user.umbel(['read', 'w1', '--turn', '1'])).stdout).toBe('first `answer` **bold**\n');
      // the transcript is opencode's stored session (what `opencode export` prints), as the plugin fetched it
      const doc = JSON.parse(await readFile(second.outcome.transcriptPath, 'utf8'));
      const exported = await runCommand(opencode, ['export', second.outcome.sessionId], { cwd: user.work, env: user.env });
      expect(exported.code, exported.stderr).toBe(0);
      const exportDoc = JSON.parse(exported.stdout);
      expect(doc.messages.map((m: Json) => m.info.id)).toEqual(exportDoc.messages.map((m: Json) => m.info.id));
      expect(doc.messages.map((m: Json) => m.parts.filter((p: Json) => p.type === 'text').map((p: Json) => p.text))).toEqual(
        exportDoc.messages.map((m: Json) => m.parts.filter((p: Json) => p.type === 'text').map((p: Json) => p.text)),
      );
      await untouched(user);
      await purgeWorkers(user.umbel);
    },
    T,
  );

  it(
    "a permission for opencode's bash tool is needs-input (126); `umbel keys Enter` approves it and the turn completes",
    async () => {
      const user = await freshUser();
      await spawn(user, 'perm', ['--permission-mode', 'ask']);
      await send(user, 'perm', 'TOOL touch approved-by-keys.txt; echo approved');
      const blocked = await waitJson(user, 'perm');
      expect(blocked.code, JSON.stringify(blocked.outcome)).toBe(126);
      expect(blocked.outcome).toMatchObject({
        reason: 'needs-input',
        inputKind: 'permission',
        tool: 'bash',
        message: 'opencode asks to use bash: touch approved-by-keys.txt; echo approved',
      });
      expect(blocked.outcome.paneTail).toContain('△ Permission required');
      expect(existsSync(join(user.work, 'approved-by-keys.txt'))).toBe(false);
      expect((await user.umbel(['keys', 'perm', 'Enter'])).code).toBe(0);
      const done = await user.umbel(['wait', 'perm', '--timeout', '150s']);
      expect(done, done.stderr).toMatchObject({ code: 0, stdout: 'TOOL-RESULT: approved\n' });
      expect(existsSync(join(user.work, 'approved-by-keys.txt'))).toBe(true);
      // the command the mock asked for ran through opencode's bash tool
      expect(mock.requests().some((q) => q.kind === 'tool-result' && q.toolOutput === 'approved\n')).toBe(true);
      await purgeWorkers(user.umbel);
    },
    T,
  );

  it(
    'an API error is provider-error (122) with its message, a 401 auth-failed (119); a retrying one is stopped after 2 retries, reported; the worker answers again',
    async () => {
      const user = await freshUser();
      await spawn(user, 'err');
      await send(user, 'err', 'FAIL 400 real bad request');
      expect(await waitJson(user, 'err')).toMatchObject({
        code: 122,
        outcome: { reason: 'provider-error', message: 'real bad request', apiErrorStatus: 400, apiErrorType: 'APIError' },
      });
      await send(user, 'err', 'FAIL 401 real invalid key');
      expect(await waitJson(user, 'err')).toMatchObject({ code: 119, outcome: { reason: 'auth-failed', message: 'real invalid key', apiErrorStatus: 401 } });
      await send(user, 'err', 'FAIL 500 retry-after-ms=200 real always down');
      const down = await waitJson(user, 'err');
      expect(down).toMatchObject({
        code: 122,
        outcome: { reason: 'provider-error', message: 'real always down (opencode was retrying, attempt 3; umbel stopped the turn after 2 retries)' },
      });
      expect(turnsFor('FAIL 500 retry-after-ms=200 real always down')).toHaveLength(3);
      const logs = (await user.umbel(['logs', 'err'])).stdout;
      expect(logs).toMatch(/retrying \(attempt 1, next in 0s\): real always down/);
      await send(user, 'err', 'ECHO back again');
      expect(await user.umbel(['wait', 'err', '--timeout', '150s'])).toMatchObject({ code: 0, stdout: 'back again\n' });
      await purgeWorkers(user.umbel);
    },
    T,
  );

  it(
    'kill leaves no opencode process of the worker; the answer still reads',
    async () => {
      const user = await freshUser();
      await spawn(user, 'gone');
      await send(user, 'gone', 'ECHO remember me');
      expect((await user.umbel(['wait', 'gone', '--timeout', '150s'])).stdout).toBe('remember me\n');
      expect(workerProcesses(user.state, 'gone').some((p) => p.args.includes(opencode))).toBe(true);
      expect(await user.umbel(['kill', 'gone'])).toMatchObject({ code: 0, stdout: 'killed: gone\n' });
      expect(workerProcesses(user.state, 'gone')).toEqual([]);
      expect(opencodeIn(user.work)).toEqual([]);
      expect((await user.umbel(['read', 'gone'])).stdout).toBe('remember me\n');
      await purgeWorkers(user.umbel);
    },
    T,
  );

  it(
    'a workflow step runs on an opencode worker, and the run leaves no opencode process',
    async () => {
      const user = await freshUser();
      const file = join(user.dir, 'flow.yaml');
      writeFileSync(
        file,
        `name: real-opencode
workers:
  agent:
    provider: opencode
    cwd: ./project
steps:
  - id: one
    worker: agent
    prompt: ECHO alpha-42
    timeout: 4m
  - id: two
    worker: agent
    needs: [one]
    prompt: "ECHO got {{ steps.one.output }}"
    timeout: 4m
`,
      );
      const r = await user.umbel(['run', file, '--json']);
      const summary = JSON.parse(r.stdout);
      expect(r.code, `${r.stderr}\n${r.stdout}`).toBe(0);
      expect(summary).toMatchObject({ ok: true, status: 'completed' });
      expect(summary.outputs).toMatchObject({ one: { output: 'alpha-42' }, two: { output: 'got alpha-42' } });
      expect(opencodeIn(user.work)).toEqual([]);
    },
    T,
  );

  it(
    'the MCP face: umbel_spawn → umbel_send → umbel_wait → umbel_read → umbel_kill',
    async () => {
      const user = await freshUser();
      const client = await connectUmbelMcp({ env: user.env, cwd: user.dir });
      clients.push(client);
      const call = async (name: string, args: Record<string, unknown>) => {
        const result = await client.callTool({ name, arguments: args }, undefined, { timeout: T });
        expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
        return result.structuredContent;
      };
      expect(await call('umbel_spawn', { name: 'mcp-oc', provider: 'opencode', cwd: user.work, startupTimeout: '180s' })).toMatchObject({
        name: 'mcp-oc',
        provider: 'opencode',
        alive: true,
      });
      expect(await call('umbel_send', { name: 'mcp-oc', prompt: 'ECHO opencode answers over MCP' })).toEqual({ worker: 'mcp-oc', turn: 1 });
      let outcome = await call('umbel_wait', { name: 'mcp-oc', timeout: '50s' });
      for (let i = 0; i < 4 && outcome.reason === 'timeout'; i++) outcome = await call('umbel_wait', { name: 'mcp-oc', timeout: '50s' });
      expect(outcome).toMatchObject({ reason: 'completed', result: 'opencode answers over MCP' });
      expect(await call('umbel_read', { name: 'mcp-oc' })).toMatchObject({ result: 'opencode answers over MCP', complete: true });
      expect(await call('umbel_kill', { name: 'mcp-oc', purge: true })).toMatchObject({ purged: true });
      expect(opencodeIn(user.work)).toEqual([]);
    },
    T,
  );
});
