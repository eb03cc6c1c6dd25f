import { execFileSync, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorExitCode, UmbelError } from '@umbel/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigInvalidError, configPath, loadConfig } from './config.js';

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'umbel-config-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

async function file(name: string, text: string): Promise<string> {
  const path = join(scratch, name);
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, text);
  return path;
}

async function failure(env: Record<string, string>): Promise<ConfigInvalidError> {
  const error = await loadConfig({ env, cwd: scratch }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'loadConfig should have failed').toBeInstanceOf(ConfigInvalidError);
  expect(UmbelError.isInstance(error)).toBe(true);
  expect(errorExitCode(error)).toBe(2);
  return error as ConfigInvalidError;
}

describe('the config path', () => {
  it('is UMBEL_CONFIG (relative to the cwd), else $XDG_CONFIG_HOME/umbel/config.json, else ~/.config/umbel/config.json', () => {
    expect(configPath({ UMBEL_CONFIG: '/etc/u.json', XDG_CONFIG_HOME: '/x', HOME: '/h' }, '/cwd')).toBe('/etc/u.json');
    expect(configPath({ UMBEL_CONFIG: 'conf/u.json', HOME: '/h' }, '/cwd')).toBe('/cwd/conf/u.json');
    expect(configPath({ XDG_CONFIG_HOME: '/x', HOME: '/h' }, '/cwd')).toBe('/x/umbel/config.json');
    expect(configPath({ HOME: '/h' }, '/cwd')).toBe('/h/.config/umbel/config.json');
    // The XDG spec ignores a relative XDG_CONFIG_HOME; so does umbel.
    expect(configPath({ XDG_CONFIG_HOME: 'rel', HOME: '/h' }, '/cwd')).toBe('/h/.config/umbel/config.json');
    expect(configPath({ UMBEL_CONFIG: '', HOME: '/h' }, '/cwd')).toBe('/h/.config/umbel/config.json');
  });
});

