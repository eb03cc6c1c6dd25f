// Real-CLI tier: `umbel top` (the BUILT bin, in an 80×24 pane of a private tmux server, never the
// default socket) over the REAL pinned `claude` against the local Anthropic mock: the fleet shows the
// workers, s sends a prompt that answers, y answers the real claude's permission dialog and the turn
// completes, j selects and x kills the other one, q quits and restores the terminal. No network, no model service.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privateTmux } from '../../test-fixtures/lib/private-tmux.mjs';
import { claudeTier } from '../../test-fixtures/real/claude-tier.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { readPins } from '../../test-fixtures/real/clis.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { seedClaudeConfig } from '../../test-fixtures/real/seed-claude.mjs';
import { cleanUp, REPO_ROOT } from '../../test-fixtures/real/umbel-helpers.mjs';

type Tier = Awaited<ReturnType<typeof claudeTier>>;
let tier: Tier;
let script: string;
const tmux = privateTmux('umbel-real-top');

beforeAll(async () => {
  tier = await claudeTier('umbel-real-top-', { built: ['packages/top/dist/index.js'] });
  // The pane runs `umbel top` with the tier's environment from a script (none of it on tmux's command
  // line or in its environment); when top ends the shell prints a marker and stays.
  script = join(tier.root, 'top.sh');
  const exports = Object.entries(tier.env)
    .map(([k, v]) => `export ${k}='${String(v).replaceAll("'", "'\\''")}'`)
    .join('\n');
  writeFileSync(
    script,
    `unset TMUX TMUX_PANE TMUX_TMPDIR\n${exports}\ncd '${tier.root}'\nnode '${join(REPO_ROOT, 'packages/cli/dist/cli.cjs')}' top\necho "top-exited=$?"\nexec sleep 600\n`,
  );
  chmodSync(script, 0o700);
}, 120_000);

afterAll(async () => {
  await tmux.dispose();
  await cleanUp({ workers: [tier.run], reap: [tier.root], close: [tier.mock], remove: [tier.root] });
}, 300_000);

const screen = () => tmux.run('capture-pane', '-p', '-t', 'top');
const keys = (...k: string[]) => tmux.run('send-keys', '-t', 'top', ...k);

/** Resolve once the pane's screen satisfies `check` (a bound of 4 minutes for a loaded machine, then fail with the screen). */
async function until(check: (text: string) => boolean, what: string): Promise<string> {
  for (const started = Date.now(); Date.now() - started < 240_000; ) {
    const text = screen();
    if (check(text)) return text;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}; the screen:\n${screen()}`);
}

describe(`umbel top on the real claude ${readPins().claude.version} (mock model on 127.0.0.1)`, () => {
  it('shows the workers; s sends and its answer shows; y answers its permission dialog; j selects, x kills; q quits', { timeout: 900_000 }, async () => {
    const work = join(tier.root, 'work');
    const config = join(tier.root, 'config');
    mkdirSync(work, { recursive: true });
    seedClaudeConfig({ configDir: config });
    const spawnArgs = ['--cwd', work, '--env', 'ANTHROPIC_API_KEY', '--env', `ANTHROPIC_BASE_URL=${tier.mock.url}`, '--env', `CLAUDE_CONFIG_DIR=${config}`];
    const spawned = await Promise.all(
      ['rt', 'ru'].map((name) => tier.run(['spawn', name, ...spawnArgs, '--permission-mode', 'default', '--startup-timeout', '180s'])),
    );
    for (const r of spawned) expect(r.code, r.stderr).toBe(0);
    tmux.run('new-session', '-d', '-s', 'top', '-x', '80', '-y', '24', script);
    await until(
      (t) => t.includes('umbel top  2 workers') && /rt .*ready .*claude/.test(t) && /ru .*ready/.test(t) && t.includes('── rt'),
      'both workers, rt selected',
    );
    // s: a prompt typed into the input line goes to the real claude, and its answer shows in the row
    keys('s');
    await until((t) => t.includes('send to rt>'), 'the prompt line');
    keys('-l', 'ECHO hello from top');
    keys('Enter');
    await until((t) => /rt .*ready .*hello from top/.test(t), "the worker's answer in its row");
    expect((await tier.run(['read', 'rt'])).stdout).toBe('hello from top\n');
    // y: the real claude asks before running a tool; y answers its dialog and the turn completes
    expect((await tier.run(['send', 'rt', 'TOOL touch top-approved.txt'])).code).toBe(0);
    await until((t) => /rt .*needs-input.*Bash/.test(t), 'the permission request');
    keys('y');
    await until((t) => /rt .*ready .*TOOL-RESULT/.test(t), 'the approved turn answered');
    expect(JSON.parse((await tier.run(['wait', 'rt', '--json', '--timeout', '60s'])).stdout)).toMatchObject({ reason: 'completed', turn: 2 });
    // j selects the other worker; x asks to confirm, then kills it
    keys('j');
    await until((t) => t.includes('── ru'), 'ru selected');
    keys('x');
    await until((t) => t.includes('kill ru? y/N'), 'the kill confirmation');
    keys('y');
    await until((t) => /ru .*killed/.test(t), 'ru killed');
    expect(JSON.parse((await tier.run(['status', 'ru', '--json'])).stdout)).toMatchObject({ state: 'killed' });
    // q quits: exit 0, the alternate screen left and the cursor shown again
    keys('q');
    await until((t) => t.includes('top-exited=0'), 'top to exit');
    expect(tmux.run('display-message', '-p', '-t', 'top', '#{alternate_on} #{cursor_flag}').trim()).toBe('0 1');
  });
});
