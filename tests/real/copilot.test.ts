/**
 * The REAL GitHub Copilot CLI (pinned in test-fixtures/real/pins.json, installed by `pnpm
 * install:real-clis`) driven by the built `umbel` through tmux, offline: bring-your-own-key
 * variables (`COPILOT_PROVIDER_BASE_URL` …, `COPILOT_OFFLINE=true`) point it at the chat mock of
 * test-fixtures, so no GitHub or model service is ever called. Facts: test-fixtures/real/COPILOT-FACTS.md.
 * A missing install fails (never skips). Nothing here asserts on time.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM fixture without type declarations
import { readPins } from '../../test-fixtures/real/clis.mjs';
import { COPILOT_BYOK_FLAGS, connectUmbelMcp } from '../../test-fixtures/real/umbel-helpers.mjs';
import { CP, T, useCopilotWorld } from './copilot-world.js';

type Json = any;

const PIN = readPins().copilot;
/** The BYOK world, passed by name on purpose (never inherited). */
const BYOK = COPILOT_BYOK_FLAGS;
const cp = CP;
const w = useCopilotWorld('umbel-real-copilot-', ['packages/mcp/dist/bin.js', 'packages/workflow/dist/index.js']);
const umbel = (argv: string[]) => w.umbel(argv);
const { waitJson, spawn } = w;

const turnsFor = (prompt: string) => w.mock.requests().filter((q) => q.kind === 'turn' && q.prompt === prompt);

