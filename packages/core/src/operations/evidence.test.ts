/**
 * The evidence verbs on the real engine with the memory substrate and the mock CLI: actions (what a
 * turn did, from the transcript), diff (git snapshots taken at send; the transcript's list outside
 * git; two answers as text), send of a CLI command on purpose, and wait until file / pattern.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { digestMessages } from './actions.js';
import { createUmbel } from '../engine/engine.js';
import { UmbelError } from '../contract/errors.js';
import { classifyMockTool, createMemorySubstrate, createMockProvider, type MemorySubstrate } from '../testing/index.js';
import type { Umbel } from '../contract/umbel.js';

let home: string;
let work: string;
let substrate: MemorySubstrate;
let umbel: Umbel;
const env = { PATH: process.env.PATH, HOME: '/nonexistent-home' };

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-evidence-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-evidence-work-'));
  substrate = createMemorySubstrate();
  umbel = createUmbel({ substrate, providers: [createMockProvider()], home, env });
});
afterEach(async () => {
  for (const name of await substrate.list()) await substrate.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(work, { recursive: true, force: true });
});

async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (UmbelError.isInstance(error)) return error.code;
    throw error;
  }
  return 'no error';
}

const spawn = () => umbel.spawn({ name: 'w1', provider: 'mock', cwd: work });
async function turn(prompt: string): Promise<number> {
  const { turn: n } = await umbel.send({ name: 'w1', prompt });
  expect(await umbel.wait({ name: 'w1', turn: n, timeout: '10s' })).toMatchObject({ reason: 'completed' });
  return n;
}
const git = (...args: string[]) =>
  execFileSync('git', args, {
    cwd: work,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
  });

describe('actions', () => {
  it('digests tool calls: counts, files deduplicated in first-seen order, commands, errors', () => {
    const call = (id: string, name: string, input: unknown) => ({ type: 'assistant' as const, message: { content: [{ type: 'tool_use', id, name, input }] } });
    const result = (id: string, content: unknown, isError = false) => ({
      type: 'user' as const,
      message: { content: [{ type: 'tool_result', tool_use_id: id, content, ...(isError ? { is_error: true } : {}) }] },
    });
    const digest = digestMessages(
      [
        call('1', 'Read', { file_path: 'b.txt' }),
        result('1', 'B'),
        call('2', 'Read', { file_path: '/w/a.txt' }),
        call('3', 'Read', { file_path: '/w/b.txt' }),
        call('4', 'Write', { file_path: 'c.txt' }),
        call('5', 'Bash', { command: 'make test' }),
        result('5', [{ type: 'text', text: 'exit 2: '.padEnd(400, 'x') }], true),
        call('6', 'WebSearch', { query: 'q' }),
      ],
      { classify: classifyMockTool, cwd: '/w' },
    );
    expect(digest).toEqual({
      toolsUsed: { Read: 3, Write: 1, Bash: 1, WebSearch: 1 },
      toolCalls: 6,
      filesRead: ['/w/b.txt', '/w/a.txt'],
      filesEdited: [],
      filesWritten: ['/w/c.txt'],
      shellCommands: ['make test'],
      errors: [expect.stringMatching(/^Bash: exit 2: x+…$/)],
    });
    expect(digest.errors[0]).toHaveLength(300);
    // a provider's own error reading wins over the flag
    const own = digestMessages([call('1', 'Bash', { command: 'x' }), result('1', 'Exit Code: 3')], {
      cwd: '/w',
      readError: (r) => (r.content.startsWith('Exit Code') ? r.content : undefined),
    });
    expect(own.errors).toEqual(['Bash: Exit Code: 3']);
  });

  it('reports what a turn did, the latest by default, one turn or all of them', async () => {
    await spawn();
    expect(await umbel.actions({ name: 'w1' })).toMatchObject({ turns: [], turnCount: 0, note: "no turn was sent to 'w1' yet" });
    await turn('TOOLS write a.txt hello | read a.txt | run ls -la | read a.txt');
    await turn('TOOLS edit a.txt hello->bye | fail make | read missing.txt');
    const latest = await umbel.actions({ name: 'w1' });
    expect(latest).toMatchObject({
      worker: 'w1',
      provider: 'mock',
      turns: [2],
      turnCount: 1,
      complete: true,
      classified: true,
      toolsUsed: { Edit: 1, Bash: 1, Read: 1 },
      filesRead: [join(work, 'missing.txt')],
      filesEdited: [join(work, 'a.txt')],
      filesWritten: [],
      shellCommands: ['make'],
      finalMessage: 'done',
    });
    expect(latest.errors).toEqual(['Bash: exit 1', `Read: no such file: missing.txt`]);
    expect(await umbel.actions({ name: 'w1', turn: 1 })).toMatchObject({
      turns: [1],
      toolsUsed: { Write: 1, Read: 2, Bash: 1 },
      filesRead: [join(work, 'a.txt')],
      filesWritten: [join(work, 'a.txt')],
      shellCommands: ['ls -la'],
      errors: [],
    });
    const all = await umbel.actions({ name: 'w1', turn: 'all' });
    expect(all).toMatchObject({ turns: [1, 2], turnCount: 2, toolCalls: 7, toolsUsed: { Write: 1, Read: 3, Bash: 2, Edit: 1 } });
    expect(all.filesRead).toEqual([join(work, 'a.txt'), join(work, 'missing.txt')]);
    expect(await code(umbel.actions({ name: 'w1', turn: 9 }))).toBe('UMBEL_TURN_NOT_FOUND');
    expect(await code(umbel.actions({ name: 'w1', turn: 0 as never }))).toBe('UMBEL_USAGE');
  });

  it('says when a provider does not classify its tools', async () => {
    const bare = createMockProvider({ providerId: 'bare' });
    delete (bare as { doClassifyTool?: unknown }).doClassifyTool;
    umbel = createUmbel({ substrate, providers: [bare], home, env });
    await umbel.spawn({ name: 'w1', provider: 'bare', cwd: work });
    await turn('TOOLS write a.txt x');
    expect(await umbel.actions({ name: 'w1' })).toMatchObject({ classified: false, toolsUsed: { Write: 1 }, filesWritten: [] });
  });

  it("reads each turn as wait and read do: with the provider's side records", async () => {
    // Like Gemini's telemetry: a record beside the transcript that can say how a turn ended.
    const base = createMockProvider();
    const provider = {
      ...base,
      sideRecords: [{ name: 'verdict', path: 'verdict.txt' }],
      doReadTurn: (options: Parameters<typeof base.doReadTurn>[0]) => {
        const verdict = options.sideRecords?.verdict?.trim();
        return verdict ? { status: 'failed' as const, message: verdict } : base.doReadTurn(options);
      },
    };
    umbel = createUmbel({ substrate, providers: [provider], home, env });
    await spawn();
    await turn('ECHO fine so far');
    expect(await umbel.actions({ name: 'w1' })).toMatchObject({ complete: true, finalMessage: 'fine so far', errors: [] });
    await writeFile(join(home, 'workers', 'w1', 'provider', 'verdict.txt'), 'quota exhausted after 3 attempts\n');
    expect(await umbel.actions({ name: 'w1' })).toMatchObject({
      complete: true,
      finalMessage: 'quota exhausted after 3 attempts',
      errors: ['turn 1 failed: quota exhausted after 3 attempts'],
    });
  });
});

describe('diff', () => {
  it('in git: the changes of each turn, against snapshots taken at send, without touching the index or stash', async () => {
    git('init', '-q');
    await writeFile(join(work, 'kept.txt'), 'one\n');
    await writeFile(join(work, 'staged.txt'), 'staged\n');
    git('add', 'kept.txt');
    git('commit', '-qm', 'base');
    git('add', 'staged.txt');
    const indexBefore = await readFile(join(work, '.git', 'index'));
    await spawn();
    await turn('TOOLS write new.txt fresh | edit kept.txt one->two');
    await turn('TOOLS delete staged.txt');
    const first = await umbel.diff({ name: 'w1', turn: 1 });
    expect(first).toMatchObject({
      kind: 'files',
      turn: 1,
      method: 'git',
      files: [
        { path: 'kept.txt', status: 'modified' },
        { path: 'new.txt', status: 'added' },
      ],
    });
    expect(first.target).toMatch(/^[0-9a-f]{40}$/);
    expect(first.patch).toContain('-one');
    expect(first.patch).toContain('+two');
    expect(first.patch).toContain('+fresh');
    expect(first.patch).not.toContain('staged');
    const latest = await umbel.diff({ name: 'w1' });
    expect(latest).toMatchObject({ turn: 2, method: 'git', target: 'worktree', files: [{ path: 'staged.txt', status: 'deleted' }] });
    // the user's index and stash are untouched, and no temporary index is left
    expect(await readFile(join(work, '.git', 'index'))).toEqual(indexBefore);
    expect(git('stash', 'list')).toBe('');
    expect(git('status', '--porcelain')).toBe(' M kept.txt\nAD staged.txt\n?? new.txt\n');
    expect((await readdir(join(home, 'workers', 'w1'))).filter((f) => f.includes('snapshot'))).toEqual([]);
    // each snapshot was taken before the Enter that submitted its turn
    const kinds = (await umbel.logs({ name: 'w1' })).map((e) => e.kind).filter((k) => ['sent', 'snapshot', 'prompt'].includes(k));
    expect(kinds).toEqual(['sent', 'snapshot', 'prompt', 'sent', 'snapshot', 'prompt']);
  });

  it('says when a turn changed nothing, and diffs only under the worker cwd', async () => {
    git('init', '-q');
    await spawn();
    await turn('ECHO nothing to do');
    expect(await umbel.diff({ name: 'w1' })).toMatchObject({ method: 'git', files: [], patch: '', note: `turn 1 changed no file under ${work}` });
  });

  it('outside git: the files the transcript says the turn wrote or edited, with the reason', async () => {
    await spawn();
    await turn('TOOLS write a.txt x | edit a.txt x->y | write b.txt z | read c.txt');
    expect(await umbel.diff({ name: 'w1' })).toEqual({
      worker: 'w1',
      kind: 'files',
      turn: 1,
      method: 'transcript',
      files: [
        { path: join(work, 'a.txt'), status: 'written' },
        { path: join(work, 'b.txt'), status: 'written' },
      ],
      patch: '',
      note: `${work} is not in a git work tree`,
    });
  });

  it('a send that will never be diffed (`snapshot: false`, as `umbel -p` sends to the worker it removes) runs no git before its Enter', async () => {
    git('init', '-q');
    await spawn();
    // a git that would fail if it ran: nothing is recorded, not even a failed snapshot
    umbel = createUmbel({ substrate, providers: [createMockProvider()], home, env: { ...env, PATH: '/nonexistent' } });
    const { turn: n } = await umbel.send({ name: 'w1', prompt: 'TOOLS write a.txt x' }, { snapshot: false });
    expect(await umbel.wait({ name: 'w1', turn: n, timeout: '10s' })).toMatchObject({ reason: 'completed' });
    expect((await umbel.logs({ name: 'w1' })).map((e) => e.kind)).not.toContain('snapshot');
    expect((await umbel.diff({ name: 'w1' })).note).toBe('no snapshot was taken when turn 1 was sent');
  });

  it('a failed snapshot never fails the send: that turn has no git diff, and says why', async () => {
    git('init', '-q');
    await spawn();
    // a git that cannot run: the send still goes through
    umbel = createUmbel({ substrate, providers: [createMockProvider()], home, env: { ...env, PATH: '/nonexistent' } });
    await turn('TOOLS write a.txt x');
    const diff = await umbel.diff({ name: 'w1' });
    expect(diff).toMatchObject({ method: 'transcript', files: [{ path: join(work, 'a.txt'), status: 'written' }] });
    expect(diff.note).toBe('the snapshot of turn 1 failed (git is not installed (not on PATH))');
  });

  it("text: two turns' answers as a unified diff, with upstream's notes", async () => {
    await spawn();
    expect(await umbel.diff({ name: 'w1', text: true })).toMatchObject({ kind: 'text', turn: 0, note: '(no completed turns yet)' });
    await turn('ECHO alpha\nbeta\ngamma');
    expect(await umbel.diff({ name: 'w1', text: true })).toMatchObject({ turn: 1, note: '(only one turn so far — nothing to diff against)' });
    await turn('ECHO alpha\nBETA\ngamma');
    await turn('ECHO alpha\nBETA\ngamma');
    expect(await umbel.diff({ name: 'w1', text: true, from: 1, to: 2 })).toMatchObject({
      kind: 'text',
      turn: 2,
      fromTurn: 1,
      patch: '--- turn 1\n+++ turn 2\n@@ -1,3 +1,3 @@\n alpha\n-beta\n+BETA\n gamma\n',
    });
    expect(await umbel.diff({ name: 'w1', text: true })).toMatchObject({ turn: 3, fromTurn: 2, patch: '', note: '(no changes between turn 2 and turn 3)' });
    expect((await umbel.diff({ name: 'w1', text: true, from: -3, to: -2 })).fromTurn).toBe(1);
    expect(await code(umbel.diff({ name: 'w1', text: true, from: -9 }))).toBe('UMBEL_TURN_NOT_FOUND');
    expect(await code(umbel.diff({ name: 'w1', from: 1 }))).toBe('UMBEL_USAGE');
  });
});

describe('send a CLI command on purpose', () => {
  it('a prompt starting with / or ! is sent as text; command: true runs it and opens no turn to wait for', async () => {
    await spawn();
    await turn('/compact please');
    expect((await umbel.read({ name: 'w1' })).result).toBe('MOCK-REPLY:  /compact please');
    const ran = await umbel.send({ name: 'w1', prompt: '/compact', command: true });
    expect(ran).toEqual({ worker: 'w1', turn: 2, command: true, modelTurn: false });
    expect(await substrate.capture('umbel-w1')).toContain('ran command /compact');
    // a wait without --turn is for the latest model turn: the command opened none
    expect(await umbel.wait({ name: 'w1', timeout: '1s' })).toMatchObject({ reason: 'completed', turn: 1 });
    expect(await code(umbel.wait({ name: 'w1', turn: 2, timeout: '1s' }))).toBe('UMBEL_TURN_NOT_SUBMITTED');
    expect(await umbel.status({ name: 'w1' })).toMatchObject({ state: 'ready' });
    // a later prompt gets its own turn, and its answer
    expect(await turn('ECHO after')).toBe(3);
    expect((await umbel.read({ name: 'w1' })).result).toBe('after');
  });

  it('a command that starts a model turn is a turn to wait for', async () => {
    await spawn();
    expect(await umbel.send({ name: 'w1', prompt: '/turn ECHO expanded', command: true })).toEqual({ worker: 'w1', turn: 1, command: true, modelTurn: true });
    expect(await umbel.wait({ name: 'w1', timeout: '10s' })).toMatchObject({ reason: 'completed', result: 'expanded' });
  });

  it('is refused while a turn runs', async () => {
    await spawn();
    await umbel.send({ name: 'w1', prompt: 'HANG' });
    expect(await code(umbel.send({ name: 'w1', prompt: '/compact', command: true }))).toBe('UMBEL_USAGE');
  });
});

describe('wait until', () => {
  it('file: ends when the file exists, as its own reason (exit 0)', async () => {
    await spawn();
    await umbel.send({ name: 'w1', prompt: 'DELAY 300 TOOLS write out/done.json {}' });
    const outcome = await umbel.wait({ name: 'w1', until: 'file', file: 'out/done.json', timeout: '10s' });
    expect(outcome).toMatchObject({ reason: 'file', exitCode: 0, turn: 1, match: join(work, 'out', 'done.json') });
  });

  it('file: a completed turn does not end it; the deadline does, saying so', async () => {
    await spawn();
    await turn('ECHO no file');
    const outcome = await umbel.wait({ name: 'w1', until: 'file', file: 'never.txt', timeout: '700ms' });
    expect(outcome).toMatchObject({ reason: 'timeout', exitCode: 124 });
    expect(outcome.message).toMatch(/^never\.txt did not appear within 700ms \(turn 1 completed .* ago\)$/);
    expect(outcome.result).toBeUndefined();
  });

  it('file: a file written after the turn completed still ends it, with the answer', async () => {
    await spawn();
    await turn('ECHO will write later');
    setTimeout(() => void writeFile(join(work, 'later.txt'), 'x'), 300);
    expect(await umbel.wait({ name: 'w1', until: 'file', file: 'later.txt', timeout: '10s' })).toMatchObject({
      reason: 'file',
      result: 'will write later',
    });
  });

  it('pattern: ends when the screen matches, with the line and the screen as evidence', async () => {
    await spawn();
    await umbel.send({ name: 'w1', prompt: 'DELAY 300 ECHO build finished: 42 ok' });
    const outcome = await umbel.wait({ name: 'w1', until: 'pattern', pattern: '^● build finished: \\d+ ok$', timeout: '10s' });
    expect(outcome).toMatchObject({ reason: 'pattern', exitCode: 0, match: '● build finished: 42 ok' });
    expect(outcome.paneTail).toContain('build finished');
  });

  it('still ends on needs-input, and rejects inconsistent options', async () => {
    await spawn();
    await umbel.send({ name: 'w1', prompt: 'ASK Bash' });
    expect(await umbel.wait({ name: 'w1', until: 'file', file: 'x', timeout: '10s' })).toMatchObject({ reason: 'needs-input' });
    for (const bad of [
      { until: 'file' },
      { until: 'pattern' },
      { until: 'pattern', pattern: '(' },
      { file: 'x' },
      { until: 'file', file: 'x', check: 'true' },
      { until: 'soon' },
    ]) {
      expect(await code(umbel.wait({ name: 'w1', ...bad } as never)), JSON.stringify(bad)).toBe('UMBEL_USAGE');
    }
  });
});

describe("a guardrail's timeout bounds the whole loop", () => {
  it('ends timeout with the turn to wait for next and the retries left, instead of giving every attempt the full time', async () => {
    await spawn();
    await umbel.send({ name: 'w1', prompt: 'ECHO draft' });
    // each check takes 2 s and rejects: three attempts would need 6 s (the first one ends well within 3 s)
    const outcome = await umbel.wait({ name: 'w1', timeout: '3s', check: 'sleep 2; echo nope; exit 1', retries: 2 });
    expect(outcome).toMatchObject({ reason: 'timeout', exitCode: 124, turn: 2 });
    expect(outcome.message).toBe(
      'still running: the check did not finish within 3s (attempt 2, turn 2); to go on, wait for turn 2 again with the same check and retries 1',
    );
    expect(outcome.attempts?.map((a) => [a.turn, a.reason, a.accepted])).toEqual([
      [1, 'completed', false],
      [2, 'timeout', false],
    ]);
    // going on as told: the same answer is judged again, with the retries left
    const next = await umbel.wait({ name: 'w1', turn: 2, timeout: '10s', check: 'exit 0', retries: 1 });
    expect(next).toMatchObject({ reason: 'completed', turn: 2 });
  });
});
