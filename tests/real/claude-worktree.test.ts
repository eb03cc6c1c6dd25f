// Real-CLI tier: an isolated worker (`spawn --worktree`) of the BUILT `umbel` bin driving the REAL
// pinned `claude` against the local Anthropic mock on 127.0.0.1. The Bash tool writes a file in
// the worktree (the workspace trust for the new directory is answered by umbel, as for any cwd);
// `diff --against base` shows it; `kill --purge` refuses, `--discard-worktree` removes the worktree
// and its branch, and `git worktree list` is clean. No network, no model service.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeTier } from '../../test-fixtures/real/claude-tier.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { seedClaudeConfig } from '../../test-fixtures/real/seed-claude.mjs';
import { cleanUp } from '../../test-fixtures/real/umbel-helpers.mjs';

type Result = { code: number; stdout: string; stderr: string };
type Mock = { url: string; close: () => Promise<void> };

let root: string;
let home: string;
let mock: Mock;
let run: (args: string[], options?: { input?: string }) => Promise<Result>;
const gitEnv = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: { ...process.env, ...gitEnv }, encoding: 'utf8' });

beforeAll(async () => {
  ({ root, home, mock, run } = await claudeTier('umbel-real-worktree-'));
}, 120_000);

afterAll(
  () =>
    cleanUp({
      workers: [(args) => run(args[0] === 'kill' ? ['kill', String(args[1]), '--discard-worktree'] : args)],
      reap: [root],
      close: [mock],
      remove: [root],
    }),
  300_000,
);

describe('an isolated worker on the real claude (mock model on 127.0.0.1)', () => {
  it('the Bash tool writes in the worktree; diff --against base shows it; purge refuses; discard removes', { timeout: 600_000 }, async () => {
    const repo = join(root, 'repo');
    const config = join(root, 'config');
    mkdirSync(repo, { recursive: true });
    git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'README'), 'base\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'base');
    seedClaudeConfig({ configDir: config }); // onboarding + key approval, no trust for the worktree
    const spawned = await run([
      'spawn',
      'iso',
      '--worktree',
      '--cwd',
      repo,
      '--allowed-tools',
      'Bash',
      '--env',
      'ANTHROPIC_API_KEY',
      '--env',
      `ANTHROPIC_BASE_URL=${mock.url}`,
      '--env',
      `CLAUDE_CONFIG_DIR=${config}`,
      '--env',
      'CLAUDE_CODE_MAX_RETRIES=1',
      '--startup-timeout',
      '180s',
    ]);
    expect(spawned, spawned.stderr).toMatchObject({ code: 0, stdout: 'iso\n' });
    const wt = join(home, 'worktrees', 'iso');
    expect((await run(['send', 'iso', "TOOL printf 'made by claude\\n' > made.txt"])).code).toBe(0);
    const waited = await run(['wait', 'iso', '--timeout', '240s']);
    expect(waited.code, waited.stderr).toBe(0);
    expect(readFileSync(join(wt, 'made.txt'), 'utf8')).toBe('made by claude\n');
    expect(existsSync(join(repo, 'made.txt'))).toBe(false);

    const diff = JSON.parse((await run(['diff', 'iso', '--against', 'base', '--json'])).stdout);
    expect(diff).toMatchObject({ against: 'base', base: git(repo, 'rev-parse', 'HEAD').trim(), files: [{ path: 'made.txt', status: 'added' }] });
    expect(diff.patch).toContain('+made by claude');

    const refused = await run(['kill', 'iso', '--purge']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('uncommitted changes');
    expect(existsSync(join(wt, 'made.txt'))).toBe(true);
    expect(await run(['kill', 'iso', '--discard-worktree'])).toMatchObject({ code: 0, stdout: 'purged: iso\n' });
    expect(existsSync(wt)).toBe(false);
    // the checkout alone (the reserve's spare, under worktrees/.spares/, is no worker's: docs/cli.md)
    expect(git(repo, 'worktree', 'list', '--porcelain').match(/^worktree (?!.*\/\.spares\/)/gm)).toHaveLength(1);
    expect(git(repo, 'for-each-ref', 'refs/heads/umbel/')).toBe('');
  });
});
