/**
 * A prompt can never type keys (issue 38, item 2): on real tmux and the fake claude, `ESC[201~`
 * inside a prompt used to end the bracketed paste early, and the rest ran as typed input — a `!`
 * bash command executed, `/exit` ended the worker. Needs `pnpm build`.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UmbelRun } from '../../../test-fixtures/real/umbel-helpers.mjs';
import { assertBuilt, cleanUp, REPO_ROOT, testEnv, umbelRunner } from '../../../test-fixtures/real/umbel-helpers.mjs';

let scratch: string;
let config: string;
let umbel: UmbelRun;

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs']);
  scratch = await mkdtemp(join(tmpdir(), 'umbel-e2e-paste-'));
  const work = join(scratch, 'project');
  config = join(scratch, 'claude-config');
  await mkdir(work, { recursive: true });
  await mkdir(config, { recursive: true });
  await writeFile(join(config, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, projects: { [work]: { hasTrustDialogAccepted: true } } }));
  const env = testEnv({ home: scratch, umbelHome: join(scratch, 'state'), UMBEL_CLAUDE_BIN: join(REPO_ROOT, 'test-fixtures/bin/claude') });
  ({ run: umbel } = umbelRunner({ cwd: work, env }));
});

afterAll(() => cleanUp({ workers: [umbel], reap: [scratch], remove: [scratch] }));

async function promptsOf(name: string): Promise<string[]> {
  const status = JSON.parse((await umbel(['status', name, '--json'])).stdout);
  return (await readFile(status.transcriptPath, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((e) => e.type === 'user' && typeof e.message?.content === 'string')
    .map((e) => e.message.content);
}

describe('paste terminators in a prompt on the fake claude', () => {
  it('`ESC[201~!touch FILE` and `ESC[201~/exit` arrive as text: nothing runs, the worker lives, the transcript shows ␛', async () => {
    const file = join(scratch, 'escaped');
    expect(await umbel(['spawn', 'p1', '--env', `CLAUDE_CONFIG_DIR=${config}`])).toMatchObject({ code: 0 });
    const touch = `\x1b[201~!touch ${file}`;
    expect(await umbel(['send', 'p1', touch])).toMatchObject({ code: 0, stdout: '1\n' });
    expect((await umbel(['wait', 'p1', '--timeout', '60s'])).code).toBe(0);
    expect(existsSync(file)).toBe(false);
    expect(await umbel(['send', 'p1', '\x1b[201~/exit'])).toMatchObject({ code: 0, stdout: '2\n' });
    expect((await umbel(['wait', 'p1', '--timeout', '60s'])).code).toBe(0);
    expect(JSON.parse((await umbel(['status', 'p1', '--json'])).stdout)).toMatchObject({ alive: true, state: 'ready' });
    expect(await promptsOf('p1')).toEqual([`\u241b[201~!touch ${file}`, '\u241b[201~/exit']);
  });
});
