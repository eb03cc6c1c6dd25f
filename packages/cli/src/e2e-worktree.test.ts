/**
 * Isolated workers end to end on real tmux: `spawn --worktree` on the fake `claude` gives each
 * worker its own git worktree and branch; the user's checkout is never touched; kill keeps the
 * worktree, `--purge` refuses one with work, `--discard-worktree` removes it; ten concurrent
 * worktree spawns on one repository; failures leave no worktree entry; the reserve's spare worktree
 * is what the next spawn takes, and prune leaves git no entry of it. Needs `pnpm build`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UmbelRun } from '../../../test-fixtures/real/umbel-helpers.mjs';
import { assertBuilt, cleanUp, processesOf, REPO_ROOT, teardownsDone, testEnv, umbelRunner, until } from '../../../test-fixtures/real/umbel-helpers.mjs';

const fakeClaude = join(REPO_ROOT, 'test-fixtures/bin/claude');
let scratch: string;
let home: string;
let repo: string;
let config: string;
let umbel: UmbelRun;

const gitEnv = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: { ...process.env, ...gitEnv }, encoding: 'utf8' });
const cfg = () => ['--env', `CLAUDE_CONFIG_DIR=${config}`, '--allowed-tools', 'Bash'];
const wt = (name: string) => join(home, 'worktrees', name);
const spares = () => join(home, 'worktrees', '.spares');
/** The worktrees git lists, the user's checkout included and the reserve's spare (made after a --worktree spawn) not. */
const listed = () =>
  git(repo, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((line) => line.startsWith('worktree '))
    .map((line) => line.slice('worktree '.length));
const entries = () => listed().filter((path) => !path.startsWith(spares())).length;
/** The repository's spare worktree once it is ready (undefined while there is none, or it is being made). */
const readySpare = () => {
  const keys = existsSync(spares()) ? readdirSync(spares()) : [];
  const ready = keys.map((key) => join(spares(), key)).find((dir) => existsSync(join(dir, 'ready')));
  return ready ? join(ready, 'tree') : undefined;
};
const branches = () => git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/umbel/').trim();

/** Every file of the user's checkout (its .git included: index, refs, config) and its bytes. */
function checkoutBytes(dir: string, root = dir, out = new Map<string, string>()): Map<string, string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const rel = relative(root, path);
    // git's own bookkeeping of the linked worktrees (and the logs of the refs umbel made) is expected to change.
    if (rel === join('.git', 'worktrees') || rel === join('.git', 'logs') || rel === join('.git', 'refs', 'heads', 'umbel')) continue;
    if (entry.isDirectory()) checkoutBytes(path, root, out);
    else out.set(rel, readFileSync(path).toString('base64'));
  }
  return out;
}

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs']);
  scratch = await mkdtemp(join(tmpdir(), 'umbel-e2e-wt-'));
  home = join(scratch, 'state');
  repo = join(scratch, 'repo');
  config = join(scratch, 'claude-config');
  await mkdir(join(repo, 'sub'), { recursive: true });
  git(repo, 'init', '-q', '-b', 'main');
  await writeFile(join(repo, 'same.txt'), 'base\n');
  await writeFile(join(repo, 'sub', 'keep.txt'), 'keep\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'base');
  await mkdir(config, { recursive: true });
  await writeFile(join(config, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, projects: {} }));
  const env = testEnv({ home: scratch, umbelHome: home, UMBEL_CLAUDE_BIN: fakeClaude, ...gitEnv });
  ({ run: umbel } = umbelRunner({ cwd: repo, env }));
});

// Every worker is discarded at the end, its worktree with it.
afterAll(async () => {
  await umbel?.(['pool', 'stop']);
  await teardownsDone(home);
  await cleanUp({
    workers: [(args) => umbel(args[0] === 'kill' ? ['kill', String(args[1]), '--discard-worktree'] : args)],
    reap: [scratch],
    remove: [scratch],
  });
}, 300_000);

