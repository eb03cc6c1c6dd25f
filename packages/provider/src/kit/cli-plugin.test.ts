import * as cp from 'node:child_process';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { type PluginRuntime, pluginRuntime, renderPluginModule } from './cli-plugin.js';

const root = mkdtempSync(join(tmpdir(), 'umbel-cli-plugin-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const got = join(root, 'got.json');
const runtime = pluginRuntime({ fs, cp }, { hooks: { idle: `cat > '${got}'`, failing: 'exit 3' } });

describe('pluginRuntime', () => {
  it("deliver runs the signal's hook command with the payload, the signal named, as JSON on stdin; no hook, or one that fails, throws nothing", async () => {
    await runtime.deliver('idle', { n: 1 });
    expect(JSON.parse(readFileSync(got, 'utf8'))).toEqual({ event: 'idle', n: 1 });
    await expect(runtime.deliver('no-hook', {})).resolves.toBeUndefined();
    await expect(runtime.deliver('failing', {})).resolves.toBeUndefined();
    const broken = pluginRuntime(
      {
        fs,
        cp: {
          ...cp,
          spawn: () => {
            throw new Error('no sh');
          },
        } as typeof cp,
      },
      { hooks: { idle: 'true' } },
    );
    await expect(broken.deliver('idle', {})).resolves.toBeUndefined();
  });

  it('a hook that never reads its input, or one that hangs past its bound (killed), loses its event and nothing else', { timeout: 15_000 }, async () => {
    const odd = pluginRuntime({ fs, cp }, { hooks: { deaf: 'exit 0', hung: 'sleep 30' }, hookTimeoutMs: 200 });
    await expect(odd.deliver('deaf', { big: 'x'.repeat(1 << 20) })).resolves.toBeUndefined();
    await expect(odd.deliver('hung', {})).resolves.toBeUndefined(); // (unkilled, it outlasts the test's timeout)
  });

  it("deliver leaves the CLI's thread free while the hook runs (a loaded machine makes each hook slow), and resolves once it exited", async () => {
    const slowGot = join(root, 'slow.json');
    const slow = pluginRuntime({ fs, cp }, { hooks: { idle: `sleep 0.3; cat > '${slowGot}'` } });
    let ticked = false;
    const timer = setTimeout(() => (ticked = true), 20);
    try {
      const delivered = slow.deliver('idle', { n: 2 });
      expect(ticked).toBe(false);
      await delivered;
      expect(ticked).toBe(true); // the CLI's timers ran (it drew its screen) while the hook ran
      expect(JSON.parse(readFileSync(slowGot, 'utf8'))).toEqual({ event: 'idle', n: 2 });
    } finally {
      clearTimeout(timer);
    }
  });

  it('writePrivate writes atomically and privately: its dir 0700, the file 0600, no temp left; a failed write throws nothing', () => {
    const file = join(root, 'private', 'nested', 'doc.json');
    runtime.writePrivate(file, '{"a":1}');
    runtime.writePrivate(file, '{"a":2}');
    expect(readFileSync(file, 'utf8')).toBe('{"a":2}');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(root, 'private', 'nested')).mode & 0o777).toBe(0o700);
    expect(readdirSync(join(root, 'private', 'nested'))).toEqual(['doc.json']);
    writeFileSync(join(root, 'a-file'), '');
    expect(() => runtime.writePrivate(join(root, 'a-file', 'doc.json'), 'x')).not.toThrow();
  });

  it('removes the startup-only variables (dropEnv) from the process env as it is made', () => {
    process.env.UMBEL_TEST_STARTUP_ONLY = 'true';
    pluginRuntime({ fs, cp }, { hooks: {}, dropEnv: ['UMBEL_TEST_STARTUP_ONLY'] });
    expect(process.env.UMBEL_TEST_STARTUP_ONLY).toBeUndefined();
  });

  it('serial runs each call after every earlier one, a failed one included', async () => {
    const order: string[] = [];
    const slow = runtime.serial(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      order.push('first');
      throw new Error('failed');
    });
    const next = runtime.serial(async () => order.push('second'));
    await Promise.all([slow, next]);
    expect(order).toEqual(['first', 'second']);
  });
});

/** A plugin as a provider writes one: a self-contained class, everything through its arguments. */
class EchoPlugin {
  declare readonly runtime: PluginRuntime;

  static async main(context: { name: string }, settings: { hooks: Record<string, string>; file: string }, runtime: PluginRuntime) {
    return Object.assign(new EchoPlugin(), { runtime }).load(context.name, settings);
  }

  async load(name: string, settings: { hooks: Record<string, string>; file: string }) {
    await this.runtime.serial(async () => this.runtime.deliver('loaded', { name }));
    this.runtime.writePrivate(settings.file, JSON.stringify({ name, runtimeHas: Object.keys(this.runtime).sort() }));
    return { loaded: true };
  }
}

describe('renderPluginModule', () => {
  it('is a module a plain node loads: its header, one exported factory running the plugin with its settings and the runtime', () => {
    const dir = join(root, 'render');
    const settings = { hooks: { loaded: `cat > '${join(dir, 'delivered.json')}'` }, file: join(dir, 'out', 'doc.json') };
    const text = renderPluginModule({ header: 'written by a test; do not edit', plugin: EchoPlugin, settings, exportName: 'EchoPlugin' });
    expect(text.split('\n')[0]).toBe('// written by a test; do not edit');
    fs.mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'plugin.js'), text);
    // a fresh node process, not this test's module loader (which would rewrite the file as it loads it)
    const driver = `
      const mod = await import(${JSON.stringify(pathToFileURL(join(dir, 'plugin.js')).href)});
      console.log(JSON.stringify({ exports: Object.keys(mod), result: await mod.EchoPlugin({ name: 'ctx' }) }));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', driver], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ exports: ['EchoPlugin'], result: { loaded: true } });
    expect(JSON.parse(readFileSync(join(dir, 'delivered.json'), 'utf8'))).toEqual({ event: 'loaded', name: 'ctx' });
    expect(JSON.parse(readFileSync(settings.file, 'utf8'))).toEqual({ name: 'ctx', runtimeHas: ['cp', 'deliver', 'fs', 'serial', 'writePrivate'] });
  });
});
