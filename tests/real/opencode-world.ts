import { mkdir, mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { seedOpencodeUser } from '../../test-fixtures/fake-opencode/seed.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { startChatMock } from '../../test-fixtures/mock-servers/openai-chat.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { readPins, realCliPath } from '../../test-fixtures/real/clis.mjs';
import type { RunResult, UmbelRun } from '../../test-fixtures/real/umbel-helpers.mjs';
import { assertBuilt, cleanUp, processesOf, runCommand, snapshotTree, testEnv, umbelRunner } from '../../test-fixtures/real/umbel-helpers.mjs';

export type Json = any;
export type Mock = { url: string; requests: () => Array<Record<string, Json>>; close: () => Promise<void> };

/** Per-test budget: the real opencode on a loaded 2-core CI box (nothing asserts on time). */
export const T = 420_000;
export const PIN = readPins().opencode;
export const oc = ['--provider', 'opencode'];
/** `umbel -p` with opencode: the 60 s default start budget is too short for the real CLI on a loaded 2-core box. */
export const ocPrint = [...oc, '--startup-timeout', '180s'];

export let opencode: string;
export let mock: Mock;
export let scratch: string;
export const users: User[] = [];
export const clients: Json[] = [];

export interface User {
  dir: string;
  state: string;
  work: string;
  configDir: string;
  env: Record<string, string>;
  umbel: UmbelRun;
  snapshot: Map<string, string>;
}

/** A fresh user whose opencode config names the mock and was never installed; own umbel state root; a git project. */
export async function freshUser(): Promise<User> {
  if (!opencode) opencode = realCliPath('opencode'); // throws "run `pnpm install:real-clis`" when missing: fail, never skip
  const dir = await mkdtemp(join(scratch, 'user-'));
  const state = join(dir, 'state');
  const work = join(dir, 'project');
  await mkdir(join(work, '.git'), { recursive: true });
  const seeded = seedOpencodeUser({ home: join(dir, 'home'), baseUrl: mock.url, installed: false });
  const configDir = join(dir, 'home', '.config', 'opencode');
  const env = testEnv({ home: join(dir, 'home'), umbelHome: state, UMBEL_OPENCODE_BIN: opencode, TERM: 'xterm-256color', ...seeded });
  const user: User = { dir, state, work, configDir, env, umbel: umbelRunner({ cwd: work, env }).run, snapshot: await snapshotTree(configDir) };
  users.push(user);
  return user;
}

/** Spawn and print how long the real opencode took to take input (reported, never asserted). */
export async function spawn(user: User, name: string, extra: string[] = []): Promise<void> {
  const started = Date.now();
  const r = await user.umbel(['spawn', name, ...oc, '--startup-timeout', '180s', ...extra]);
  expect(r, r.stderr).toMatchObject({ code: 0, stdout: `${name}\n` });
  console.log(`[opencode ${PIN.version}] ${name}: spawn → ready in ${Date.now() - started} ms (offline, user config dir never installed)`);
}

export async function waitJson(user: User, name: string, timeout = '150s'): Promise<{ code: number; outcome: Json }> {
  const r = await user.umbel(['wait', name, '--json', '--timeout', timeout]);
  return { code: r.code, outcome: JSON.parse(r.stdout) };
}

/**
 * The user running `opencode <args>` themselves (the reference a test compares umbel with), in the
 * project with the user's env — but with opencode state of its own: opencode 1.18.33 exits without
 * releasing the lock of the background npm install it starts in a never-installed config dir
 * (`<XDG_STATE_HOME>/opencode/locks`, FACTS.md §a), and the next opencode start in the same state
 * dir (umbel's worker) waits until that lock is stale, 60 s. Sessions and config stay the user's.
 */
export function referenceRun(user: User, args: string[], input?: string): Promise<RunResult> {
  return runCommand(opencode, args, { cwd: user.work, env: { ...user.env, XDG_STATE_HOME: join(user.dir, 'reference-state') }, input });
}

/** opencode processes whose cwd is `dir` (a worker's, or one a run left behind). */
export const opencodeIn = (dir: string) => processesOf({ cwd: dir }).filter((p) => p.args.includes(opencode));

/** The user turns the mock received for a prompt (the title side request excluded). */
export const turnsFor = (prompt: string) => mock.requests().filter((q) => q.kind === 'turn' && q.prompt === prompt);

/** The user config dir is untouched by umbel: only the .gitignore opencode itself writes there may appear. */
export async function untouched(user: User): Promise<void> {
  const after = await snapshotTree(user.configDir);
  expect([...after.keys()].filter((k) => !user.snapshot.has(k) && !k.startsWith('/.gitignore '))).toEqual([]);
  for (const [k, v] of user.snapshot) expect(after.get(k), k).toBe(v);
}

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs', 'packages/provider-opencode/dist/index.js', 'packages/mcp/dist/bin.js', 'packages/workflow/dist/index.js']);
  scratch = await realpath(await mkdtemp(join(tmpdir(), 'umbel-real-opencode-')));
  mock = await startChatMock();
}, T);

afterAll(() => cleanUp({ disconnect: clients, workers: users.map((u) => u.umbel), reap: [scratch], close: [mock], remove: [scratch] }), T);

/** `umbel send`, which must succeed (its error, with the screen as it gave up, is the failure's message); its stdout. */
export async function send(user: User, name: string, prompt: string): Promise<string> {
  const r = await user.umbel(['send', name, prompt]);
  expect(r.code, `send ${name} ${JSON.stringify(prompt)}: ${r.stderr}`).toBe(0);
  return r.stdout;
}