describe(`the real GitHub Copilot CLI ${PIN?.version} offline against the chat mock`, () => {
  it(
    'spawns in an untrusted folder (trust dialog answered), answers two turns exact incl. a multi-line prompt, from its session events',
    async () => {
      await spawn('c1');
      expect((await umbel(['send', 'c1', 'ECHO first `answer` **bold**'])).stdout).toBe('1\n');
      expect(await umbel(['wait', 'c1', '--timeout', '180s'])).toMatchObject({ code: 0, stdout: 'first `answer` **bold**\n' });
      const body = 'line one\n\tline "two" with $HOME\n\n  indented ünïcödé 🚀\ttab  ';
      expect((await umbel(['send', 'c1', `ECHO ${body}`])).stdout).toBe('2\n');
      const { code, outcome } = await waitJson('c1');
      expect(code).toBe(0);
      // Copilot's input box turns a tab into four spaces and trims the prompt's end (COPILOT-FACTS.md §2)
      const delivered = 'line one\n    line "two" with $HOME\n\n  indented ünïcödé 🚀    tab';
      expect(outcome).toMatchObject({ reason: 'completed', result: delivered, turn: 2, provider: 'copilot', model: 'mock-model' });
      expect(outcome.transcriptPath).toBe(join(w.home, '.copilot', 'session-state', outcome.sessionId, 'events.jsonl'));
      expect((await umbel(['read', 'c1', '--turn', '1'])).stdout).toBe('first `answer` **bold**\n');
      // the model got each prompt exactly once, byte-exact (the mock strips Copilot's clock stamp)
      expect(turnsFor(`ECHO ${delivered}`)).toHaveLength(1);
      // billing: a BYOK endpoint was passed on purpose
      const status = JSON.parse((await umbel(['status', 'c1', '--json'])).stdout);
      expect(status).toMatchObject({ provider: 'copilot', billing: 'api' });
    },
    T,
  );

  it(
    'a permission prompt is needs-input; Enter approves it and the turn completes with the tool result',
    async () => {
      await spawn('c2');
      await umbel(['send', 'c2', 'TOOL touch made-by-copilot.txt']);
      const asked = await waitJson('c2');
      expect(asked.outcome).toMatchObject({ reason: 'needs-input', inputKind: 'permission', tool: 'bash' });
      expect(asked.outcome.message).toContain('touch made-by-copilot.txt');
      expect((await umbel(['keys', 'c2', 'Enter'])).code).toBe(0);
      const done = await waitJson('c2');
      expect(done.outcome).toMatchObject({ reason: 'completed', result: 'TOOL-RESULT: <shellId: 0 completed with exit code 0>' });
      expect(existsSync(join(w.work, 'made-by-copilot.txt'))).toBe(true);
    },
    T,
  );

  it(
    'API errors from the session events: 401 auth-failed, 500 provider-error, 429 rate-limited (after Copilot gives up retrying)',
    async () => {
      await spawn('c3');
      await umbel(['send', 'c3', 'FAIL 401 mock bad key']);
      expect((await waitJson('c3')).outcome).toMatchObject({ reason: 'auth-failed', apiErrorStatus: 401 });
      // Copilot retries a 500 and a 429 five times before it gives up; a `retry-after-ms` header sets
      // its wait between tries (without one it waits its own backoff: ~16 s for a 500, ~53 s for a 429)
      const down = 'FAIL 500 retry-after-ms=50 mock upstream down';
      await umbel(['send', 'c3', down]);
      expect((await waitJson('c3')).outcome).toMatchObject({ reason: 'provider-error', apiErrorStatus: 500 });
      expect(turnsFor(down).length).toBeGreaterThan(1);
      const slow = 'FAIL 429 retry-after-ms=50 mock slow down';
      await umbel(['send', 'c3', slow]);
      expect((await waitJson('c3', '240s')).outcome).toMatchObject({ reason: 'rate-limited', apiErrorStatus: 429 });
      expect(turnsFor(slow).length).toBeGreaterThan(1);
      // the worker is usable after each
      await umbel(['send', 'c3', 'ECHO still here']);
      expect((await waitJson('c3')).outcome).toMatchObject({ reason: 'completed', result: 'still here' });
    },
    T,
  );

  it(
    '`--billing subscription` refuses a BYOK variable before anything starts',
    async () => {
      const r = await umbel(['spawn', 'c4', ...cp, '--billing', 'subscription']);
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/COPILOT_PROVIDER_BASE_URL/);
      expect((await umbel(['ls'])).stdout).not.toMatch(/\bc4\b/);
    },
    T,
  );

  it(
    'a workflow runs two steps on a copilot worker (BYOK passed with fromEnv)',
    async () => {
      const file = join(w.scratch, 'flow.yaml');
      const byok = ['COPILOT_PROVIDER_BASE_URL', 'COPILOT_PROVIDER_API_KEY', 'COPILOT_PROVIDER_TYPE', 'COPILOT_MODEL'].map(
        (n) => `      ${n}: { fromEnv: ${n} }`,
      );
      writeFileSync(
        file,
        `name: real-copilot\nworkers:\n  agent:\n    provider: copilot\n    cwd: ./project\n    env:\n${byok.join('\n')}\nsteps:\n  - id: one\n    worker: agent\n    prompt: ECHO alpha-42\n    timeout: 4m\n  - id: two\n    worker: agent\n    needs: [one]\n    prompt: "ECHO got {{ steps.one.output }}"\n    timeout: 4m\n`,
      );
      const r = await umbel(['run', file, '--json']);
      expect(r.code, `${r.stderr}\n${r.stdout}`).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, status: 'completed', outputs: { one: { output: 'alpha-42' }, two: { output: 'got alpha-42' } } });
    },
    T,
  );

  it(
    'the MCP face: umbel_spawn → umbel_send → umbel_wait → umbel_read → umbel_kill',
    async () => {
      const client = await connectUmbelMcp({ env: w.env, cwd: w.scratch });
      w.clients.push(client);
      const call = async (name: string, args: Record<string, unknown>) => {
        const result = await client.callTool({ name, arguments: args }, undefined, { timeout: T });
        expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
        return result.structuredContent;
      };
      const byok = Object.fromEntries(
        ['COPILOT_PROVIDER_BASE_URL', 'COPILOT_PROVIDER_API_KEY', 'COPILOT_PROVIDER_TYPE', 'COPILOT_MODEL'].map((n) => [n, { fromEnv: n }]),
      );
      expect(await call('umbel_spawn', { name: 'mcp-cp', provider: 'copilot', cwd: w.work, env: byok, startupTimeout: '180s' })).toMatchObject({
        name: 'mcp-cp',
        provider: 'copilot',
        alive: true,
      });
      expect(await call('umbel_send', { name: 'mcp-cp', prompt: 'ECHO copilot answers over MCP' })).toEqual({ worker: 'mcp-cp', turn: 1 });
      let outcome = await call('umbel_wait', { name: 'mcp-cp', timeout: '50s' });
      for (let i = 0; i < 4 && outcome.reason === 'timeout'; i++) outcome = await call('umbel_wait', { name: 'mcp-cp', timeout: '50s' });
      expect(outcome).toMatchObject({ reason: 'completed', result: 'copilot answers over MCP' });
      expect(await call('umbel_read', { name: 'mcp-cp' })).toMatchObject({ result: 'copilot answers over MCP', complete: true });
      expect(await call('umbel_kill', { name: 'mcp-cp', purge: true })).toMatchObject({ purged: true });
    },
    T,
  );

  it(
    'umbel doctor --turn passes every check (the session payload names the events file)',
    async () => {
      const r = await umbel(['doctor', '--json', '--turn', '--provider', 'copilot', '--startup-timeout', '180s', ...BYOK]);
      const report = JSON.parse(r.stdout);
      const checks = report.providers[0].checks.map((c: Json) => [c.id, c.status]);
      expect(
        checks.filter(([, status]: string[]) => status === 'fail'),
        JSON.stringify(report.providers[0].checks),
      ).toEqual([]);
      expect(checks).toEqual(
        expect.arrayContaining([
          ['payload', 'pass'],
          ['turn', 'pass'],
        ]),
      );
    },
    T,
  );

  it(
    'umbel -p prints the answer like claude -p (text and json)',
    async () => {
      const text = await umbel(['-p', 'ECHO printed answer', ...cp, '--startup-timeout', '180s']);
      expect(text, text.stderr).toMatchObject({ code: 0, stdout: 'printed answer\n' });
      const json = await umbel(['-p', 'ECHO json answer', ...cp, '--output-format', 'json', '--startup-timeout', '180s']);
      expect(json.code, json.stderr).toBe(0);
      expect(JSON.parse(json.stdout)).toMatchObject({ type: 'result', subtype: 'success', is_error: false, result: 'json answer' });
    },
    T,
  );
});
