/**
 * The fake Qwen Code (test-fixtures/fake-qwen, shim test-fixtures/bin/qwen) writes the records of
 * the real 0.15.10: driven through a private tmux socket (allowed in test-fixtures tests only)
 * against the chat-completions mock, its hook payloads and chat records carry the same fields as the
 * ones recorded from the real CLI (packages/provider-qwen/src/__fixtures__/real-0.15.10-*). Waits are
 * event-driven (a condition polled with a generous deadline); nothing asserts on timing.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privateTmux } from './lib/private-tmux.mjs';
// @ts-expect-error plain ESM fixture without types
import { startChatMock } from './mock-servers/openai-chat.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const FAKE = join(here, 'bin', 'qwen');
const REAL = join(here, '..', 'packages', 'provider-qwen', 'src', '__fixtures__');
const server = privateTmux('fake-qwen-test');
const WAIT_MS = 30_000;
type Json = Record<string, any>;

let mock: Awaited<ReturnType<typeof startChatMock>>;
let dir: string;
/** The complete lines of a JSONL file that is still being written (a line without its newline is not yet one). */
const jsonl = (text: string): Json[] =>
  text
    .split('\n')
    .slice(0, -1)
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const keys = (o: Json | undefined) => Object.keys(o ?? {}).sort();

async function until<T>(what: string, probe: () => T | undefined): Promise<T> {
  for (const end = Date.now() + WAIT_MS; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
    const value = probe();
    if (value !== undefined) return value;
  }
  throw new Error(`timed out waiting for ${what}`);
}

