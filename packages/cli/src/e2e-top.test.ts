/**
 * `umbel top` end to end, driven as a person would: the built bin runs in a pane of a private tmux
 * server (test-fixtures/lib/private-tmux.mjs, never the default socket) in an 80×24 terminal,
 * over three fake `claude` workers; send-keys select, send, answer a permission prompt, kill and
 * quit; capture-pane reads the screen. Needs `pnpm build`.
 */
import { readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privateTmux } from '../../../test-fixtures/lib/private-tmux.mjs';
import type { UmbelRun } from '../../../test-fixtures/real/umbel-helpers.mjs';
import { assertBuilt, cleanUp, REPO_ROOT, testEnv, umbelRunner } from '../../../test-fixtures/real/umbel-helpers.mjs';

let scratch: string;
let work: string;
let config: string;
let umbel: UmbelRun;
let script: string;
const tmux = privateTmux('umbel-e2e-top');

const cfg = () => ['--env', `CLAUDE_CONFIG_DIR=${config}`];

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs', 'packages/top/dist/index.js']);
  scratch = await mkdtemp(join(tmpdir(), 'umbel-e2e-top-'));
  work = join(scratch, 'project');
  config = join(scratch, 'claude-config');
  await mkdir(work, { recursive: true });
  await mkdir(config, { recursive: true });
  await writeFile(join(config, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, projects: { [work]: { hasTrustDialogAccepted: true } } }));
  const env = testEnv({ home: scratch, umbelHome: join(scratch, 'state'), UMBEL_CLAUDE_BIN: join(REPO_ROOT, 'test-fixtures/bin/claude') });
  ({ run: umbel } = umbelRunner({ cwd: work, env }));
  // The pane runs `umbel top` with the test's environment from a script (none of it on tmux's
  // command line or in its environment; not the pane server's TMUX_TMPDIR); when top ends, the shell prints a marker and stays.
  script = join(scratch, 'top.sh');
  const exports = Object.entries(env)
    .map(([k, v]) => `export ${k}='${String(v).replaceAll("'", "'\\''")}'`)
    .join('\n');
  await writeFile(
    script,
    `unset TMUX TMUX_PANE TMUX_TMPDIR\n${exports}\ncd '${work}'\nnode '${join(REPO_ROOT, 'packages/cli/dist/cli.cjs')}' top\necho "top-exited=$?"\nexec sleep 600\n`,
  );
  await chmod(script, 0o700);
});

afterAll(async () => {
  await tmux.dispose();
  await cleanUp({ workers: [umbel], reap: [scratch], remove: [scratch] });
});

const screen = () => tmux.run('capture-pane', '-p', '-t', 'top');

