/**
 * Docs that run: every ```sh / bash / shell block of README.md, the packages' READMEs and docs/
 * that is not marked (```sh illustrative, ```sh real: tests/repo/doc-blocks.test.ts) runs here as
 * written, through bash, on the built bin and real tmux, against the fake CLIs from test-fixtures/
 * (claude and codex on PATH, `umbel` a shim for the built bin). One sandbox per
 * markdown file, laid out like a clone (packages/ linked, README.md, ./repo with an `npm test`,
 * review.yaml), with its own state root (UMBEL_HOME) and HOME. Every command must exit 0 unless
 * EXPECTED says otherwise, and where the doc says what a command prints, EXPECTED checks it.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, realpath, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { classify, docMarkdownFiles, type FencedBlock, fencedBlocks } from '../../../test-fixtures/lib/markdown-blocks.mjs';
import { assertBuilt, cleanUp, codexMockConfig, REPO_ROOT, runCommand, testEnv, UMBEL_BIN, umbelRunner } from '../../../test-fixtures/real/umbel-helpers.mjs';

/** One command of a block: its markdown line and its text (continuation lines joined). */
interface Command {
  readonly line: number;
  readonly text: string;
}

/** What one command did. */
interface Ran extends Command {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** What the docs say a command prints (matched on the command's text); every other command must exit 0. */
const EXPECTED: ReadonlyArray<{ readonly command: RegExp; readonly check: (ran: Ran) => void }> = [
  { command: /--help\b/, check: (r) => expect(r.stdout).toMatch(/^Usage:\s+umbel/m) },
  { command: /^umbel send \S+ /, check: (r) => expect(r.stdout, 'prints the turn number').toMatch(/^\d+\n$/) },
  { command: /^umbel wait /, check: (r) => expect(r.stdout, 'prints the answer').toMatch(/^MOCK-REPLY: /) },
  { command: /^umbel -p .*--output-format json/, check: (r) => expect(JSON.parse(r.stdout)).toMatchObject({ type: 'result', is_error: false }) },
  { command: /^umbel status$/, check: (r) => expect(r.stdout).toMatch(/^NAME +PROVIDER +STATE +TURN/) },
  { command: /^umbel doctor --provider codex --json$/, check: (r) => expect(JSON.parse(r.stdout)).toMatchObject({ ok: true }) },
  { command: /^umbel run /, check: (r) => expect(r.stdout).toMatch(/^workflow completed: runId=/) },
];

const MARK = '@@umbel-docs';

/**
 * The agent CLIs "installed" (fakes on PATH, nothing else of the machine's PATH but node and
 * /usr/bin:/bin): the ones the docs' runnable blocks use. Gemini CLI and opencode need a mock model
 * server to answer, so their pages' blocks are illustrative (e2e-gemini / e2e-opencode cover them).
 */
const INSTALLED = ['claude', 'codex'];

/** The commands of a shell block: blank and comment lines skipped, `\` continuations joined. */
export function commandsOf(block: FencedBlock): Command[] {
  const out: Command[] = [];
  const lines = block.code.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = block.line + 1 + i;
    let text = lines[i]?.trim() ?? '';
    while (text.endsWith('\\') && i + 1 < lines.length) text = `${text.slice(0, -1)} ${lines[++i]?.trim() ?? ''}`;
    if (text !== '' && !text.startsWith('#')) out.push({ line, text });
  }
  return out;
}

/** A bash script running the commands in order, each followed by a marker with its exit status (on stdout and stderr). */
function scriptOf(commands: readonly Command[]): string {
  const body = commands.map((c, i) => `${c.text}\n__rc=$?; printf '\\n${MARK} ${i} %d\\n' "$__rc"; printf '\\n${MARK} ${i}\\n' >&2`);
  return ['shopt -s expand_aliases', ...body, ''].join('\n');
}

/** Cut a stream at the markers: one chunk per command (the newline a marker adds removed). */
function chunks(stream: string): { text: string; code?: number }[] {
  const out: { text: string; code?: number }[] = [];
  const re = new RegExp(`\\n${MARK} (\\d+)(?: (\\d+))?\\n`, 'g');
  let from = 0;
  for (const m of stream.matchAll(re)) {
    out[Number(m[1])] = { text: stream.slice(from, m.index), code: m[2] === undefined ? undefined : Number(m[2]) };
    from = (m.index ?? 0) + m[0].length;
  }
  return out;
}

const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: 'docs',
  GIT_AUTHOR_EMAIL: 'docs@example.invalid',
  GIT_COMMITTER_NAME: 'docs',
  GIT_COMMITTER_EMAIL: 'docs@example.invalid',
};

/** Run a block's commands through bash in the sandbox; one result per command that ran. */
async function runBlock(sandbox: Sandbox, block: FencedBlock): Promise<Ran[]> {
  const commands = commandsOf(block);
  const r = await runCommand('/bin/bash', ['--noprofile', '--norc', '-c', scriptOf(commands)], { cwd: sandbox.work, env: sandbox.env });
  const outs = chunks(r.stdout);
  const errs = chunks(r.stderr);
  return commands.map((c, i) => ({ ...c, code: outs[i]?.code ?? -1, stdout: outs[i]?.text ?? '', stderr: errs[i]?.text ?? r.stderr }));
}

/** Where a file's blocks run: a clone-like working directory, a HOME, a state root, the fakes on PATH. */
interface Sandbox {
  readonly root: string;
  readonly work: string;
  readonly env: Record<string, string>;
}

