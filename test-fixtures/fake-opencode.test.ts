/**
 * The fake `opencode` (test-fixtures/fake-opencode, shim test-fixtures/bin/opencode) driven on real
 * tmux through @umbel/tmux's substrate, against the chat-completions mock. What it must share with
 * the real opencode 1.18.33 is in fake-opencode/FACTS.md and fake-opencode/recorded/. Every test
 * has its own HOME, XDG dirs, cwd, substrate home and TMUX_TMPDIR; waits poll with a generous
 * deadline; nothing asserts on timing.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HOOK_SINK_SCRIPT } from '../packages/core/src/index.js';
import { createTmuxSubstrate, type TmuxSubstrate } from '../packages/tmux/src/index.js';
// @ts-expect-error untyped ESM fixture
import { startChatMock } from './mock-servers/openai-chat.mjs';
import { markInstalled, seedOpencodeUser } from './fake-opencode/seed.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const FAKE = join(here, 'bin', 'opencode');
const RECORDED = join(here, 'fake-opencode', 'recorded');
const WAIT_MS = 30_000;
type Json = Record<string, any>;

/** A plugin like umbel's would be: every event and hook as one JSON line, session.idle also through the hook sink. */
const RECORDER = `import { appendFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
const log = (kind, data) => appendFileSync(process.env.REC_LOG, JSON.stringify({ kind, data }) + '\\n');
export const Recorder = async (ctx) => {
  log('factory', { keys: Object.keys(ctx), directory: ctx.directory, worktree: ctx.worktree });
  return {
    event: async ({ event }) => {
      log('event', event);
      if (event.type === 'session.status' && event.properties.status.type === 'retry' && process.env.REC_ABORT_ON_RETRY) {
        log('abort', await ctx.client.session.abort({ path: { id: event.properties.sessionID } }));
      }
      if (event.type === 'session.idle') {
        spawnSync('sh', [process.env.REC_SINK, 'stop'], { input: JSON.stringify(event) });
        const r = await ctx.client.session.messages({ path: { id: event.properties.sessionID } });
        log('client.messages', r.data);
      }
    },
    'chat.message': async (input, output) => {
      log('chat.message', { input, output: structuredClone(output) });
      for (const p of output.parts) if (p.type === 'text') p.text = p.text.replace('MODIFY-ME', 'ECHO modified');
    },
    'tool.execute.before': async (input, output) => log('tool.execute.before', { input, output }),
    'tool.execute.after': async (input, output) => log('tool.execute.after', { input, output }),
  };
};
`;

let mock: { url: string; requests(): Json[]; close(): Promise<void> };
const rigs: Rig[] = [];

beforeAll(async () => {
  mock = await startChatMock();
});
afterEach(async () => {
  for (const r of rigs.splice(0)) await r.cleanup();
});
afterAll(async () => {
  await mock.close();
});

interface Rig {
  root: string;
  home: string;
  work: string;
  cfg: string;
  workerCfg: string;
  events: string;
  env: Record<string, string>;
  sub: TmuxSubstrate;
  launch(args?: string[], extraEnv?: Record<string, string>): Promise<void>;
  screen(): Promise<string>;
  records(kind?: string): Json[];
  cleanup(): Promise<void>;
}