/** Resolve once the pane's screen satisfies `check` (a 30 s bound, then fail with the screen). */
async function until(check: (text: string) => boolean, what: string): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const text = screen();
    if (check(text)) return text;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}; the screen:\n${screen()}`);
}

const keys = (...k: string[]) => tmux.run('send-keys', '-t', 'top', ...k);
const rowOf = (text: string, name: string) => text.split('\n').find((l) => l.trimStart().startsWith(`${name} `)) ?? '';

describe('umbel top on the fake claude', () => {
  it('shows the fleet; j/k select, s sends, y answers a permission prompt, x kills, q quits and restores the terminal', async () => {
    for (const name of ['t1', 't2']) expect((await umbel(['spawn', name, ...cfg()])).code).toBe(0);
    expect((await umbel(['spawn', 't3', ...cfg(), '--permission-mode', 'default'])).code).toBe(0);
    expect((await umbel(['send', 't1', 'ECHO first of t1'])).code).toBe(0);
    expect((await umbel(['wait', 't1'])).stdout).toBe('first of t1\n');
    tmux.run('new-session', '-d', '-s', 'top', '-x', '80', '-y', '24', script);
    let text = await until((t) => /t1 .*ready .*claude .*first of t1/.test(t) && rowOf(t, 't3') !== '', 'three rows and t1 answer');
    expect(text).toContain('umbel top  3 workers');
    expect(tmux.run('display-message', '-p', '-t', 'top', '#{alternate_on}').trim()).toBe('1');
    // j moves the selection down to t2 (the detail pane names the selected worker)
    await until((t) => t.includes('── t1'), 't1 selected');
    keys('j');
    await until((t) => t.includes('── t2'), 't2 selected');
    // s: a prompt typed into the input line goes to t2, which answers it
    keys('s');
    await until((t) => t.includes('send to t2>'), 'the prompt line');
    keys('-l', 'ECHO hello from top');
    keys('Enter');
    text = await until((t) => /t2 .*ready .*hello from top/.test(t), "t2's answer in its row");
    expect(rowOf(text, 't2')).toMatch(/ 1 /);
    expect((await umbel(['read', 't2'])).stdout).toBe('hello from top\n');
    // y: t3 asks for permission to run a tool; y answers it and the turn completes
    expect((await umbel(['send', 't3', 'TOOL touch top-approved.txt'])).code).toBe(0);
    keys('j');
    await until((t) => t.includes('── t3') && /t3 .*needs-input.*asks permission Bash/.test(t), 't3 asking');
    keys('y');
    text = await until((t) => /t3 .*ready .*TOOL-RESULT/.test(t), 't3 answered');
    // k goes back up; x asks to confirm, then kills t2
    keys('k');
    await until((t) => t.includes('── t2'), 't2 selected again');
    keys('x');
    await until((t) => t.includes('kill t2? y/N'), 'the kill confirmation');
    keys('y');
    await until((t) => /t2 .*killed/.test(t), 't2 killed');
    expect(JSON.parse((await umbel(['status', 't2', '--json'])).stdout)).toMatchObject({ state: 'killed' });
    // q quits: the exit code is 0, the alternate screen is left and the cursor shown again
    keys('q');
    await until((t) => t.includes('top-exited=0'), 'top to exit');
    expect(tmux.run('display-message', '-p', '-t', 'top', '#{alternate_on} #{cursor_flag}').trim()).toBe('0 1');
    expect(screen()).not.toContain('umbel top');
  });

  it('Enter attaches to the selected worker and top comes back on detach; SIGTERM restores the terminal', async () => {
    // its own worker, first by name, so the test stands alone (the first test's workers may be there or not)
    expect((await umbel(['spawn', 'a1', ...cfg()])).code).toBe(0);
    // the pane's own server passes C-b on, so it reaches the attached client on umbel's socket
    tmux.run('new-session', '-d', '-s', 'top2', '-x', '80', '-y', '24', script);
    tmux.run('set-option', '-t', 'top2', 'prefix', 'None');
    const on = (t: string) => tmux.run('capture-pane', '-p', '-t', t);
    const wait = async (check: (text: string) => boolean, what: string) => {
      for (let i = 0; i < 600 && !check(on('top2')); i++) await new Promise((r) => setTimeout(r, 50));
      if (!check(on('top2'))) throw new Error(`timed out waiting for ${what}; the screen:\n${on('top2')}`);
    };
    await wait((t) => t.includes('── a1') && /a1 .*ready/.test(t), 'top with a1 selected');
    tmux.run('send-keys', '-t', 'top2', 'Enter');
    await wait((t) => !t.includes('umbel top') && t.includes('auto mode on'), "a1's own screen");
    tmux.run('send-keys', '-t', 'top2', 'C-b', 'd');
    await wait((t) => t.includes('umbel top') && t.includes('back from a1'), 'top again after the detach');
    expect(tmux.run('display-message', '-p', '-t', 'top2', '#{alternate_on}').trim()).toBe('1');
    const shell = Number(tmux.run('display-message', '-p', '-t', 'top2', '#{pane_pid}').trim());
    const [node] = readFileSync(`/proc/${shell}/task/${shell}/children`, 'utf8').trim().split(/\s+/).map(Number);
    process.kill(node as number, 'SIGTERM');
    await wait((t) => t.includes('top-exited=143'), 'top to exit on SIGTERM');
    expect(tmux.run('display-message', '-p', '-t', 'top2', '#{alternate_on} #{cursor_flag}').trim()).toBe('0 1');
  });
});