async function sandbox(): Promise<Sandbox> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'umbel-e2e-docs-')));
  const [bin, home, work] = ['bin', 'home', 'work'].map((d) => join(root, d)) as [string, string, string];
  const repo = join(work, 'repo');
  for (const dir of [bin, join(home, '.codex'), repo]) await mkdir(dir, { recursive: true });
  await writeFile(join(bin, 'umbel'), `#!/bin/sh\nexec '${process.execPath}' '${UMBEL_BIN}' "$@"\n`, { mode: 0o755 });
  for (const cli of INSTALLED) await symlink(join(REPO_ROOT, 'test-fixtures/bin', cli), join(bin, cli));
  // like a clone: README.md's `node packages/…` and `$PWD/packages/…` lines run from here
  await symlink(join(REPO_ROOT, 'packages'), join(work, 'packages'));
  await writeFile(join(work, 'README.md'), await readFile(join(REPO_ROOT, 'README.md')));
  await writeFile(join(repo, 'package.json'), JSON.stringify({ name: 'repo', private: true, scripts: { test: 'exit 0' } }));
  await writeFile(
    join(work, 'review.yaml'),
    'workers:\n  reviewer:\n    provider: claude\nsteps:\n  - id: review\n    worker: reviewer\n    prompt: Review {{ vars.branch }}\n',
  );
  // the CLIs' own setup a user has done: claude onboarded and trusting the folders, codex on an API key
  const trusted = Object.fromEntries([work, repo].map((d) => [d, { hasTrustDialogAccepted: true }]));
  await writeFile(join(home, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, projects: trusted }));
  await writeFile(
    join(home, '.codex', 'config.toml'),
    codexMockConfig({ baseUrl: 'http://127.0.0.1:9/v1', envKey: 'MOCK_API_KEY', tail: ['[tui]', 'screen_reader_detection_done = true', ''] }),
  );
  // a clone is a git repository (docs/cli.md's worktree lines make worktrees of it), on branch main
  const git = (...args: string[]) => execFileSync('git', args, { cwd: work, stdio: 'ignore', env: { ...process.env, ...GIT_IDENTITY } });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'a clone');
  const env = testEnv({
    home,
    umbelHome: join(root, 'state'),
    PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`,
    ANTHROPIC_API_KEY: 'sk-ant-docs-fake',
    MOCK_API_KEY: 'sk-docs-fake',
  });
  return { root, work, env };
}

/** Why a command's result contradicts the docs ('' when it does not). */
function verdict(file: string, ran: Ran): string {
  const where = `${file}:${ran.line}: ${ran.text}`;
  if (ran.code !== 0) return `${where}\n  exited ${ran.code}\n  stdout: ${ran.stdout.trim()}\n  stderr: ${ran.stderr.trim()}`;
  try {
    for (const e of EXPECTED) if (e.command.test(ran.text)) e.check(ran);
  } catch (error) {
    return `${where}\n  ${(error as Error).message}\n  stdout: ${ran.stdout.trim()}`;
  }
  return '';
}

const byFile = new Map<string, FencedBlock[]>();
for (const file of docMarkdownFiles(REPO_ROOT))
  for (const block of fencedBlocks(file, await readFile(file, 'utf8')))
    if (classify(block).kind === 'run') byFile.set(file, [...(byFile.get(file) ?? []), block]);

const sandboxes: Sandbox[] = [];
afterAll(() =>
  cleanUp({
    workers: sandboxes.map((s) => umbelRunner({ cwd: s.work, env: s.env }).run),
    reap: sandboxes.map((s) => s.root),
    remove: sandboxes.map((s) => s.root),
  }),
);

describe('the shell blocks of the docs run as written against the fake CLIs', () => {
  it('finds the runnable blocks (README.md, the cli and umbel READMEs)', () => {
    expect([...byFile.keys()].map((f) => relative(REPO_ROOT, f))).toEqual(
      expect.arrayContaining(['README.md', 'packages/cli/README.md', 'packages/umbel/README.md']),
    );
  });

  it('a planted wrong command and a documented output that is not printed fail, named by file and line (it can fail)', async () => {
    const [block] = fencedBlocks(join(REPO_ROOT, 'planted.md'), ['```sh', 'umbel ls --no-such-flag', 'umbel --version', 'true --help', '```'].join('\n'));
    const box = await sandbox();
    sandboxes.push(box);
    const problems = (await runBlock(box, block as FencedBlock)).map((ran) => verdict('planted.md', ran)).filter(Boolean);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^planted\.md:2: umbel ls --no-such-flag\n {2}exited 2\n/);
    expect(problems[1]).toMatch(/^planted\.md:4: true --help\n {2}expected '' to match/);
  });

  for (const [file, blocks] of byFile) {
    const name = relative(REPO_ROOT, file);
    // each command is an `umbel` (or node) process, some a worker's whole life: seconds each on a loaded box
    it(`${name}: every command of its ${blocks.length} block(s) does what the doc says`, { timeout: 240_000 }, async () => {
      assertBuilt(['packages/cli/dist/cli.cjs']);
      const box = await sandbox();
      sandboxes.push(box);
      const problems: string[] = [];
      for (const block of blocks) for (const ran of await runBlock(box, block)) problems.push(verdict(name, ran));
      expect(problems.filter(Boolean)).toEqual([]);
    });
  }
});
