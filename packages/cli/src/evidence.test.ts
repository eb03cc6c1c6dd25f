/** The CLI faces of the evidence verbs (actions, diff), send --command and wait --until, on the memory substrate. */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUmbel, type Umbel } from '@umbel/core';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '@umbel/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliIo } from './io.js';
import { run } from './run.js';

let home: string;
let work: string;
let substrate: MemorySubstrate;
let engine: Umbel;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-cli-ev-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-cli-ev-work-'));
  substrate = createMemorySubstrate();
  engine = createUmbel({ substrate, providers: [createMockProvider()], home, env: { PATH: process.env.PATH } });
});
afterEach(async () => {
  for (const s of await substrate.list()) await substrate.kill(s);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(work, { recursive: true, force: true });
});

async function cli(argv: string[]) {
  const out = { stdout: '', stderr: '' };
  const io: CliIo = {
    stdout: { write: (t: string) => (out.stdout += t) },
    stderr: { write: (t: string) => (out.stderr += t) },
    readStdin: async () => undefined,
    env: { PATH: process.env.PATH },
    cwd: work,
    createEngine: () => engine,
    onSignal: () => () => undefined,
  };
  const code = await run(argv, io);
  return { code, ...out };
}

async function turn(prompt: string) {
  expect((await cli(['send', 'w1', prompt])).code).toBe(0);
  expect((await cli(['wait', 'w1', '--timeout', '10s'])).code).toBe(0);
}

beforeEach(async () => {
  expect((await cli(['spawn', 'w1', '--provider', 'mock'])).code).toBe(0);
});

describe('umbel actions', () => {
  it('prints a digest for people and the manifest for programs', async () => {
    await turn('TOOLS write src/a.txt x | read src/a.txt | run pnpm test\nwith a second line | fail make');
    const text = await cli(['actions', 'w1']);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe(
      [
        '## Worker actions: w1, turn 1',
        'Tools (4 calls): Write×1, Read×1, Bash×2',
        'Files read (1):',
        '  src/a.txt',
        'Files edited: none',
        'Files written (1):',
        '  src/a.txt',
        'Shell commands (2):',
        '  $ pnpm test ⏎ with a second line',
        '  $ make',
        '## Errors (1)',
        '  Bash: exit 1',
        '## Final message',
        'done',
        '',
      ].join('\n'),
    );
    const json = JSON.parse((await cli(['actions', 'w1', '--json'])).stdout);
    expect(json).toMatchObject({
      worker: 'w1',
      turns: [1],
      filesWritten: [join(work, 'src', 'a.txt')],
      shellCommands: ['pnpm test\nwith a second line', 'make'],
    });
    await turn('ECHO plain');
    expect((await cli(['actions', 'w1', '--turn', 'all'])).stdout).toContain('## Worker actions: w1, turns 1–2 (2 turns)');
    expect(await cli(['actions', 'w1', '--turn', 'latest'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("--turn must be a whole number, got 'latest'"),
    });
    expect(await cli(['actions', 'w1', '--turn', '7'])).toMatchObject({ code: 2, stderr: expect.stringContaining("worker 'w1' has no turn 7") });
  });
});

describe('umbel diff', () => {
  it('git: the patch on stdout', async () => {
    execFileSync('git', ['init', '-q'], { cwd: work });
    await turn('TOOLS write hello.txt hi there');
    const diff = await cli(['diff', 'w1']);
    expect(diff).toMatchObject({ code: 0, stderr: '' });
    expect(diff.stdout).toContain('+++ b/hello.txt');
    expect(diff.stdout).toContain('+hi there');
    expect(JSON.parse((await cli(['diff', 'w1', '--json'])).stdout)).toMatchObject({ method: 'git', files: [{ path: 'hello.txt', status: 'added' }] });
  });

  it('outside git: the files the transcript names, and why there is no patch', async () => {
    await turn('TOOLS write a.txt x');
    const diff = await cli(['diff', 'w1']);
    expect(diff.stdout).toBe(`written  ${join(work, 'a.txt')}\n`);
    expect(diff.stderr).toBe(`umbel: ${work} is not in a git work tree\numbel: the files the transcript says the turn wrote (no contents)\n`);
  });

  it('--text: two answers, counted back with negative numbers', async () => {
    await turn('ECHO one\ntwo');
    await turn('ECHO one\nthree');
    const diff = await cli(['diff', 'w1', '--text', '--from', '-2', '--to', '-1']);
    expect(diff).toMatchObject({ code: 0, stdout: '--- turn 1\n+++ turn 2\n@@ -1,2 +1,2 @@\n one\n-two\n+three\n' });
    expect(await cli(['diff', 'w1', '--from', '1'])).toMatchObject({ code: 2, stderr: expect.stringContaining('add text') });
    expect(await cli(['diff', 'w1', '--text', '--from', 'x'])).toMatchObject({ code: 2 });
  });
});

describe('umbel send --command', () => {
  it('a slash prompt is text; --command runs it and prints no turn', async () => {
    expect(await cli(['send', 'w1', '/compact'])).toMatchObject({ code: 0, stdout: '1\n' });
    expect((await cli(['wait', 'w1'])).stdout).toBe('MOCK-REPLY:  /compact\n');
    expect(await cli(['send', 'w1', '--command', '/compact'])).toMatchObject({
      code: 0,
      stdout: '',
      stderr: "umbel: ran as w1's own command; it started no model turn (nothing to wait for)\n",
    });
    expect(JSON.parse((await cli(['send', 'w1', '--command', '/turn ECHO x', '--json'])).stdout)).toEqual({
      worker: 'w1',
      turn: 3,
      command: true,
      modelTurn: true,
    });
  });
});

describe('umbel wait --until', () => {
  it('file: prints the path, exit 0; pattern: the matching line', async () => {
    await cli(['send', 'w1', 'DELAY 200 TOOLS write out.json {}']);
    expect(await cli(['wait', 'w1', '--until', 'file', '--file', 'out.json'])).toMatchObject({
      code: 0,
      stdout: `${join(work, 'out.json')}\n`,
      stderr: `umbel: ${join(work, 'out.json')} exists\n`,
    });
    await cli(['send', 'w1', 'DELAY 200 ECHO all 3 passed']);
    expect(await cli(['wait', 'w1', '--until', 'pattern', '--pattern', '^● all \\d passed'])).toMatchObject({ code: 0, stdout: '● all 3 passed\n' });
  });

  it('refuses inconsistent flags with exit 2', async () => {
    await writeFile(join(work, 'x'), '');
    await turn('ECHO x');
    expect(await cli(['wait', 'w1', '--until', 'file'])).toMatchObject({ code: 2, stderr: expect.stringContaining('until file needs file') });
    expect(await cli(['wait', 'w1', '--pattern', 'x'])).toMatchObject({ code: 2, stderr: expect.stringContaining('pattern is only used with until pattern') });
    expect(await cli(['wait', 'w1', '--until', 'soon'])).toMatchObject({ code: 2 });
  });

  it('the help lists the new verbs and flags', async () => {
    const help = await cli(['--help']);
    expect(help.stdout).toContain('umbel actions <name>');
    expect(help.stdout).toContain('umbel diff <name>');
    expect((await cli(['wait', '--help'])).stdout).toContain('--until');
    expect((await cli(['send', '--help'])).stdout).toContain('--command');
  });
});
