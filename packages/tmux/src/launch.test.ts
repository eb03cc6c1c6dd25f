/**
 * launchSession against a scripted client: how it reads tmux's answers to the launch invocation.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UmbelErrorCode, type PaneState } from '@umbel/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { TmuxResult } from './run-tmux.js';
import type { TmuxClient } from './tmux-client.js';
import { launchSession, type LaunchHost } from './tmux-launch.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A host whose client answers the launch invocations in turn from `answers`; the pane exists once one succeeded. */
async function scriptedHost(answers: TmuxResult[]): Promise<{ host: LaunchHost; launches: () => number; deleted: string[] }> {
  const home = await mkdtemp(join(tmpdir(), 'umbel-launch-'));
  dirs.push(home);
  let launches = 0;
  let made = false;
  const deleted: string[] = [];
  const client: TmuxClient = {
    async call(commands) {
      if (!commands.some((command) => command[0] === 'new-session')) throw new Error(`unexpected call ${JSON.stringify(commands)}`);
      const answer = answers[launches] ?? { code: 0, stdout: '', stderr: '' };
      launches += 1;
      if (answer.code === 0) made = true;
      return answer;
    },
    async deleteBuffer(buffer) {
      deleted.push(buffer);
    },
  };
  const inspect = async (): Promise<PaneState> => (made ? { exists: true, dead: false } : { exists: false, dead: true });
  return {
    host: { client, home, tmuxBin: '/usr/bin/tmux', socket: 'umbel-test', clientEnv: { PATH: '/usr/bin:/bin' }, inspect },
    launches: () => launches,
    deleted,
  };
}

const launchIn = (host: LaunchHost) =>
  launchSession(host, { session: 'umbel-one', cwd: host.home, argv: ['/bin/true'], env: {}, exitRecordDir: join(host.home, 'events') });

const gone = (stderr: string): TmuxResult => ({ code: 1, stdout: '', stderr });

describe('launchSession', () => {
  it.each([
    'server exited unexpectedly',
    'lost server',
  ])('launches again when the server exits under the launch (%s: the kill of its last session ends it as the client connects)', async (stderr) => {
    const { host, launches, deleted } = await scriptedHost([gone(`${stderr}\n`)]);
    await launchIn(host);
    expect(launches()).toBe(2);
    expect(deleted).toEqual([]);
  });

  it('gives up after three attempts that each met a server going away, and deletes the buffer', async () => {
    const { host, launches, deleted } = await scriptedHost([gone('server exited unexpectedly'), gone('lost server'), gone('server exited unexpectedly')]);
    await expect(launchIn(host)).rejects.toMatchObject({ code: UmbelErrorCode.TmuxFailed, message: expect.stringContaining('server exited unexpectedly') });
    expect(launches()).toBe(3);
    expect(deleted).toHaveLength(1);
  });

  it('never launches again after any other failure (a duplicate, a bad option)', async () => {
    for (const stderr of ['duplicate session: umbel-one', 'unknown option -- z']) {
      const { host, launches } = await scriptedHost([gone(stderr)]);
      await expect(launchIn(host)).rejects.toMatchObject({ code: expect.any(String) });
      expect(launches()).toBe(1);
    }
  });
});