/** A scratch user: HOME with the mock provider in ~/.config/opencode, a worker config dir with the recorder plugin. */
function makeRig(options: { plugin?: boolean; seedGlobal?: boolean; configContent?: Json } = {}): Rig {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'fake-opencode-')));
  const home = join(root, 'home');
  const work = join(root, 'work');
  const cfg = join(home, '.config', 'opencode');
  const workerCfg = join(root, 'worker');
  const events = join(root, 'events');
  const tmux = join(root, 'tmux');
  for (const d of [work, cfg, workerCfg, events, tmux, join(root, 'exits')]) mkdirSync(d, { recursive: true });
  const userEnv = seedOpencodeUser({ home, baseUrl: mock.url, installed: options.seedGlobal ?? true });
  if (options.plugin ?? true) {
    mkdirSync(join(workerCfg, 'plugins'));
    writeFileSync(join(workerCfg, 'plugins', 'recorder.js'), RECORDER);
    markInstalled(workerCfg);
  }
  writeFileSync(join(root, 'sink.sh'), HOOK_SINK_SCRIPT, { mode: 0o755 });
  const env: Record<string, string> = {
    PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    ...userEnv,
    OPENCODE_CONFIG_DIR: workerCfg,
    REC_LOG: join(root, 'rec.jsonl'),
    REC_SINK: join(root, 'sink.sh'),
    UMBEL_EVENTS_DIR: events,
    ...(options.configContent ? { OPENCODE_CONFIG_CONTENT: JSON.stringify(options.configContent) } : {}),
  };
  const sub = createTmuxSubstrate({ home: join(root, 'umbel'), env: { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', TMUX_TMPDIR: tmux } });
  const rig: Rig = {
    root,
    home,
    work,
    cfg,
    workerCfg,
    events,
    env,
    sub,
    launch: (args = [], extraEnv = {}) =>
      sub.launch({ session: 'oc', cwd: work, argv: [FAKE, ...args], env: { ...env, ...extraEnv }, exitRecordDir: join(root, 'exits'), width: 120, height: 40 }),
    screen: () => sub.capture('oc'),
    records(kind) {
      let text = '';
      try {
        text = readFileSync(env.REC_LOG as string, 'utf8');
      } catch {}
      return text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Json)
        .filter((r) => kind === undefined || r.kind === kind);
    },
    async cleanup() {
      for (const s of await sub.list()) await sub.kill(s);
      rmSync(root, { recursive: true, force: true });
    },
  };
  rigs.push(rig);
  return rig;
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, rig?: Rig): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${rig ? `\n--- screen ---\n${await rig.screen().catch(() => '(none)')}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const eventsOf = (rig: Rig, type?: string) =>
  rig
    .records('event')
    .map((r) => r.data)
    .filter((e) => type === undefined || e.type === type);
const waitEvents = (rig: Rig, type: string, n = 1) => waitFor(`${n}× ${type}`, () => (eventsOf(rig, type).length >= n ? eventsOf(rig, type) : false), rig);
const ready = (rig: Rig) => waitFor('Ask anything…', async () => (await rig.screen()).includes('Ask anything… "Fix a TODO in the codebase"'), rig);
const lastTurnPrompt = () =>
  mock
    .requests()
    .filter((r) => r.kind === 'turn')
    .at(-1)?.prompt as string | undefined;

/** Run the fake headless with the rig's env; stdin gets `input`. */
function run(rig: Rig, args: string[], input = '', extraEnv: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(FAKE, args, { cwd: rig.work, env: { ...rig.env, ...extraEnv }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d) => {
      stderr += d;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

const recorded = (file: string): Json[] =>
  readFileSync(join(RECORDED, file), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Json);

const NOISE = new Set(['plugin.added', 'catalog.updated', 'integration.updated', 'reference.updated']);
/** An event as a comparable word: type plus the part type / tool status / role / status type. */
function word(e: Json): string {
  const p = e.properties ?? {};
  if (e.type === 'message.part.updated') return `${e.type}:${p.part.type}${p.part.type === 'tool' ? `:${p.part.state.status}` : ''}`;
  if (e.type === 'message.updated') return `${e.type}:${p.info.role}`;
  if (e.type === 'session.status') return `${e.type}:${p.status.type}`;
  return e.type;
}
/**
 * The words of the events after the `n`-th session.idle up to and including the next one, without
 * `session.status` busy: the real one repeats it at moments that vary from run to run.
 */
function turnWords(events: Json[], n: number): string[] {
  const words = events
    .filter((e) => !NOISE.has(e.type))
    .map(word)
    .filter((w) => w !== 'session.status:busy');
  let start = 0;
  for (let i = 0; i < n; i++) start = words.indexOf('session.idle', start) + 1;
  return words.slice(start, words.indexOf('session.idle', start) + 1);
}

describe('fake opencode TUI on tmux', () => {
  it("loads the worker plugin with the real context keys and delivers a turn's events in the real order and shapes", async () => {
    const rig = makeRig();
    await rig.launch();
    await ready(rig);
    const [factory] = rig.records('factory');
    const real = recorded('tui-turns.events.jsonl');
    expect(factory?.data.keys).toEqual(real.find((r) => r.kind === 'factory')?.data.keys);
    expect(factory?.data).toMatchObject({ directory: rig.work, worktree: '/' });
    await rig.sub.typeText('oc', 'ECHO hello `code` **bold**');
    await rig.sub.sendKeys('oc', ['Enter']);
    await waitEvents(rig, 'session.idle');
    const types = rig.records().map((r) => (r.kind === 'event' ? r.data.type : r.kind));
    const order = ['session.created', 'chat.message', 'message.updated', 'message.part.updated', 'session.status', 'message.part.delta', 'session.idle'];
    let at = -1;
    for (const t of order) {
      const next = types.indexOf(t, at + 1);
      expect(next, `${t} after index ${at} in ${types.join(',')}`).toBeGreaterThan(at);
      at = next;
    }
    // every event type the real one sent in this turn carries the same property keys
    const realEvents = real.filter((r) => r.kind === 'event').map((r) => r.data);
    for (const e of eventsOf(rig)) {
      const twin = realEvents.find((r) => r.type === e.type);
      if (twin && e.type !== 'message.part.updated') expect(Object.keys(e.properties).sort(), e.type).toEqual(Object.keys(twin.properties).sort());
    }
    const [created] = eventsOf(rig, 'session.created');
    const sid = created?.properties.sessionID as string;
    expect(sid).toMatch(/^ses_[0-9a-zA-Z]{26}$/);
    expect(eventsOf(rig, 'session.status').map((e) => e.properties.status.type)).toContain('busy');
    expect(eventsOf(rig, 'session.status').at(-1)?.properties.status).toEqual({ type: 'idle' });
    // the plugin ran the hook sink and could read the messages through its client
    await waitFor('sink file', () => readdirSync(rig.events).some((f) => /^\d+-\d+-stop\.json$/.test(f)));
    const viaClient = await waitFor('client.messages', () => rig.records('client.messages')[0]?.data as Json[] | undefined);
    expect(viaClient.map((m) => m.info.role)).toEqual(['user', 'assistant']);
    // the screen renders markdown; the export keeps the bytes
    await waitFor('rendered answer', async () => (await rig.screen()).includes('     hello code bold'), rig);
    const exp = await run(rig, ['export', sid]);
    expect(exp.code).toBe(0);
    expect(exp.stderr).toBe(`Exporting session: ${sid}\n`);
    const doc = JSON.parse(exp.stdout) as Json;
    expect(Object.keys(doc)).toEqual(['info', 'messages']);
    expect(doc.info).toMatchObject({ id: sid, title: 'Mock session title', directory: rig.work, version: '1.18.33' });
    expect(doc.messages[0].parts[0]).toMatchObject({ type: 'text', text: 'ECHO hello `code` **bold**' });
    const answer = doc.messages[1].parts.filter((p: Json) => p.type === 'text').map((p: Json) => p.text);
    expect(answer).toEqual(['hello `code` **bold**']);
    expect(doc.messages[1].parts.map((p: Json) => p.type)).toEqual(['step-start', 'text', 'step-finish']);
  });

  it('a permission turn sends exactly the real event sequence (recorded/tui-turns.events.jsonl, 2nd turn)', async () => {
    const rig = makeRig({ configContent: { permission: { bash: 'ask' } } });
    await rig.launch();
    await ready(rig);
    await rig.sub.typeText('oc', 'ECHO hello `code` **bold**');
    await rig.sub.sendKeys('oc', ['Enter']);
    await waitEvents(rig, 'session.idle');
    await rig.sub.typeText('oc', 'TOOL echo perm-test');
    await rig.sub.sendKeys('oc', ['Enter']);
    await waitEvents(rig, 'permission.asked');
    await waitFor('permission screen', async () => (await rig.screen()).includes('△ Permission required'), rig);
    await rig.sub.sendKeys('oc', ['Enter']);
    await waitEvents(rig, 'session.idle', 2);
    const real = recorded('tui-turns.events.jsonl')
      .filter((r) => r.kind === 'event')
      .map((r) => r.data);
    expect(turnWords(eventsOf(rig), 1)).toEqual(turnWords(real, 1));
  });

  it('a bracketed paste of 3+ lines is submitted trimmed plus one space; with disable_paste_summary it is exact', async () => {
    const text = '  ECHO lead\nline2 ünï 🎉\n\ttab  ';
    const rig = makeRig();
    await rig.launch();
    await ready(rig);
    await rig.sub.pasteText('oc', text);
    await waitFor('placeholder', async () => (await rig.screen()).includes('┃  [Pasted ~3 lines]'), rig);
    await rig.sub.sendKeys('oc', ['Enter']);
    await waitEvents(rig, 'session.idle');
    expect(lastTurnPrompt()).toBe(`${text.trim()} `);
    expect(rig.records('chat.message')[0]?.data.output.parts[0].text).toBe(`${text.trim()} `);

    const exact = makeRig({ configContent: { experimental: { disable_paste_summary: true } } });
    await exact.launch();
    await ready(exact);
    await exact.sub.pasteText('oc', text);
    await exact.sub.sendKeys('oc', ['Enter']);
    await waitEvents(exact, 'session.idle');
    expect(lastTurnPrompt()).toBe(text);
    // typed C-j is a newline, Enter submits; chat.message may rewrite the text the model gets
    await exact.sub.typeText('oc', 'MODIFY-ME a\nb');
    await exact.sub.sendKeys('oc', ['Enter']);
    await waitEvents(exact, 'session.idle', 2);
    expect(lastTurnPrompt()).toBe('ECHO modified a\nb');
  });

  it('asks before bash with the real permission screen: Enter allows once, Escape rejects', async () => {
    const rig = makeRig({ configContent: { permission: { bash: 'ask' } } });
    await rig.launch();
    await ready(rig);
    await rig.sub.typeText('oc', 'TOOL echo allowed-run');
    await rig.sub.sendKeys('oc', ['Enter']);
    const [asked] = await waitEvents(rig, 'permission.asked');
    expect(asked?.properties).toMatchObject({
      permission: 'bash',
      patterns: ['echo allowed-run'],
      metadata: { command: 'echo allowed-run' },
      always: ['echo *'],
    });
    expect(Object.keys(asked?.properties ?? {}).sort()).toEqual(['always', 'id', 'metadata', 'patterns', 'permission', 'sessionID', 'tool']);
    const screen = await waitFor(
      'permission screen',
      async () => {
        const s = await rig.screen();
        return s.includes('△ Permission required') && s;
      },
      rig,
    );
    expect(screen).toContain('┃    # Shell command');
    expect(screen).toContain('┃  $ echo allowed-run');
    expect(screen).toContain('Allow once   Allow always   Reject');
    await rig.sub.sendKeys('oc', ['Enter']);
    await waitEvents(rig, 'session.idle');
    expect(eventsOf(rig, 'permission.replied')[0]?.properties).toEqual({
      sessionID: asked?.properties.sessionID,
      requestID: asked?.properties.id,
      reply: 'once',
    });
    expect(rig.records('tool.execute.after')[0]?.data.output).toMatchObject({ title: 'echo allowed-run', output: 'allowed-run\n', metadata: { exit: 0 } });
    await waitFor('tool result', async () => (await rig.screen()).includes('TOOL-RESULT: allowed-run'), rig);

    await rig.sub.typeText('oc', 'TOOL echo rejected-run');
    await rig.sub.sendKeys('oc', ['Enter']);
    await waitEvents(rig, 'permission.asked', 2);
    await waitFor(
      'second prompt',
      async () => {
        const s = await rig.screen();
        return s.includes('△ Permission required') && /┃ {2}\$ echo rejected-run/.test(s);
      },
      rig,
    );
    await rig.sub.sendKeys('oc', ['Escape']);
    await waitEvents(rig, 'session.idle', 2);
    expect(eventsOf(rig, 'permission.replied')[1]?.properties.reply).toBe('reject');
    expect(mock.requests().some((r) => r.kind === 'tool-result' && r.prompt === 'TOOL echo rejected-run')).toBe(false);
    // like the real 1.18.33: the rejected step ends as a tool step (finish and step-finish "tool-calls"), then idle
    const rejected = (await waitFor('messages after the rejection', () => rig.records('client.messages')[1]?.data as Json[] | undefined, rig)).at(-1)!;
    expect(rejected.info).toMatchObject({ role: 'assistant', finish: 'tool-calls', time: { completed: expect.any(Number) } });
    expect(rejected.parts.map((p: Json) => [p.type, p.state?.status ?? p.reason])).toEqual([
      ['step-start', undefined],
      ['tool', 'error'],
      ['step-finish', 'tool-calls'],
    ]);
  });

  it('reports a 400 as session.error (then idle twice) and a 429 as session.status retry before the answer', async () => {
    const rig = makeRig();
    await rig.launch();
    await ready(rig);
    await rig.sub.typeText('oc', 'FAIL 400 fake bad request');
    await rig.sub.sendKeys('oc', ['Enter']);
    const [err] = await waitEvents(rig, 'session.error');
    expect(err?.properties.error).toMatchObject({
      name: 'APIError',
      data: { message: 'fake bad request', statusCode: 400, isRetryable: false, metadata: { url: `${mock.url}/chat/completions` } },
    });
    const real400 = recorded('tui-errors.events.jsonl').find((r) => r.data.type === 'session.error')?.data.properties.error;
    expect(Object.keys(err?.properties.error.data).sort()).toEqual(Object.keys(real400.data).sort());
    await waitEvents(rig, 'session.idle', 2);
    await waitFor('error in transcript', async () => (await rig.screen()).includes('┃  fake bad request'), rig);

    await rig.sub.typeText('oc', 'FAIL 429 x1 retry-after=1 ECHO after the retry');
    await rig.sub.sendKeys('oc', ['Enter']);
    await waitEvents(rig, 'session.idle', 3);
    const retry = eventsOf(rig, 'session.status').find((e) => e.properties.status.type === 'retry');
    expect(retry?.properties.status).toMatchObject({ type: 'retry', attempt: 1, message: 'ECHO after the retry', next: expect.any(Number) });
    const answerOf = (r: Json) => r.data.at(-1).parts.find((p: Json) => p.type === 'text')?.text;
    await waitFor('answer after the retry', () => rig.records('client.messages').some((r) => answerOf(r) === 'after the retry'), rig);

    // a 500 that never ends: 5 retries (retry-after-ms keeps them short), then session.error like a 400
    await rig.sub.typeText('oc', 'FAIL 500 retry-after-ms=20 always down');
    await rig.sub.sendKeys('oc', ['Enter']);
    const [, gaveUp] = await waitEvents(rig, 'session.error', 2);
    expect(gaveUp?.properties.error.data).toMatchObject({ message: 'always down', statusCode: 500, isRetryable: true });
    const attempts = eventsOf(rig, 'session.status').filter((e) => e.properties.status.message === 'always down');
    expect(attempts.map((e) => e.properties.status.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(mock.requests().filter((r) => r.prompt === 'FAIL 500 retry-after-ms=20 always down' && r.kind === 'turn')).toHaveLength(6);
  });

  it("a plugin's client.session.abort stops a retrying turn: no error, no finish, one idle (as on the real 1.18.33)", async () => {
    const rig = makeRig();
    await rig.launch([], { REC_ABORT_ON_RETRY: '1' });
    await ready(rig);
    await rig.sub.typeText('oc', 'FAIL 500 always down');
    await rig.sub.sendKeys('oc', ['Enter']);
    await waitEvents(rig, 'session.idle');
    expect(rig.records('abort')[0]?.data).toMatchObject({ data: true });
    const step = (await waitFor('messages', () => rig.records('client.messages')[0]?.data as Json[] | undefined, rig)).at(-1)!;
    expect(step.info).toMatchObject({ role: 'assistant', time: { completed: expect.any(Number) } });
    expect(step.info.finish).toBeUndefined();
    expect(step.info.error).toBeUndefined();
    await new Promise((r) => setTimeout(r, 500));
    expect(eventsOf(rig, 'session.error')).toEqual([]);
    expect(eventsOf(rig, 'session.idle')).toHaveLength(1);
  });

  it('/exit ends it with status 0, the Continue trailer, and no process left', async () => {
    const rig = makeRig({ plugin: false });
    await rig.launch();
    await ready(rig);
    await rig.sub.typeText('oc', 'ECHO one');
    await rig.sub.sendKeys('oc', ['Enter']);
    await waitFor('answer', async () => (await rig.screen()).includes('▣  Build · Mock Model'), rig);
    const tree = await rig.sub.processTree('oc');
    expect(tree.length).toBeGreaterThan(0);
    await rig.sub.typeText('oc', '/exit');
    await waitFor('command menu', async () => (await rig.screen()).includes('/exit         Exit the app'), rig);
    await rig.sub.sendKeys('oc', ['Enter']);
    const state = await waitFor('pane dead', async () => {
      const s = await rig.sub.inspect('oc');
      return s.dead && s;
    });
    expect(state.exitStatus).toBe(0);
    expect(await rig.sub.capture('oc', { lines: 100 })).toMatch(/ {2}Session {3}Mock session title\n {2}Continue {2}opencode -s ses_[0-9a-zA-Z]{26}/);
    expect(await rig.sub.processTree('oc')).toEqual([]);
  });

  it('serves the TUI API on 127.0.0.1 behind the password: append + submit deliver the prompt exactly', async () => {
    const rig = makeRig({ plugin: false });
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    await rig.launch(['--port', String(port)], { OPENCODE_SERVER_PASSWORD: 'pw-test' });
    await ready(rig);
    const base = `http://127.0.0.1:${port}`;
    const auth = { authorization: `Basic ${Buffer.from('opencode:pw-test').toString('base64')}` };
    const denied = await fetch(`${base}/session`);
    expect(denied.status).toBe(401);
    expect(denied.headers.get('www-authenticate')).toBe('Basic realm="Secure Area"');
    expect((await fetch(`${base}/session`, { headers: { authorization: 'Basic b3BlbmNvZGU6bm9wZQ==' } })).status).toBe(401);
    const text = '  ECHO api\nline2 ünï 🎉\n\ttab  ';
    expect(
      await (
        await fetch(`${base}/tui/append-prompt`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ text }) })
      ).json(),
    ).toBe(true);
    expect(await (await fetch(`${base}/tui/submit-prompt`, { method: 'POST', headers: auth })).json()).toBe(true);
    await waitFor('answer', async () => (await rig.screen()).includes('▣  Build'), rig);
    expect(lastTurnPrompt()).toBe(text);
    const sessions = (await (await fetch(`${base}/session`, { headers: auth })).json()) as Json[];
    expect(sessions).toHaveLength(1);
  });
});

