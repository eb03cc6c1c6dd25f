// Real-CLI tier: the REAL pinned `claude` on another host. The built `umbel` bin here reaches a real
// sshd on 127.0.0.1; the "remote machine" is a second state root whose umbel (the same built bin)
// drives the real claude (UMBEL_CLAUDE_BIN, absolute path) in its own tmux, against the local
// Anthropic mock. No network, no model service. The API key lives only in the LOCAL umbel's env and
// reaches the worker there as `--env ANTHROPIC_API_KEY` (by name): over the SSH connection's stdin,
// never on a command line. When the binary or the build is missing these tests FAIL, they never skip.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM fixture without type declarations
import { startAnthropicMock } from '../../test-fixtures/mock-servers/anthropic.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { readPins, realCliPath } from '../../test-fixtures/real/clis.mjs';
// @ts-expect-error -- plain ESM fixture without type declarations
import { MOCK_API_KEY, seedClaudeConfig } from '../../test-fixtures/real/seed-claude.mjs';
import { assertBuilt, environOf, workerProcesses } from '../../test-fixtures/real/umbel-helpers.mjs';
import { type RemoteWorld, remoteWorld } from '../../test-fixtures/ssh/remote-world.mjs';

type Mock = { url: string; requests: () => Array<Record<string, any>>; close: () => Promise<void> };

const STARTUP = ['--startup-timeout', '180s'];
const WAIT = ['--timeout', '240s'];

let world: RemoteWorld;
let mock: Mock;

/** A worker's spawn flags on `loop`: its cwd and the seeded (untrusted) config dir are paths there. */
function onLoop(id: string, { print = false }: { print?: boolean } = {}): string[] {
  const work = join(world.remoteWork, id);
  const config = join(world.remoteUser, `config-${id}`);
  seedClaudeConfig({ configDir: config });
  return [
    '--host',
    'loop',
    '--cwd',
    work,
    '--env',
    'ANTHROPIC_API_KEY', // by name: the value comes from the LOCAL umbel's env
    '--env',
    `ANTHROPIC_BASE_URL=${mock.url}`,
    '--env',
    `CLAUDE_CONFIG_DIR=${config}`,
    '--env',
    'CLAUDE_CODE_MAX_RETRIES=1',
    ...(print ? [] : STARTUP),
  ];
}

beforeAll(async () => {
  const claude = realCliPath('claude');
  assertBuilt(['packages/runtime/dist/index.js']);
  mock = await startAnthropicMock({});
  world = await remoteWorld({ prefix: 'umbel-rrc-', remoteEnv: { UMBEL_CLAUDE_BIN: claude, CI: 'true' }, localEnv: { ANTHROPIC_API_KEY: MOCK_API_KEY } });
}, 120_000);

afterAll(async () => {
  await world?.cleanUp();
  await mock?.close();
}, 300_000);

describe(`the real claude ${readPins().claude.version} on another host (over ssh, mock model on 127.0.0.1)`, () => {
  it('spawn --host → send → wait → read → kill; the key reaches the worker there, never a command line', { timeout: 600_000 }, async () => {
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(world.remoteWork, 'verbs'), { recursive: true });
    const flags = onLoop('verbs');
    // Sample every argv while the worker starts and takes its prompt.
    const leaks = new Set<string>();
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        for (const pid of await readdir('/proc')) {
          if (!/^\d+$/.test(pid)) continue;
          const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
          if (cmdline.includes(MOCK_API_KEY)) leaks.add(cmdline.replace(/\0/g, ' ').slice(0, 200));
        }
        await new Promise((r) => setTimeout(r, 25));
      }
    })();
    let spawned: { code: number; stdout: string; stderr: string };
    let sent: { code: number; stdout: string; stderr: string };
    try {
      spawned = await world.run(['spawn', 'rc1', ...flags]);
      sent = await world.run(['send', 'rc1', 'ECHO the real claude over ssh']);
    } finally {
      sampling = false;
      await sampler;
    }
    expect([...leaks]).toEqual([]);
    expect(spawned, spawned.stderr).toMatchObject({ code: 0, stdout: 'rc1\n' });
    expect(sent).toMatchObject({ code: 0, stdout: '1\n' });
    const [cli] = workerProcesses(world.remoteHome, 'rc1');
    expect(environOf((cli as { pid: number }).pid).ANTHROPIC_API_KEY).toBe(MOCK_API_KEY);

    expect(await world.run(['wait', 'rc1', ...WAIT])).toMatchObject({ code: 0, stdout: 'the real claude over ssh\n' });
    expect(await world.run(['send', 'rc1', 'ECHO second turn'])).toMatchObject({ code: 0, stdout: '2\n' });
    const second = JSON.parse((await world.run(['wait', 'rc1', '--json', ...WAIT])).stdout);
    expect(second).toMatchObject({ reason: 'completed', turn: 2, result: 'second turn', provider: 'claude' });
    expect((await world.run(['read', 'rc1', '--turn', '1'])).stdout).toBe('the real claude over ssh\n');
    const status = JSON.parse((await world.run(['status', 'rc1', '--json'])).stdout);
    expect(status).toMatchObject({ host: 'loop', state: 'ready', completedTurn: 2 });
    // The model really was asked, once per turn, by that worker's Claude session.
    const asked = mock.requests().filter((q) => q.kind === 'main' && q.headers?.['x-claude-code-session-id'] === status.sessionId);
    expect(asked.map((q) => q.prompt)).toEqual(['ECHO the real claude over ssh', 'ECHO second turn']);
    expect(await world.run(['kill', 'rc1', '--purge'])).toMatchObject({ code: 0, stdout: 'purged: rc1\n' });
    expect(workerProcesses(world.remoteHome, 'rc1')).toEqual([]);
  });

  it('umbel -p --host prints the answer of the real claude there', { timeout: 600_000 }, async () => {
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(world.remoteWork, 'print'), { recursive: true });
    const printed = await world.run(['-p', 'ECHO printed by the real claude', ...onLoop('print', { print: true })]);
    expect(printed, printed.stderr).toMatchObject({ code: 0, stdout: 'printed by the real claude\n' });
    expect(JSON.parse((await world.remoteRun(['ls', '--json'])).stdout)).toEqual([]);
  });
});
