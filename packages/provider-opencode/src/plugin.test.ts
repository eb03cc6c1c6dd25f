/**
 * umbel's opencode plugin, driven the way opencode 1.18.33 drives it (FACTS.md §b: the factory, the
 * `chat.message` hook, then events), with an in-process client that answers like the real one. Its
 * hook commands are small shell recorders, so each test sees exactly what would reach the sink, in
 * order, and whether the transcript existed at that moment.
 */
import * as cp from 'node:child_process';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { pluginRuntime } from '@umbel/provider';
import { afterEach, describe, expect, it } from 'vitest';
import { OPENCODE_SIGNALS } from './provider.js';
import { type PluginContext, type PluginSettings, renderPlugin, UmbelPluginRun } from './plugin.js';

type Json = Record<string, any>;
/** The modules the rendered file passes in, to the kit's runtime of the plugin. */
const NODE = { fs, cp };
/** The plugin loaded on a rig, as the rendered file loads it: its settings, and the kit's runtime made of them. */
const load = (r: { ctx: PluginContext; settings: PluginSettings }) => UmbelPluginRun.main(r.ctx, r.settings, pluginRuntime(NODE, r.settings));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const SID = 'ses_test0000000000000000001';
const user = (id: string) => ({ info: { id, role: 'user', sessionID: SID, time: { created: 1 } }, parts: [{ type: 'text', text: 'hi' }] });

/** A plugin with recording hook commands and a fake in-process client. */
function rig(overrides: Partial<PluginSettings> = {}) {
  const root = mkdtempSync(join(tmpdir(), 'umbel-oc-plugin-'));
  dirs.push(root);
  const log = join(root, 'delivered.jsonl');
  const transcriptDir = join(root, 'transcripts');
  const transcript = join(transcriptDir, `${SID}.json`);
  // each delivery: one line {kind, transcriptExisted, ending? (the transcript's umbel.ending then), payload}
  const hooks = Object.fromEntries(
    Object.entries(OPENCODE_SIGNALS).map(([signal, kind]) => [
      signal,
      `p=$(cat); if [ -e '${transcript}' ]; then t=true; e=$(grep -o '"ending":\\[[^]]*\\]' '${transcript}'); else t=false; e=; fi; printf '{"kind":"${kind}","transcriptExisted":%s%s,"payload":%s}\\n' "$t" "\${e:+,$e}" "$p" >> '${log}'`,
    ]),
  );
  const messages: unknown[] = [];
  const calls: string[] = [];
  const ctx: PluginContext = {
    directory: '/srv/work',
    worktree: '/',
    client: {
      session: {
        async messages({ path }) {
          calls.push(`messages ${path.id}`);
          return { data: structuredClone(messages) };
        },
        async get({ path }) {
          calls.push(`get ${path.id}`);
          return { data: { id: path.id, title: 'Mock session title' } };
        },
        async abort({ path }) {
          calls.push(`abort ${path.id}`);
          return { data: true };
        },
      },
    },
  };
  const settings: PluginSettings = { hooks, transcriptDir, maxRetries: 2, maxRetryDelayMs: 60_000, dropEnv: [], ...overrides };
  const delivered = (): Json[] =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
      : [];
  const doc = (): Json => JSON.parse(readFileSync(transcript, 'utf8'));
  return { root, ctx, settings, messages, calls, delivered, doc, transcript };
}

const ev = (type: string, properties: Json) => ({ event: { type, properties } });