describe('fake opencode headless', () => {
  it('prints the real run --format json lines for text, tool and error, and their exit codes', async () => {
    const rig = makeRig({ plugin: false });
    const text = await run(rig, ['run', '--format', 'json', 'ECHO', 'json', 'hi']);
    expect(text.code).toBe(0);
    const lines = text.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Json);
    const real = recorded('run-json-text.jsonl');
    expect(lines.map((l) => l.type)).toEqual(real.map((l) => l.type));
    expect(lines.map((l) => Object.keys(l).sort())).toEqual(real.map((l) => Object.keys(l).sort()));
    expect(lines[1]?.part.text).toBe('json hi');
    const tool = await run(rig, ['run', '--format', 'json', 'TOOL', 'echo', 'run-tool']);
    expect(
      tool.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as Json).type),
    ).toEqual(recorded('run-json-tool.jsonl').map((l) => l.type));
    const err = await run(rig, ['run', '--format', 'json', 'FAIL', '400', 'bad', 'run']);
    expect(err.code).toBe(1);
    const errLines = err.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Json);
    expect(errLines.map((l) => l.type)).toEqual(['error']);
    expect(errLines[0]?.error).toMatchObject({ name: 'APIError', data: { message: 'bad run', statusCode: 400, isRetryable: false } });
  });

  it('run: stdin is byte-exact, one spaced argument arrives quoted, text mode prints the answer', async () => {
    const rig = makeRig({ plugin: false });
    const piped = await run(rig, ['run'], 'ECHO from stdin\n  kept  ');
    expect(piped.code).toBe(0);
    expect(lastTurnPrompt()).toBe('ECHO from stdin\n  kept  ');
    expect(piped.stdout).toBe('from stdin\n  kept\n');
    expect(piped.stderr).toBe('\n> build · mock-model\n\n');
    await run(rig, ['run', 'ECHO hello world']);
    expect(lastTurnPrompt()).toBe('"ECHO hello world"');
    const bad = await run(rig, ['run', 'FAIL', '401', 'no', 'key']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('Error: no key\n');
  });

  it('models lists provider/model lines (unknown provider → exit 1); an unknown -m fails run; --version', async () => {
    const rig = makeRig({ plugin: false });
    const all = await run(rig, ['models']);
    expect(all.code).toBe(0);
    expect(all.stdout.split('\n')).toEqual(expect.arrayContaining(['opencode/big-pickle', 'mock/mock-model']));
    expect((await run(rig, ['models', 'mock'])).stdout).toBe('mock/mock-model\nmock/mock-model-2\n');
    const nope = await run(rig, ['models', 'nope']);
    expect(nope).toMatchObject({ code: 1, stdout: '', stderr: 'Error: Provider not found: nope\n' });
    const unknown = await run(rig, ['run', '-m', 'mock/nope', 'ECHO', 'x']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('"name": "UnknownError"');
    expect((await run(rig, ['--version'])).stdout).toBe('1.18.33\n');
  });

  it('the plugin-install trap: every config dir that was never installed stalls plugin loading and is logged', async () => {
    const rig = makeRig({ seedGlobal: false });
    const r = await run(rig, ['run', 'ECHO', 'x'], '', { FAKE_OPENCODE_INSTALL_STALL_MS: '0' });
    expect(r.code).toBe(0);
    const log = readFileSync(join(rig.home, '.local', 'share', 'opencode', 'log', 'opencode.log'), 'utf8');
    const warned = [...log.matchAll(/background dependency install failed dir=(\S+)/g)].map((m) => m[1]);
    expect(warned).toEqual([rig.cfg]);
    expect(readFileSync(join(rig.cfg, '.gitignore'), 'utf8')).toContain('package-lock.json');
    const seeded = makeRig();
    await run(seeded, ['run', 'ECHO', 'x'], '', { FAKE_OPENCODE_INSTALL_STALL_MS: '0' });
    expect(readFileSync(join(seeded.home, '.local', 'share', 'opencode', 'log', 'opencode.log'), 'utf8')).not.toContain('background dependency install failed');
    // the plugin came from OPENCODE_CONFIG_DIR and the user's provider still applied
    expect(seeded.records('factory')).toHaveLength(1);
    expect(seeded.records('client.messages')[0]?.data.at(-1).info.providerID).toBe('mock');
  });
});
