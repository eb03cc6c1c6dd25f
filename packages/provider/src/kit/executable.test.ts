import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpawnFailedError, UmbelError } from '../errors.js';
import { binEnvName, ExecutableNotFoundError, resolveExecutable } from './executable.js';

let root: string;
let binDir: string;
let onPath: string;
let other: string;

async function executable(path: string): Promise<string> {
  await writeFile(path, '#!/bin/sh\nexit 0\n');
  await chmod(path, 0o755);
  return path;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'umbel-kit-exe-'));
  binDir = join(root, 'bin');
  await mkdir(binDir);
  onPath = await executable(join(binDir, 'echo-cli'));
  other = await executable(join(root, 'other-echo'));
  await writeFile(join(root, 'not-executable'), 'x');
  await mkdir(join(root, 'a-directory'));
  await chmod(join(root, 'a-directory'), 0o755);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const query = (callerEnv: Record<string, string | undefined>, configured?: string) => ({
  providerId: 'echo',
  displayName: 'Echo CLI',
  name: 'echo-cli',
  install: 'npm install -g echo-cli',
  callerEnv,
  ...(configured ? { configured } : {}),
});

async function failure(promise: Promise<unknown>): Promise<ExecutableNotFoundError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ExecutableNotFoundError);
  return error as ExecutableNotFoundError;
}

describe('the one executable rule: UMBEL_<ID>_BIN, then settings, then PATH', () => {
  it('names the variable after the id', () => {
    expect(binEnvName('claude')).toBe('UMBEL_CLAUDE_BIN');
    expect(binEnvName('gemini-2')).toBe('UMBEL_GEMINI_2_BIN');
  });

  it('takes UMBEL_<ID>_BIN over the settings and PATH, then the settings over PATH, then PATH', async () => {
    expect(await resolveExecutable(query({ PATH: binDir, UMBEL_ECHO_BIN: other }, onPath))).toBe(other);
    expect(await resolveExecutable(query({ PATH: binDir }, other))).toBe(other);
    expect(await resolveExecutable(query({ PATH: `relative:/nonexistent:${binDir}` }))).toBe(onPath);
  });

  it('looks a bare name from the variable or the settings up on PATH, and makes a relative path absolute', async () => {
    expect(await resolveExecutable(query({ PATH: binDir, UMBEL_ECHO_BIN: 'echo-cli' }))).toBe(onPath);
    expect(await resolveExecutable(query({ PATH: '/nonexistent', UMBEL_ECHO_BIN: relative(process.cwd(), other) }))).toBe(other);
  });

  it('an empty variable counts as unset', async () => {
    expect(await resolveExecutable(query({ PATH: binDir, UMBEL_ECHO_BIN: '' }))).toBe(onPath);
  });

  it('refuses a set value that is not an executable file, naming where it looked, without falling through to PATH', async () => {
    for (const bad of [join(root, 'not-executable'), join(root, 'a-directory'), join(root, 'missing')]) {
      const error = await failure(resolveExecutable(query({ PATH: binDir, UMBEL_ECHO_BIN: bad })));
      expect(error.message).toBe(`Echo CLI executable '${bad}' from UMBEL_ECHO_BIN is not an executable file`);
      expect(error.looked).toEqual({ source: 'env', name: 'UMBEL_ECHO_BIN', value: bad, searched: [bad] });
    }
    const fromSettings = await failure(resolveExecutable(query({ PATH: binDir }, join(root, 'not-executable'))));
    expect(fromSettings.message).toContain('from the provider settings (binary) is not an executable file');
  });

  it('never takes a binary through a relative PATH entry', async () => {
    await failure(resolveExecutable(query({ PATH: relative(process.cwd(), binDir) })));
  });

  it('not found on PATH: a typed spawn failure naming the PATH searched, how to install, and the variable', async () => {
    const error = await failure(resolveExecutable(query({ PATH: `/nonexistent:${root}` })));
    expect(error).toBeInstanceOf(SpawnFailedError);
    expect(UmbelError.isInstance(error)).toBe(true);
    expect(error.code).toBe('UMBEL_SPAWN_FAILED');
    expect(error.message).toBe(`Echo CLI (\`echo-cli\`) was not found on PATH (/nonexistent:${root})`);
    expect(error.hint).toContain('npm install -g echo-cli');
    expect(error.hint).toContain('UMBEL_ECHO_BIN');
    const named = await failure(resolveExecutable(query({ PATH: '/nonexistent', UMBEL_ECHO_BIN: 'nope-cli' })));
    expect(named.message).toBe("Echo CLI executable 'nope-cli' from UMBEL_ECHO_BIN was not found on PATH (/nonexistent)");
    expect((await failure(resolveExecutable(query({})))).message).toContain('PATH (empty)');
  });
});