beforeAll(async () => {
  mock = await startChatMock();
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'fake-qwen-test-')));
});
afterAll(async () => {
  await server.dispose();
  await mock.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the fake Qwen Code writes the real 0.15.10 records', () => {
  /** Start the fake in session `name` (its own home, project and hook log): what its hooks delivered so far, in order. */
  async function startFake(name: string) {
    const home = join(dir, name, 'home');
    const work = join(dir, name, 'work');
    const hooks = join(dir, name, 'hooks.jsonl');
    mkdirSync(home, { recursive: true });
    mkdirSync(work, { recursive: true });
    const sink = join(dir, name, 'sink.sh');
    writeFileSync(sink, `#!/bin/sh\n{ printf '{"kind":"%s","payload":' "$1"; cat; printf '}\\n'; } >> ${hooks}\n`);
    chmodSync(sink, 0o755);
    const events = ['SessionStart', 'UserPromptSubmit', 'Stop', 'StopFailure', 'PermissionRequest', 'Notification', 'PreToolUse'];
    const settings = join(dir, name, 'system-settings.json');
    const hook = (e: string) => [{ matcher: '', hooks: [{ type: 'command', command: `${sink} ${e}` }] }];
    writeFileSync(settings, JSON.stringify({ hooks: Object.fromEntries(events.map((e) => [e, hook(e)])) }));
    const env = [`HOME=${home}`, `OPENAI_BASE_URL=${mock.url}`, 'OPENAI_API_KEY=k', 'OPENAI_MODEL=mock-model', `QWEN_CODE_SYSTEM_SETTINGS_PATH=${settings}`];
    server.run('new-session', '-d', '-s', name, '-x', '120', '-y', '40', '-c', work, 'env', ...env, FAKE);
    const got = () => (existsSync(hooks) ? jsonl(readFileSync(hooks, 'utf8')) : []);
    await until('SessionStart', () => (got().some((h) => h.kind === 'SessionStart') ? true : undefined));
    return { work, got };
  }

  it('hook payloads and chat records: the same events and fields, a turn with a tool call included', async () => {
    const { work, got } = await startFake('q');
    server.run({ input: 'ECHO one\ntwo' }, 'load-buffer', '-b', 'p', '-');
    server.run('paste-buffer', '-p', '-b', 'p', '-t', 'q');
    server.run('send-keys', '-t', 'q', 'Enter');
    await until('Stop', () => (got().some((h) => h.kind === 'Stop') ? true : undefined));
    server.run('send-keys', '-t', 'q', '-l', 'TOOL touch made.txt');
    server.run('send-keys', '-t', 'q', 'Enter');
    await until('the approval box', () => (server.run('capture-pane', '-p', '-t', 'q').includes('› 1. Yes, allow once') ? true : undefined));
    server.run('send-keys', '-t', 'q', 'Enter');
    await until('the second Stop', () => (got().filter((h) => h.kind === 'Stop').length === 2 ? true : undefined));

    const real = jsonl(readFileSync(join(REAL, 'real-0.15.10-hooks.jsonl'), 'utf8'));
    const fake = got();
    for (const kind of ['SessionStart', 'UserPromptSubmit', 'Stop', 'PermissionRequest', 'Notification', 'PreToolUse']) {
      const a = real.find((h) => h.kind === kind)?.payload;
      const b = fake.find((h) => h.kind === kind)?.payload;
      expect(keys(b), kind).toEqual(keys(a));
    }
    expect(fake.find((h) => h.kind === 'Stop')?.payload.last_assistant_message).toBe('one\ntwo');
    // the continuation after the tool result fires an empty prompt, as the real one does
    expect(fake.filter((h) => h.kind === 'UserPromptSubmit').map((h) => h.payload.prompt)).toEqual(['ECHO one\ntwo', 'TOOL touch made.txt', '']);
    expect(existsSync(join(work, 'made.txt'))).toBe(true);

    const transcript = fake[0]?.payload.transcript_path as string;
    const realChat = jsonl(readFileSync(join(REAL, 'real-0.15.10-chat.jsonl'), 'utf8'));
    const fakeChat = jsonl(readFileSync(transcript, 'utf8'));
    for (const type of ['user', 'assistant', 'tool_result']) {
      const a = realChat.find((r) => r.type === type);
      const b = fakeChat.find((r) => r.type === type);
      expect(
        keys(b).filter((k) => k !== 'gitBranch'),
        type,
      ).toEqual(keys(a).filter((k) => k !== 'gitBranch'));
      expect(keys(b?.message), `${type}.message`).toEqual(keys(a?.message));
    }
    expect(keys(fakeChat.find((r) => r.type === 'assistant')?.usageMetadata)).toEqual(keys(realChat.find((r) => r.type === 'assistant')?.usageMetadata));
  });

  it('a background agent: the <task-notification> turn fires no UserPromptSubmit, only a Stop (as recorded); a prompt typed meanwhile is queued and fires its own after it', async () => {
    const { got } = await startFake('bg');
    const typed = (text: string) => {
      server.run('send-keys', '-t', 'bg', '-l', text);
      server.run('send-keys', '-t', 'bg', 'Enter');
    };
    // the agent answers `DELAY 10000 ECHO notified` at once: the notification turn (answered by its <result>) lasts 10 s
    typed('BGAGENT ECHO DELAY 10000 ECHO notified');
    const transcript = await until('the chat', () => got().find((h) => h.kind === 'UserPromptSubmit')?.payload.transcript_path as string | undefined);
    await until('the notification turn', () => (jsonl(readFileSync(transcript, 'utf8')).some((r) => r.subtype === 'notification') ? true : undefined));
    typed('ECHO queued');
    await until('the queue hint', () => (server.run('capture-pane', '-p', '-t', 'bg').includes('Press ↑ to edit queued messages') ? true : undefined));
    await until('the queued turn', () => (got().filter((h) => h.kind === 'Stop').length === 3 ? true : undefined));
    const order = got()
      .filter((h) => h.kind === 'UserPromptSubmit' || h.kind === 'Stop')
      .map((h) => (h.kind === 'Stop' ? `Stop ${h.payload.last_assistant_message.split('\n')[0]}` : `Prompt ${h.payload.prompt}`));
    expect(order).toEqual([
      'Prompt BGAGENT ECHO DELAY 10000 ECHO notified',
      'Prompt ',
      'Stop TOOL-RESULT: Background agent launched successfully.',
      'Stop notified',
      'Prompt ECHO queued',
      'Stop queued',
    ]);
    // the same hook sequence as the real 0.15.10's recording (the continuation's empty prompt is dropped by umbel's hook)
    const kinds = (hooks: Json[]) => hooks.filter((h) => !(h.kind === 'UserPromptSubmit' && h.payload.prompt === '')).map((h) => h.kind);
    expect(kinds(got()).slice(0, 9)).toEqual(kinds(jsonl(readFileSync(join(REAL, 'real-0.15.10-background-hooks.jsonl'), 'utf8'))).slice(0, 9));
    const pre = got().find((h) => h.kind === 'PreToolUse')?.payload;
    expect(pre).toMatchObject({ tool_name: 'agent', tool_input: { run_in_background: true, subagent_type: 'general-purpose' } });
    const notification = jsonl(readFileSync(transcript, 'utf8')).find((r) => r.subtype === 'notification');
    expect(notification?.message.parts[0].text).toMatch(
      /^<task-notification>\n<task-id>general-purpose-call_[0-9a-f]+<\/task-id>[\s\S]*<result>DELAY 10000 ECHO notified<\/result>/,
    );
  });
});
