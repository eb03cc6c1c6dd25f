import { join } from 'node:path';
import { SubstrateError } from '@umbel/core';
import { afterEach, describe, expect, it } from 'vitest';
import { makeRig, type Rig, until } from './__fixtures__/harness.js';

const rigs: Rig[] = [];
afterEach(async () => {
  for (const rig of rigs.splice(0)) await rig.cleanup();
});

async function rigWith(session: string, script: string): Promise<Rig> {
  const r = await makeRig();
  rigs.push(r);
  await r.substrate.launch({
    session,
    cwd: r.home,
    argv: ['/bin/sh', '-c', script],
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: r.home },
    exitRecordDir: join(r.home, 'events'),
    width: 120,
    height: 40,
  });
  return r;
}

/** The control clients attached to the rig's server. */
function controlClients(r: Rig): string[] {
  return r
    .tmux('list-clients', '-F', '#{client_name} #{client_flags}')
    .stdout.split('\n')
    .filter((line) => line.includes('control-mode'));
}

describe('watchScreen (a tmux control client)', () => {
  it('captures what capture captures, tells each print, and leaves the window size alone', async () => {
    const r = await rigWith('umbel-sw1', 'printf "first line\\n\\nthird ❯ line\\n"; read go; echo "after $go"; sleep 30');
    await until(async () => (await r.substrate.capture('umbel-sw1')).includes('third'));
    let outputs = 0;
    const watch = await r.substrate.watchScreen?.('umbel-sw1', () => {
      outputs += 1;
    });
    expect(watch).toBeDefined();
    if (!watch) return;
    try {
      expect(await watch.capture({ lines: 60 })).toBe(await r.substrate.capture('umbel-sw1', { lines: 60 }));
      expect(await watch.capture()).toBe(await r.substrate.capture('umbel-sw1'));
      expect(controlClients(r)).toHaveLength(1);
      expect(r.tmux('display-message', '-p', '-t', '=umbel-sw1:', '#{window_width}x#{window_height}').stdout.trim()).toBe('120x40');
      expect(outputs).toBe(0);
      await r.substrate.typeText('umbel-sw1', 'now');
      await r.substrate.sendKeys('umbel-sw1', ['Enter']);
      await until(() => outputs > 0);
      await until(async () => (await watch.capture()).includes('after now'));
    } finally {
      await watch.close();
    }
    await until(() => controlClients(r).length === 0);
    await expect(watch.capture()).rejects.toBeInstanceOf(SubstrateError);
    await watch.close();
  });

  it('refuses a session that does not exist, leaving no client behind', async () => {
    const r = await rigWith('umbel-sw2', 'sleep 30');
    await expect(r.substrate.watchScreen?.('umbel-sw-none', () => {})).rejects.toBeInstanceOf(SubstrateError);
    expect(controlClients(r)).toHaveLength(0);
  });

  it('fails its captures once the session is gone, and its client goes with it', async () => {
    const r = await rigWith('umbel-sw3', 'sleep 30');
    const watch = await r.substrate.watchScreen?.('umbel-sw3', () => {});
    if (!watch) throw new Error('no watchScreen');
    await r.substrate.kill('umbel-sw3');
    await expect(watch.capture()).rejects.toBeInstanceOf(SubstrateError);
    await watch.close();
    await until(() => controlClients(r).length === 0);
  });
});