describe('isolated workers (--worktree) on the fake claude', () => {
  it('two workers writing the same file each see only their own; the user checkout stays byte-identical', async () => {
    await writeFile(join(repo, 'same.txt'), 'user edit, uncommitted\n');
    await writeFile(join(repo, 'untracked.txt'), 'mine\n');
    const before = checkoutBytes(repo);
    for (const name of ['a', 'b']) {
      const r = await umbel(['spawn', name, '--worktree', '--cwd', join(repo, 'sub'), ...cfg(), '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ cwd: join(wt(name), 'sub'), worktree: { path: wt(name), branch: `umbel/${name}` } });
    }
    await Promise.all(['a', 'b'].map((name) => umbel(['send', name, `TOOL printf 'from ${name}\\n' > ../same.txt`])));
    for (const name of ['a', 'b']) expect((await umbel(['wait', name])).code).toBe(0);
    expect(readFileSync(join(wt('a'), 'same.txt'), 'utf8')).toBe('from a\n');
    expect(readFileSync(join(wt('b'), 'same.txt'), 'utf8')).toBe('from b\n');
    expect(checkoutBytes(repo)).toEqual(before);

    const status = JSON.parse((await umbel(['status', 'a', '--json'])).stdout);
    expect(status.worktree).toEqual({ path: wt('a'), branch: 'umbel/a', base: git(repo, 'rev-parse', 'HEAD').trim(), dirty: true, ahead: 0 });
    expect(statSync(wt('a')).mode & 0o777).toBe(0o700);
    const ls = (await umbel(['ls'])).stdout;
    expect(ls).toMatch(/BRANCH/);
    expect(ls).toContain('umbel/b');
    const diff = JSON.parse((await umbel(['diff', 'a', '--against', 'base', '--json'])).stdout);
    expect(diff).toMatchObject({ against: 'base', files: [{ path: 'same.txt', status: 'modified' }] });
    expect(diff.patch).toContain('+from a');
  });

  it('kill keeps the worktree; kill --purge refuses one with work; --discard-worktree removes it and its branch', async () => {
    const killed = await umbel(['kill', 'a']);
    expect(killed).toMatchObject({ code: 0, stderr: `umbel: kept its worktree ${wt('a')} (branch umbel/a)\n` });
    const refused = await umbel(['kill', 'a', '--purge']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('uncommitted changes');
    expect(refused.stderr).toContain('--discard-worktree');
    expect(readFileSync(join(wt('a'), 'same.txt'), 'utf8')).toBe('from a\n');
    expect((await umbel(['prune'])).stdout).toContain('0 removed');
    expect(existsSync(wt('a'))).toBe(true);
    expect(await umbel(['kill', 'a', '--discard-worktree'])).toMatchObject({ code: 0, stdout: 'purged: a\n' });
    expect(existsSync(wt('a'))).toBe(false);
    // b: its change committed is still work; once it is gone, purge removes the clean worktree
    git(wt('b'), 'commit', '-q', '-am', 'b');
    expect((await umbel(['kill', 'b', '--purge'])).stderr).toContain('1 commit beyond its base');
    git(wt('b'), 'reset', '-q', '--hard', 'HEAD~1');
    expect(await umbel(['kill', 'b', '--purge'])).toMatchObject({ code: 0, stdout: 'purged: b\n' });
    expect(entries()).toBe(1);
    expect(branches()).toBe('');
  });

  it('ten worktree workers spawned at once on one repository all start; purged, git lists none', async () => {
    const names = Array.from({ length: 10 }, (_, i) => `c${i}`);
    const results = await Promise.all(names.map((name) => umbel(['spawn', name, '--worktree', ...cfg()])));
    expect(results.map((r) => r.code)).toEqual(names.map(() => 0));
    expect(entries()).toBe(11);
    await Promise.all(names.map((name) => umbel(['kill', name, '--purge'])));
    expect(entries()).toBe(1);
    expect(branches()).toBe('');
  });

  it('bad input and a spawn that fails half-way leave no worktree entry and no branch', async () => {
    const bad = await umbel(['spawn', 'bad', '--worktree', '--branch', 'a..b', ...cfg()]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('not a branch name');
    expect((await umbel(['spawn', 'bad', '--worktree', '--base', 'no-such', ...cfg()])).code).toBe(2);
    expect((await umbel(['spawn', 'bad', '--worktree', '--cwd', scratch, ...cfg()])).code).toBe(2);
    expect((await umbel(['spawn', 'bad', '--branch', 'x', ...cfg()])).code).toBe(2);
    const pool = await umbel(['pool', 'start', '--worktree', '--branch', 'x', ...cfg()]);
    expect(pool.code).toBe(2);
    expect(pool.stderr).toContain('pool start takes no branch');
    const signIn = await umbel(['spawn', 'half', '--worktree', ...cfg(), '--env', 'FAKE_CLAUDE_SIGN_IN=1']);
    expect(signIn.code).toBe(126);
    expect(existsSync(wt('half'))).toBe(false);
    expect(entries()).toBe(1);
    expect(branches()).toBe('');
  });

  it('-p --worktree keeps a worktree with work (and says where), removes a clean one', async () => {
    const wrote = await umbel(['-p', "TOOL printf 'p\\n' > p.txt", '--worktree', '--pool', 'none', ...cfg()]);
    expect(wrote.code, wrote.stderr).toBe(0);
    const kept = /kept the worktree (\S+) \(branch (umbel\/anon-[a-z0-9]+)\)/.exec(wrote.stderr);
    expect(kept, wrote.stderr).not.toBeNull();
    expect(readFileSync(join(kept?.[1] as string, 'p.txt'), 'utf8')).toBe('p\n');
    expect(branches()).toBe(kept?.[2]);
    const clean = await umbel(['-p', 'ECHO nothing written', '--worktree', ...cfg()]);
    expect(clean).toMatchObject({ code: 0, stdout: 'nothing written\n' });
    expect(entries()).toBe(2);
  });

  it('pool start --worktree: -p --worktree claims a member in its own worktree, the checkout stays byte-identical; base moved: cold; stop leaves git clean', async () => {
    const before = checkoutBytes(repo);
    const worktreesBefore = entries();
    const started = await umbel(['pool', 'start', '--worktree', '--size', '1', ...cfg(), '--json']);
    expect(started.code, started.stderr).toBe(0);
    const pool = JSON.parse(started.stdout);
    expect(pool.worktree).toEqual({ repo, base: 'HEAD' });
    const member = pool.workers[0].worker;
    // a plain -p never claims an isolated member: it runs in the checkout itself
    const plain = await umbel(['-p', 'TOOL pwd', ...cfg()]);
    expect(plain, plain.stderr).toMatchObject({ code: 0, stdout: `TOOL-RESULT: ${repo}\n` });
    const got = await umbel(['-p', "TOOL pwd && printf 'w\\n' > w.txt", '--worktree', ...cfg()]);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toBe(`TOOL-RESULT: ${wt(member)}\n`);
    // released as kill would: the member's worktree holds work, so it is kept on its branch umbel/<member>
    expect(got.stderr).toContain(`kept the worktree ${wt(member)} (branch umbel/${member})`);
    expect(readFileSync(join(wt(member), 'w.txt'), 'utf8')).toBe('w\n');
    expect(checkoutBytes(repo)).toEqual(before);
    await teardownsDone(home);
    const poolReady = async () => JSON.parse((await umbel(['pool', 'status', pool.name, '--json'])).stdout)[0].counts.ready === 1;
    await until(poolReady, 'the refill after the claim');
    // the base moves: the member made before is never handed out, the call starts cold
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'moved');
    const cold = await umbel(['-p', 'TOOL pwd', '--worktree', ...cfg()]);
    expect(cold.code, cold.stderr).toBe(0);
    expect(cold.stdout).toMatch(new RegExp(`^TOOL-RESULT: ${wt('anon-')}[a-z0-9]+\\n$`));
    await teardownsDone(home);
    expect((await umbel(['pool', 'stop'])).code).toBe(0);
    const list = git(repo, 'worktree', 'list', '--porcelain');
    expect(list).not.toContain('prunable');
    expect(entries()).toBe(worktreesBefore + 1); // the member with work, kept
    expect(git(repo, 'for-each-ref', '--format=%(refname:short)', `refs/heads/umbel/${pool.name}-*`).trim()).toBe(`umbel/${member}`);
  }, 300_000);

  it('a --worktree spawn leaves a spare its next spawn takes (moved into place, not checked out again); prune removes it, even one killed half-made', async () => {
    await teardownsDone(home);
    expect((await umbel(['spawn', 'r1', '--worktree', ...cfg()])).code).toBe(0);
    await until(() => readySpare() !== undefined, 'the spare after a --worktree spawn');
    const spare = readySpare() as string;
    expect(statSync(spare).mode & 0o777).toBe(0o700);
    expect(git(spare, 'status', '--porcelain', '--ignored')).toBe('');
    const inode = statSync(join(spare, 'same.txt')).ino;
    const taken = await umbel(['spawn', 'r2', '--worktree', '--cwd', join(repo, 'sub'), ...cfg(), '--json']);
    expect(taken.code, taken.stderr).toBe(0);
    expect(JSON.parse(taken.stdout)).toMatchObject({ cwd: join(wt('r2'), 'sub'), worktree: { path: wt('r2'), branch: 'umbel/r2' } });
    expect(statSync(join(wt('r2'), 'same.txt')).ino).toBe(inode);
    expect(git(wt('r2'), 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/umbel/r2');
    expect(git(wt('r2'), 'status', '--porcelain')).toBe('');
    expect((await umbel(['ls'])).stdout).not.toContain('.spares');
    // prune removes a ready spare and git's entry of it
    await teardownsDone(home);
    await until(() => readySpare() !== undefined, 'the spare made again after the second spawn');
    expect((await umbel(['prune'])).code).toBe(0);
    expect(listed().filter((path) => path.startsWith(spares()))).toEqual([]);
    // The reserve's process killed wherever it is (starting, making the spare, or done): prune leaves git no entry of it.
    expect((await umbel(['spawn', 'r3', '--worktree', ...cfg()])).code).toBe(0);
    const reserves = processesOf({ envIncludes: [`UMBEL_HOME=${home}`] }).filter((p) => p.args.includes('pool finish --detached'));
    for (const p of reserves) process.kill(-p.pid, 'SIGKILL'); // its group: the git it runs too
    await Promise.all(['r1', 'r2', 'r3'].map((name) => umbel(['kill', name, '--purge'])));
    expect((await umbel(['prune'])).code).toBe(0);
    expect(listed().filter((path) => path.startsWith(spares()))).toEqual([]);
    expect(git(repo, 'worktree', 'prune', '--dry-run', '--verbose')).toBe('');
    expect(entries()).toBe(listed().length);
  }, 300_000);
});