describe('loadConfig', () => {
  it('reads a missing file as an empty config', async () => {
    const loaded = await loadConfig({ env: { HOME: join(scratch, 'nobody') }, cwd: scratch });
    expect(loaded).toEqual({ path: join(scratch, 'nobody', '.config', 'umbel', 'config.json'), exists: false, config: {} });
  });

  it('reads providers and hosts from $XDG_CONFIG_HOME/umbel/config.json', async () => {
    await file(
      'xdg/umbel/config.json',
      JSON.stringify({
        $schema: 'https://example.invalid/umbel-config.json',
        providers: ['umbel-provider-echo', './local.mjs'],
        hosts: { build: { ssh: 'me@build.example', sshArgs: ['-p', '2222'], umbel: '/opt/umbel/bin/umbel' }, mini: { ssh: 'mini' } },
      }),
    );
    const loaded = await loadConfig({ env: { XDG_CONFIG_HOME: join(scratch, 'xdg'), HOME: '/nonexistent' }, cwd: scratch });
    expect(loaded.exists).toBe(true);
    expect(loaded.config.providers).toEqual(['umbel-provider-echo', './local.mjs']);
    expect(loaded.config.hosts).toEqual({
      build: { ssh: 'me@build.example', sshArgs: ['-p', '2222'], umbel: '/opt/umbel/bin/umbel' },
      mini: { ssh: 'mini' },
    });
  });

  it('reads the fleet limits; a bad limit is refused naming the field', async () => {
    const path = await file('limits.json', JSON.stringify({ limits: { maxWorkers: 5, minFreeMemoryMB: 512, queue: true } }));
    expect((await loadConfig({ env: { UMBEL_CONFIG: path }, cwd: scratch })).config.limits).toEqual({ maxWorkers: 5, minFreeMemoryMB: 512, queue: true });
    for (const [body, pattern] of [
      [{ limits: { maxWorkers: 0 } }, /limits\.maxWorkers/],
      [{ limits: { maxWorker: 3 } }, /limits.*maxWorker/],
    ] as const) {
      const bad = await file('bad-limits.json', JSON.stringify(body));
      expect((await failure({ UMBEL_CONFIG: bad })).message).toMatch(pattern);
    }
  });

  it('reads the sandbox default (true or its widenings); a bad one is refused naming the field', async () => {
    const on = await file('sandbox-on.json', JSON.stringify({ sandbox: true }));
    expect((await loadConfig({ env: { UMBEL_CONFIG: on }, cwd: scratch })).config.sandbox).toBe(true);
    const widened = await file('sandbox-widened.json', JSON.stringify({ sandbox: { allow: ['registry.npmjs.org'], write: ['~/.cache/npm'] } }));
    expect((await loadConfig({ env: { UMBEL_CONFIG: widened }, cwd: scratch })).config.sandbox).toEqual({
      allow: ['registry.npmjs.org'],
      write: ['~/.cache/npm'],
    });
    const bad = await file('sandbox-bad.json', JSON.stringify({ sandbox: { allowed: ['x'] } }));
    expect((await failure({ UMBEL_CONFIG: bad })).message).toMatch(/sandbox/);
  });

  it('refuses a file that is not JSON, naming the file and the problem', async () => {
    const path = await file('bad-json.json', '{ "providers": [ "a", ]\n}');
    const error = await failure({ UMBEL_CONFIG: path });
    expect(error.message).toContain(path);
    expect(error.message).toMatch(/not valid JSON/);
    expect(error.path).toBe(path);
  });

  it('refuses an empty file', async () => {
    const path = await file('empty.json', '  \n');
    expect((await failure({ UMBEL_CONFIG: path })).message).toMatch(/empty/);
  });

  it('refuses a wrong shape, naming the field', async () => {
    const cases: [unknown, RegExp][] = [
      [['a'], /expected object/],
      [{ providers: 'umbel-provider-echo' }, /providers: .*expected array/],
      [{ providers: [''] }, /providers\.0/],
      [{ hosts: { build: { sshArgs: [] } } }, /hosts\.build\.ssh/],
      [{ hosts: { build: { ssh: 'x', port: 22 } } }, /hosts\.build.*port/],
      [{ hosts: { 'bad name!': { ssh: 'x' } } }, /hosts/],
      [{ provider: ['typo'] }, /provider/],
    ];
    for (const [body, pattern] of cases) {
      const path = await file('shape.json', JSON.stringify(body));
      const error = await failure({ UMBEL_CONFIG: path });
      expect(error.message, JSON.stringify(body)).toContain(path);
      expect(error.message, JSON.stringify(body)).toMatch(pattern);
    }
  });

  it('refuses a path it cannot read (a directory, no permission)', async () => {
    const dir = join(scratch, 'a-directory.json');
    await mkdir(dir, { recursive: true });
    expect((await failure({ UMBEL_CONFIG: dir })).message).toMatch(/cannot read/);
    if (process.getuid?.() !== 0) {
      const locked = await file('locked.json', '{}');
      await chmod(locked, 0o000);
      expect((await failure({ UMBEL_CONFIG: locked })).message).toMatch(/cannot read.*EACCES|permission/i);
    }
  });

  it('refuses a named pipe as UMBEL_CONFIG at once, naming it (never waits for a writer)', async () => {
    const pipe = join(scratch, 'pipe.json');
    execFileSync('mkfifo', ['-m', '600', pipe]);
    // The valve: an unfixed reader blocks on the pipe; after a while this writes to it, so that
    // reader fails below instead of hanging the run. A fixed one never opens it blocking.
    const valve = spawn('sh', ['-c', 'sleep 8; echo "{}" > "$1"', 'sh', pipe], { stdio: 'ignore' });
    try {
      const error = await failure({ UMBEL_CONFIG: pipe });
      expect(error.message).toContain(pipe);
      expect(error.message).toContain('named pipe');
    } finally {
      valve.kill('SIGKILL');
    }
  });
});
