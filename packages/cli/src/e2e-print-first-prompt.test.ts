/**
 * A cold `umbel -p` hands its prompt to a CLI that takes one on its command line (Claude Code:
 * `claude … -- 'prompt'`), so the CLI starts on it as it comes up instead of waiting for its ready
 * screen and a paste — on real tmux with the fake `claude`, whose arguments a wrapper logs. A prompt
 * that came on stdin never goes on a command line (other users see those in `ps`); it is pasted.
 */
import { chmod, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UmbelRun } from '../../../test-fixtures/real/umbel-helpers.mjs';
import { assertBuilt, cleanUp, REPO_ROOT, testEnv, umbelRunner } from '../../../test-fixtures/real/umbel-helpers.mjs';

const T = 120_000;
let scratch: string;
let argvLog: string;
let common: string[];
let umbel: UmbelRun;

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs']);
  scratch = await realpath(await mkdtemp(join(tmpdir(), 'umbel-e2e-first-prompt-')));
  const work = join(scratch, 'project');
  const config = join(scratch, 'claude-config');
  argvLog = join(scratch, 'argv.log');
  await mkdir(work, { recursive: true });
  await mkdir(config, { recursive: true });
  await writeFile(join(config, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, projects: { [work]: { hasTrustDialogAccepted: true } } }));
  // The fake claude, its arguments logged one per line (a launch replaces the log).
  const wrapper = join(scratch, 'logging-claude');
  await writeFile(wrapper, `#!/bin/sh\nprintf '%s\\n' "$@" > '${argvLog}'\nexec '${join(REPO_ROOT, 'test-fixtures/bin/claude')}' "$@"\n`);
  await chmod(wrapper, 0o755);
  common = ['--env', `CLAUDE_CONFIG_DIR=${config}`, '--pool', 'none'];
  ({ run: umbel } = umbelRunner({ cwd: work, env: testEnv({ home: scratch, umbelHome: join(scratch, 'state'), UMBEL_CLAUDE_BIN: wrapper }) }));
});

afterAll(async () => {
  await cleanUp({ workers: [umbel], reap: [scratch], remove: [scratch] });
}, T);

const launchArgs = async () => (await readFile(argvLog, 'utf8')).split('\n').slice(0, -1);

describe('umbel -p: the prompt on the CLI command line', () => {
  it(
    'a prompt given as the argument goes last on the CLI command line, after -- (so a many-valued option before it cannot take it); the answer is the same',
    async () => {
      const out = await umbel(['-p', 'ECHO from argv', ...common, '--allowed-tools', 'Read', '--output-format', 'json']);
      expect(out.code, out.stderr).toBe(0);
      expect(JSON.parse(out.stdout)).toMatchObject({ result: 'from argv', is_error: false });
      expect((await launchArgs()).slice(-2)).toEqual(['--', 'ECHO from argv']);
    },
    T,
  );

  it(
    'a prompt read from stdin is pasted, never put on a command line',
    async () => {
      await rm(argvLog, { force: true });
      const out = await umbel(['-p', ...common], { input: 'ECHO from stdin' });
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout).toBe('from stdin\n');
      const args = await launchArgs();
      expect(args.join('\n')).not.toContain('from stdin');
      expect(args).not.toContain('--');
    },
    T,
  );
});
