/** YAML workers with `worktree:`: the worker runs in its own git worktree; its file: outputs are read there; the run's end keeps it. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUmbel, type Umbel } from '@umbel/core';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '@umbel/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseWorkflow, runWorkflow } from './index.js';

let root: string;
let repo: string;
let home: string;
let substrate: MemorySubstrate;
let engine: Umbel;
const callerEnv = { PATH: process.env.PATH, HOME: '/nonexistent-home' };
const gitEnv = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: { ...process.env, ...gitEnv }, encoding: 'utf8' });

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'umbel-wf-wt-')));
  repo = join(root, 'repo');
  home = join(root, 'home');
  mkdirSync(repo);
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'f.txt'), 'base\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'base');
  substrate = createMemorySubstrate();
  // No worktree reserve here (git/spare.test.ts and e2e-worktree test it): the counts are of workers' worktrees.
  engine = createUmbel({ substrate, providers: [createMockProvider()], home, env: callerEnv, reserveWorktree: async () => undefined });
});
afterEach(async () => {
  for (const name of await substrate.list()) await substrate.kill(name);
  rmSync(root, { recursive: true, force: true });
});

describe('worktree on YAML workers', () => {
  it('runs the worker in its worktree on the named branch; file: outputs come from there; the user checkout is untouched', async () => {
    const wf = parseWorkflow(
      `
workers:
  w: {provider: mock, worktree: {branch: wf/w}}
steps:
  - id: edit
    worker: w
    prompt: TOOLS write out.txt made in the worktree
    outputs: {out: "file:out.txt"}
`,
      { file: join(repo, 'wf.yaml') },
    );
    const summary = await runWorkflow(engine, wf, { runId: 'r1', env: callerEnv });
    expect(summary).toMatchObject({ ok: true, outputs: { edit: { outputs: { out: 'made in the worktree' } } } });
    const wt = join(home, 'worktrees', 'r1-w');
    expect(readFileSync(join(wt, 'out.txt'), 'utf8')).toBe('made in the worktree');
    expect(existsSync(join(repo, 'out.txt'))).toBe(false);
    expect(git(wt, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('wf/w');
  });

  it('refuses a worktree value of the wrong shape when the workflow is parsed', () => {
    expect(() =>
      parseWorkflow('workers:\n  w: {provider: mock, worktree: {branch: 1}}\nsteps:\n  - {id: s, worker: w, prompt: hi}\n', { file: join(repo, 'wf.yaml') }),
    ).toThrow(/worktree/);
  });
});