describe('the plugin turns opencode signals into umbel hook events', () => {
  it('a turn: session at load, prompt with the user message id; the transcript (the stored session, the turn ending) on disk before its stop', async () => {
    const r = rig();
    const hooks = await load(r);
    expect(r.delivered()).toEqual([{ kind: 'session', transcriptExisted: false, payload: { event: 'plugin.loaded', directory: '/srv/work', worktree: '/' } }]);
    await hooks.event(ev('session.created', { sessionID: SID, info: { id: SID, directory: '/srv/work' } }));
    await hooks['chat.message'](
      { sessionID: SID, agent: 'build', model: { providerID: 'mock', modelID: 'mock-model' } },
      { message: { id: 'msg_u1' }, parts: [] },
    );
    r.messages.push(user('msg_u1'), {
      info: { id: 'msg_a1', role: 'assistant', parentID: 'msg_u1', finish: 'stop', time: { created: 2, completed: 3 } },
      parts: [{ type: 'text', text: 'hello `code`' }],
    });
    await hooks.event(ev('session.status', { sessionID: SID, status: { type: 'busy' } }));
    await hooks.event(ev('session.status', { sessionID: SID, status: { type: 'idle' } }));
    await hooks.event(ev('session.idle', { sessionID: SID }));
    const base = { sessionID: SID, transcriptPath: r.transcript };
    expect(r.delivered().slice(1)).toEqual([
      { kind: 'session', transcriptExisted: false, payload: { event: 'session.created', ...base, directory: '/srv/work' } },
      {
        kind: 'prompt',
        transcriptExisted: false,
        payload: { event: 'chat.message', ...base, messageID: 'msg_u1', agent: 'build', model: { providerID: 'mock', modelID: 'mock-model' } },
      },
      // the answer is on disk before its stop (a delivery yields to opencode, which may stall), the turn `ending`: read as running until its hook is seen
      { kind: 'stop', transcriptExisted: true, ending: ['msg_u1'], payload: { event: 'session.idle', ...base, messageID: 'msg_u1' } },
    ]);
    expect(r.doc()).toEqual({ info: { id: SID, title: 'Mock session title' }, messages: r.messages, umbel: { version: 1, failures: {}, ended: ['msg_u1'] } });
    // a second idle (opencode repeats it) ends nothing more, but refreshes the transcript
    await hooks.event(ev('session.idle', { sessionID: SID }));
    expect(r.delivered()).toHaveLength(4);
  });

  it("a subagent's child session (the task tool: session.created with a parentID) names its parent in every payload", async () => {
    const r = rig();
    const hooks = await load(r);
    const CHILD = 'ses_child000000000000000001';
    await hooks['chat.message']({ sessionID: SID }, { message: { id: 'msg_u1' } });
    await hooks.event(ev('session.created', { sessionID: CHILD, info: { id: CHILD, parentID: SID, directory: '/srv/work' } }));
    await hooks['chat.message']({ sessionID: CHILD, agent: 'general' }, { message: { id: 'msg_c1' } });
    await hooks['tool.execute.before']({ sessionID: CHILD, tool: 'bash', callID: 'call_1' }, { args: { command: 'ls' } });
    await hooks.event(ev('session.idle', { sessionID: CHILD }));
    await hooks.event(ev('session.idle', { sessionID: SID }));
    const child = { sessionID: CHILD, transcriptPath: join(r.settings.transcriptDir, `${CHILD}.json`), parentSessionID: SID };
    expect(
      r
        .delivered()
        .slice(2)
        .map((d) => [d.kind, d.payload]),
    ).toEqual([
      ['session', { event: 'session.created', ...child, directory: '/srv/work' }],
      ['prompt', { event: 'chat.message', ...child, messageID: 'msg_c1', agent: 'general' }],
      ['tool', { event: 'tool.execute.before', ...child, tool: 'bash', callID: 'call_1', args: { command: 'ls' } }],
      ['stop', { event: 'session.idle', ...child, messageID: 'msg_c1' }],
      ['stop', { event: 'session.idle', sessionID: SID, transcriptPath: r.transcript, messageID: 'msg_u1' }],
    ]);
  });

  it('noise events cost nothing: no client call, no delivery', async () => {
    const r = rig();
    const hooks = await load(r);
    for (const type of ['plugin.added', 'message.part.delta', 'message.part.updated', 'session.diff', 'session.updated', 'catalog.updated']) {
      await hooks.event(ev(type, { sessionID: SID }));
    }
    expect(r.calls).toEqual([]);
    expect(r.delivered()).toHaveLength(1);
  });

  it('a non-retryable error: one stop-failure with the message, its two idles end nothing; the transcript records it', async () => {
    const r = rig();
    const hooks = await load(r);
    await hooks['chat.message']({ sessionID: SID }, { message: { id: 'msg_u1' } });
    const error = { name: 'APIError', data: { message: 'mock bad request', statusCode: 400, isRetryable: false, responseBody: '{}' } };
    await hooks.event(ev('session.error', { sessionID: SID, error }));
    await hooks.event(ev('session.idle', { sessionID: SID }));
    await hooks.event(ev('session.idle', { sessionID: SID }));
    const kinds = r.delivered().map((d) => d.kind);
    expect(kinds).toEqual(['session', 'prompt', 'stop-failure']);
    expect(r.delivered()[2]?.payload).toMatchObject({
      messageID: 'msg_u1',
      message: 'mock bad request',
      error: { name: 'APIError', message: 'mock bad request', statusCode: 400 },
    });
    expect(r.doc().umbel.failures).toEqual({ msg_u1: { name: 'APIError', message: 'mock bad request', statusCode: 400 } });
    expect(r.doc().umbel.ended).toEqual(['msg_u1']);
  });

  it('retries are reported; past maxRetries the turn stops: aborted at once (opencode retries on while hooks run), then stop-failure, and the idle after it ends nothing', async () => {
    const r = rig({ maxRetries: 2 });
    const hooks = await load(r);
    await hooks['chat.message']({ sessionID: SID }, { message: { id: 'msg_u1' } });
    for (const attempt of [1, 2, 3]) {
      await hooks.event(
        ev('session.status', { sessionID: SID, status: { type: 'retry', attempt, message: 'always down', next: Date.now() + 2000 * attempt } }),
      );
    }
    await hooks.event(ev('session.idle', { sessionID: SID }));
    const delivered = r.delivered();
    expect(delivered.map((d) => d.kind)).toEqual(['session', 'prompt', 'tool', 'tool', 'tool', 'stop-failure']);
    expect(delivered[2]?.payload).toMatchObject({
      event: 'session.status.retry',
      messageID: 'msg_u1',
      status: { type: 'retry', attempt: 1, message: 'always down' },
    });
    const message = 'always down (opencode was retrying, attempt 3; umbel stopped the turn after 2 retries)';
    expect(delivered[5]?.payload).toMatchObject({ messageID: 'msg_u1', message, error: { name: 'RetryLimit', attempt: 3 } });
    // the abort before anything else of the stop: the transcript's snapshot and every delivery come after it
    expect(r.calls).toEqual([`abort ${SID}`, `messages ${SID}`, `get ${SID}`, `messages ${SID}`, `get ${SID}`]);
    expect(r.doc().umbel.failures.msg_u1).toMatchObject({ name: 'RetryLimit', message });
  });

  it('the retry past the limit aborts as it arrives, not after the hooks queued before it (opencode retries on meanwhile)', async () => {
    const r = rig({ maxRetries: 2 });
    const hooks = await load(r);
    await hooks['chat.message']({ sessionID: SID }, { message: { id: 'msg_u1' } });
    // opencode does not wait for the plugin between retries: three arrive while the first one's hook runs
    const handled = [1, 2, 3].map((attempt) =>
      hooks.event(ev('session.status', { sessionID: SID, status: { type: 'retry', attempt, message: 'always down', next: Date.now() } })),
    );
    expect(r.calls).toEqual([`abort ${SID}`]);
    await Promise.all(handled);
    expect(r.delivered().map((d) => d.kind)).toEqual(['session', 'prompt', 'tool', 'tool', 'tool', 'stop-failure']);
    expect(r.calls.filter((c) => c.startsWith('abort'))).toHaveLength(1);
  });

  it('a retry opencode would start too late stops the turn at once; maxRetries 0 stops at the first', async () => {
    const late = rig({ maxRetries: 5, maxRetryDelayMs: 30_000 });
    const hooks = await load(late);
    await hooks['chat.message']({ sessionID: SID }, { message: { id: 'msg_u1' } });
    await hooks.event(ev('session.status', { sessionID: SID, status: { type: 'retry', attempt: 1, message: 'rate limited', next: Date.now() + 3_600_000 } }));
    expect(late.delivered().at(-1)?.payload.message).toMatch(
      /^rate limited \(opencode was retrying, attempt 1; umbel stopped the turn rather than wait 3600s\)$/,
    );
    const none = rig({ maxRetries: 0 });
    const h0 = await load(none);
    await h0['chat.message']({ sessionID: SID }, { message: { id: 'msg_u1' } });
    await h0.event(ev('session.status', { sessionID: SID, status: { type: 'retry', attempt: 1, message: 'x', next: Date.now() + 2000 } }));
    expect(none.delivered().map((d) => d.kind)).toEqual(['session', 'prompt', 'tool', 'stop-failure']);
  });

  it('permission asked → permission (the tool, its patterns); replied → tool; a tool call → tool', async () => {
    const r = rig();
    const hooks = await load(r);
    await hooks['chat.message']({ sessionID: SID }, { message: { id: 'msg_u1' } });
    await hooks['tool.execute.before']({ tool: 'bash', sessionID: SID, callID: 'call_1' }, { args: { command: 'echo perm' } });
    const asked = {
      id: 'per_1',
      sessionID: SID,
      permission: 'bash',
      patterns: ['echo perm'],
      metadata: { command: 'echo perm' },
      always: ['echo *'],
      tool: { messageID: 'msg_a1', callID: 'call_1' },
    };
    await hooks.event(ev('permission.asked', asked));
    await hooks.event(ev('permission.replied', { sessionID: SID, requestID: 'per_1', reply: 'once' }));
    expect(r.delivered().slice(2)).toEqual([
      {
        kind: 'tool',
        transcriptExisted: false,
        payload: { event: 'tool.execute.before', sessionID: SID, transcriptPath: r.transcript, tool: 'bash', callID: 'call_1', args: { command: 'echo perm' } },
      },
      { kind: 'permission', transcriptExisted: false, payload: { event: 'permission.asked', ...asked, transcriptPath: r.transcript } },
      {
        kind: 'tool',
        transcriptExisted: false,
        payload: { event: 'permission.replied', sessionID: SID, requestID: 'per_1', reply: 'once', transcriptPath: r.transcript },
      },
    ]);
  });

  it('a tool step that ended writes the transcript (the turn runs on); prompts queued while busy end in order', async () => {
    const r = rig();
    const hooks = await load(r);
    await hooks['chat.message']({ sessionID: SID }, { message: { id: 'msg_u1' } });
    await hooks['chat.message']({ sessionID: SID }, { message: { id: 'msg_u2' } });
    await hooks.event(ev('message.updated', { sessionID: SID, info: { role: 'assistant', finish: 'tool-calls', time: { completed: 5 } } }));
    // written mid-turn: no turn has ended yet, so a reader never takes this tool step for the turn's last
    expect(r.doc().umbel.ended).toEqual([]);
    await hooks.event(ev('session.idle', { sessionID: SID }));
    expect(r.doc().umbel.ended).toEqual(['msg_u1', 'msg_u2']);
    expect(
      r
        .delivered()
        .filter((d) => d.kind === 'stop')
        .map((d) => d.payload.messageID),
    ).toEqual(['msg_u1', 'msg_u2']);
  });

  it('removes the startup-only variables umbel added (npm_config_offline) before any tool runs', async () => {
    process.env.UMBEL_TEST_DROP_ME = 'true';
    const r = rig({ dropEnv: ['UMBEL_TEST_DROP_ME'] });
    await load(r);
    expect(process.env.UMBEL_TEST_DROP_ME).toBeUndefined();
  });

  it('its rendered file is a self-contained module a plain node loads (as opencode does): one exported factory, the settings inside', async () => {
    const r = rig();
    const file = join(r.root, 'umbel.js');
    writeFileSync(file, renderPlugin(r.settings));
    // a fresh node process, not this test's module loader (which would rewrite the file as it loads it)
    const driver = `
      const mod = await import(${JSON.stringify(pathToFileURL(file).href)});
      const ok = (data) => async () => ({ data });
      const client = { session: { messages: ok([]), get: ok({ id: 'x' }), abort: ok(true) } };
      const hooks = await mod.UmbelPlugin({ client, directory: '/srv/work', worktree: '/' });
      await hooks['chat.message']({ sessionID: ${JSON.stringify(SID)} }, { message: { id: 'msg_u1' } });
      await hooks.event({ event: { type: 'session.idle', properties: { sessionID: ${JSON.stringify(SID)} } } });
      console.log(JSON.stringify({ exports: Object.keys(mod), hooks: Object.keys(hooks).sort() }));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', driver], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ exports: ['UmbelPlugin'], hooks: ['chat.message', 'event', 'tool.execute.before'] });
    expect(r.delivered().map((d) => [d.kind, d.payload.event])).toEqual([
      ['session', 'plugin.loaded'],
      ['prompt', 'chat.message'],
      ['stop', 'session.idle'],
    ]);
  });
});
