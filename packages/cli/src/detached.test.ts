/**
 * The detached process `-p` hands its teardown to (./process-io.ts) starts once the process that
 * started it lets go — its exit, which closes the held pipe (`release()` here does the same) — so its
 * work never competes with the call's exit on the CPU. It runs in a session of its own under the pid
 * it was given, its input on stdin (never on a command line). Input too large to wait in a pipe
 * starts it at once.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { spawnDetached, WAIT_INPUT_MAX_BYTES } from './detached.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'umbel-detached-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(file: string): Promise<string> {
  for (const end = Date.now() + 20_000; Date.now() < end; await sleep(20)) if (existsSync(file)) return readFileSync(file, 'utf8');
  throw new Error(`${file} never written`);
}

/** A shell that records its pid, session and stdin (renamed into place once whole). */
const recorder = (out: string) => [
  '-c',
  `input=$(cat); printf '%s %s %s' "$$" "$(ps -o sid= -p $$ | tr -d ' ')" "$input" > ${out}.tmp && mv ${out}.tmp ${out}`,
];

it('starts when its starter lets go, in a session of its own, under its pid, with its input on stdin', async () => {
  const out = join(dir, 'out');
  const started = await spawnDetached('/bin/sh', recorder(out), '{"job":1}', { cwd: dir, env: { PATH: process.env.PATH }, afterExit: true });
  expect(started).toBeDefined();
  await sleep(400);
  expect(existsSync(out)).toBe(false);
  started?.release();
  const [pid, sid, input] = (await until(out)).split(' ');
  expect(Number(pid)).toBe(started?.pid);
  expect(sid).toBe(pid);
  expect(input).toBe('{"job":1}');
});

it.each([
  ['input larger than a pipe holds for certain', 'x'.repeat(WAIT_INPUT_MAX_BYTES + 1), true],
  ['not asked to wait (a worktree reserve, from a process that lives on)', '{"spare":1}', false],
])('%s: it starts at once', async (_what, text, afterExit) => {
  const out = join(dir, 'out');
  const started = await spawnDetached('/bin/sh', recorder(out), text, { cwd: dir, env: { PATH: process.env.PATH }, afterExit });
  const [pid, sid, input] = (await until(out)).split(' ');
  expect(Number(pid)).toBe(started?.pid);
  expect(sid).toBe(pid);
  expect(input).toBe(text);
});

it.each([true, false])('a command that cannot start (afterExit %s): undefined', async (afterExit) => {
  expect(await spawnDetached(join(dir, 'missing'), [], '', { cwd: dir, env: {}, afterExit })).toBeUndefined();
});
