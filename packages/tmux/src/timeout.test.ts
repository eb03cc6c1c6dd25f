import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UmbelErrorCode } from '@umbel/core';
import { afterEach, describe, expect, it } from 'vitest';
import { alive, baseEnv, tempDir, until } from './__fixtures__/harness.js';
import { createTmuxSubstrate } from './index.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('an unresponsive tmux', () => {
  it('inspect, list, launch, kill reject with UMBEL_TMUX_TIMEOUT and the client group is killed', async () => {
    const root = await tempDir('umbel-tmux-hang-');
    dirs.push(root);
    const bin = join(root, 'bin');
    const pids = join(root, 'pids');
    await mkdir(bin);
    // A fake tmux that never answers (and has a child, to prove the whole group is killed).
    await writeFile(join(bin, 'tmux'), `#!/bin/sh\necho $$ >> '${pids}'\nsleep 1000 &\necho $! >> '${pids}'\nwait\n`);
    await chmod(join(bin, 'tmux'), 0o755);
    const substrate = createTmuxSubstrate({
      home: join(root, 'home'),
      env: baseEnv({ PATH: `${bin}:${process.env['PATH'] ?? '/usr/bin:/bin'}` }),
      callTimeoutMs: 1000,
    });
    // The message names the tmux command (the verb), never a leading flag such as `-u`.
    const expectTimeout = async (promise: Promise<unknown>, verb?: string) => {
      const error = await promise.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ name: 'SubstrateError', code: UmbelErrorCode.TmuxTimeout, timedOut: true });
      expect((error as Error).message).not.toMatch(/\(-/);
      if (verb) expect((error as Error).message).toMatch(new RegExp(`tmux did not answer within \\d+ ms \\(${verb}\\b`));
    };
    await expectTimeout(substrate.inspect('umbel-x'));
    await expectTimeout(substrate.list(), 'list-');
    await expectTimeout(substrate.kill('umbel-x'));
    await expectTimeout(substrate.capture('umbel-x'), 'capture-pane');
    await expectTimeout(substrate.launch({ session: 'umbel-x', cwd: root, argv: ['sleep', '1'], env: { K: 'v' }, exitRecordDir: root }));
    const started = (await readFile(pids, 'utf8')).trim().split('\n').map(Number);
    expect(started.length).toBeGreaterThanOrEqual(10);
    for (const pid of started) await until(async () => !(await alive(pid)));
  });
});

describe('a missing tmux', () => {
  it('rejects with UMBEL_TMUX_UNAVAILABLE', async () => {
    const root = await tempDir('umbel-tmux-missing-');
    dirs.push(root);
    const substrate = createTmuxSubstrate({ home: root, env: baseEnv({ PATH: join(root, 'empty') }) });
    await expect(substrate.list()).rejects.toMatchObject({ code: UmbelErrorCode.TmuxUnavailable });
    await expect(substrate.inspect('umbel-x')).rejects.toMatchObject({ code: UmbelErrorCode.TmuxUnavailable });
    const explicit = createTmuxSubstrate({ home: root, tmuxBin: join(root, 'no-such-tmux') });
    await expect(explicit.list()).rejects.toMatchObject({ code: UmbelErrorCode.TmuxUnavailable });
    // UMBEL_TMUX_BIN names the executable when the tmuxBin setting does not.
    const viaEnv = createTmuxSubstrate({ home: root, env: baseEnv({ UMBEL_TMUX_BIN: join(root, 'env-tmux') }) });
    await expect(viaEnv.list()).rejects.toMatchObject({ code: UmbelErrorCode.TmuxUnavailable, message: expect.stringContaining('env-tmux') });
    expect(viaEnv.attachCommand('umbel-a').file).toBe(join(root, 'env-tmux'));
    const both = createTmuxSubstrate({ home: root, tmuxBin: join(root, 'set-tmux'), env: baseEnv({ UMBEL_TMUX_BIN: join(root, 'env-tmux') }) });
    await expect(both.list()).rejects.toMatchObject({ message: expect.stringContaining('set-tmux') });
  });
});

describe('many calls at once', () => {
  it('run at most maxConcurrentCalls tmux clients at a time, and every call is answered', async () => {
    const root = await tempDir('umbel-tmux-busy-');
    dirs.push(root);
    const bin = join(root, 'bin');
    const running = join(root, 'running');
    const peak = join(root, 'peak');
    await mkdir(bin);
    await mkdir(running);
    // A fake tmux that takes a moment and records the most clients it saw alive at once.
    await writeFile(
      join(bin, 'tmux'),
      `#!/bin/sh\ntouch '${running}'/$$\nn=$(ls '${running}' | wc -l)\necho $n >> '${peak}'\nsleep 0.2\nrm -f '${running}'/$$\nexit 1\n`,
    );
    await chmod(join(bin, 'tmux'), 0o755);
    const substrate = createTmuxSubstrate({
      home: join(root, 'home'),
      env: baseEnv({ PATH: `${bin}:${process.env['PATH'] ?? '/usr/bin:/bin'}` }),
      maxConcurrentCalls: 3,
    });
    const answers = await Promise.allSettled(Array.from({ length: 12 }, () => substrate.capture('umbel-x')));
    expect(answers.every((a) => a.status === 'rejected' && (a.reason as { code?: string }).code === UmbelErrorCode.TmuxFailed)).toBe(true);
    const seen = (await readFile(peak, 'utf8')).trim().split('\n').map(Number);
    expect(seen).toHaveLength(12);
    expect(Math.max(...seen)).toBeLessThanOrEqual(3);
  });
});
