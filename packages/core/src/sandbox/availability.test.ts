/**
 * probeSandbox (doctor's sandbox line) runs srt once: whatever srt leaves running when it exits —
 * srt SIGTERMs its socat bridges and exits without waiting for them — is gone when the probe
 * resolves, so doctor leaves no process behind (a fresh-clone run under load saw a socat outlive it).
 */
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeSandbox, type SandboxHostFacts } from './availability.js';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'umbel-probe-sandbox-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Pids of live processes whose command line mentions `text`. */
async function processesWith(text: string): Promise<number[]> {
  const pids: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(text)) pids.push(Number(name));
  }
  return pids;
}

describe('probeSandbox', () => {
  it('leaves nothing srt started running once it resolves', async () => {
    const bin = join(root, 'bin');
    await mkdir(bin);
    for (const tool of ['bwrap', 'socat']) {
      await writeFile(join(bin, tool), '#!/bin/sh\n');
      await chmod(join(bin, tool), 0o755);
    }
    // A fake srt: starts a bridge that outlives it (stdio ignored, as srt's socat), then exits 0.
    const srt = join(root, 'fake-srt.cjs');
    await writeFile(
      srt,
      `const { spawn } = require('node:child_process');
const settings = process.argv[process.argv.indexOf('--settings') + 1];
spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)', 'bridge-for', settings], { stdio: 'ignore' }).unref();
`,
    );
    const settingsDir = join(root, 'probe');
    await mkdir(settingsDir);
    const facts: SandboxHostFacts = { platform: 'linux', isRoot: true, readSysctl: () => undefined, srtCli: () => srt };
    expect(await probeSandbox({ PATH: `${bin}:/usr/bin:/bin`, HOME: root }, join(settingsDir, 'settings.json'), facts)).toBeUndefined();
    expect(await processesWith(`bridge-for\0${settingsDir}`)).toEqual([]);
  });

  it('leaves no bridge running that srt started in a session of its own (bwrap runs its socats so)', async () => {
    const srt = join(root, 'fake-srt-session.cjs');
    await writeFile(
      srt,
      `const { spawn } = require('node:child_process');
const settings = process.argv[process.argv.indexOf('--settings') + 1];
spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)', 'own-session-bridge', settings], { stdio: 'ignore', detached: true }).unref();
`,
    );
    const settingsDir = join(root, 'probe-session');
    await mkdir(settingsDir);
    const facts: SandboxHostFacts = { platform: 'linux', isRoot: true, readSysctl: () => undefined, srtCli: () => srt };
    expect(await probeSandbox({ PATH: `${join(root, 'bin')}:/usr/bin:/bin`, HOME: root }, join(settingsDir, 'settings.json'), facts)).toBeUndefined();
    expect(await processesWith(`own-session-bridge\0${settingsDir}`)).toEqual([]);
  });
});
