/**
 * The ssh command line (only options, the destination and the umbel command: never a value) and
 * how the transport reads an ssh run: the response line among other output, progress before it,
 * and what each way of failing means. A stand-in `ssh` (a shell script) plays the remote side; the
 * real one is exercised against a real sshd in packages/cli/src/e2e-remote.test.ts.
 */
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorExitCode, UmbelError, type WaitProgress } from '@umbel/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { controlDir, remoteCommand, sshArgv, sshEnv } from './ssh.js';
import { sshTransport } from './ssh-transport.js';
import { RPC_VERSION } from './wire.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'umbel-ssh-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the ssh command line', () => {
  it('is BatchMode, the shared connection, the host args, the keep-alives, the destination and the quoted umbel command', () => {
    const host = { ssh: 'me@gpu', sshArgs: ['-p', '2222'], umbel: 'env UMBEL_HOME=/srv/u umbel' };
    expect(sshArgv(host, { controlDir: '/s/ssh', words: ['rpc'] })).toEqual([
      '-o',
      'BatchMode=yes',
      '-o',
      'ControlMaster=auto',
      '-o',
      'ControlPath=/s/ssh/%C',
      '-o',
      'ControlPersist=60s',
      '-p',
      '2222',
      '-o',
      'ConnectTimeout=15',
      '-o',
      'ServerAliveInterval=10',
      '-o',
      'ServerAliveCountMax=3',
      '-T',
      '--',
      'me@gpu',
      'env UMBEL_HOME=/srv/u umbel rpc',
    ]);
    expect(sshArgv({ ssh: 'gpu' }, { controlDir: '/s', words: ['attach', 'w1'], tty: true }).slice(-4)).toEqual(['-t', '--', 'gpu', 'umbel attach w1']);
    expect(remoteCommand({ ssh: 'gpu' }, ['attach', "it's"])).toBe(`umbel attach 'it'\\''s'`);
  });

  it('keeps the control sockets under the state root, or in a short private folder when that path is too long for a socket', () => {
    expect(controlDir('/home/me/.local/state/umbel')).toBe('/home/me/.local/state/umbel/ssh');
    const long = `/home/me/${'x'.repeat(60)}/umbel`;
    const short = controlDir(long, '/tmp');
    expect(short).toMatch(/^\/tmp\/umbel-ssh-\d+-[0-9a-f]{12}$/);
    expect(controlDir(long, '/tmp')).toBe(short);
    expect(controlDir(`${long}2`, '/tmp')).not.toBe(short);
    // `<dir>/<40 hex>.<16 random>` fits a unix socket path (107 bytes).
    expect(`${short}/${'f'.repeat(40)}.${'r'.repeat(16)}`.length).toBeLessThanOrEqual(107);
  });

  it("ssh gets only what it needs of umbel's environment (no secret can leave by a SendEnv)", () => {
    expect(sshEnv({ PATH: '/bin', HOME: '/h', SSH_AUTH_SOCK: '/a', ANTHROPIC_API_KEY: 'k', LC_SECRET: 's', TERM: 'xterm' })).toEqual({
      PATH: '/bin',
      HOME: '/h',
      SSH_AUTH_SOCK: '/a',
      TERM: 'xterm',
    });
  });
});

/** A stand-in ssh: `body` is sh that sees the request on stdin. Its argv is saved to argv.txt. */
async function fakeSsh(body: string): Promise<string> {
  const bin = join(dir, 'ssh');
  await writeFile(bin, `#!/bin/sh\nprintf '%s\\n' "$@" > '${dir}/argv.txt'\n${body}\n`);
  await chmod(bin, 0o755);
  return bin;
}

const hosts = { gpu: { ssh: 'gpu', umbel: 'umbel' } };
const request = { v: RPC_VERSION, op: 'status' as const, options: { name: 'w1' } };

async function failure(body: string): Promise<UmbelError> {
  const transport = sshTransport({ hosts, env: { PATH: process.env.PATH }, home: join(dir, 'home'), bin: await fakeSsh(body) });
  try {
    await transport('gpu', request);
  } catch (error) {
    if (UmbelError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('no error');
}

describe('one request over ssh', () => {
  it('writes the request on stdin, reads progress and the response among what else the shell printed', async () => {
    const bin = await fakeSsh(
      `read line; printf '%s\\n' "$line" > '${dir}/request.txt'; echo 'Welcome to gpu'; echo '{"progress":{"worker":"w1","turn":2,"elapsedMs":5}}'; echo '{"ok":true,"value":{"name":"w1"}}'`,
    );
    const progress: WaitProgress[] = [];
    const transport = sshTransport({ hosts, env: { PATH: process.env.PATH }, home: join(dir, 'home'), bin });
    expect(await transport('gpu', request, { onProgress: (p) => progress.push(p) })).toEqual({ name: 'w1' });
    expect(progress).toEqual([{ worker: 'w1', turn: 2, elapsedMs: 5 }]);
    expect(JSON.parse(await readFile(join(dir, 'request.txt'), 'utf8'))).toEqual(request);
    const argv = (await readFile(join(dir, 'argv.txt'), 'utf8')).trim().split('\n');
    expect(argv.slice(-3)).toEqual(['--', 'gpu', 'umbel rpc']);
    expect(argv.join(' ')).not.toContain('w1');
    // The control socket folder is private.
    expect((await stat(join(dir, 'home', 'ssh'))).mode & 0o777).toBe(0o700);
  });

  it("a host's typed error keeps its code (and so its exit code)", async () => {
    const error = await failure(`echo '{"ok":false,"error":{"code":"UMBEL_WORKER_DEAD","name":"WorkerDeadError","message":"worker w1 is dead (exit 1)"}}'`);
    expect(error).toMatchObject({ code: 'UMBEL_WORKER_DEAD', name: 'WorkerDeadError', message: 'host gpu: worker w1 is dead (exit 1)' });
    expect(errorExitCode(error)).toBe(125);
  });

  it('ssh exit 255 is an unreachable host, with what ssh said', async () => {
    const error = await failure(`echo 'ssh: connect to host gpu port 22: Connection refused' >&2; exit 255`);
    expect(error).toMatchObject({ code: 'UMBEL_HOST_UNREACHABLE', message: "host 'gpu' is unreachable: ssh: connect to host gpu port 22: Connection refused" });
    expect(errorExitCode(error)).toBe(120);
  });

  it('exit 127 is a missing command on the host, naming the host and the command', async () => {
    const error = await failure(`echo 'bash: line 1: umbel: command not found' >&2; exit 127`);
    expect(error).toMatchObject({ code: 'UMBEL_HOST_COMMAND_MISSING', message: "host 'gpu' cannot run 'umbel': bash: line 1: umbel: command not found" });
  });

  it('an umbel there that does not know rpc: its version is named', async () => {
    const error = await failure(`case "$*" in *--version*) echo 'umbel 0.0.9'; exit 0;; esac; echo "umbel: unknown verb 'rpc'" >&2; exit 2`);
    expect(error).toMatchObject({ code: 'UMBEL_HOST_INCOMPATIBLE' });
    expect(error.message).toContain('umbel 0.0.9');
  });

  it('an ssh that cannot be started is named', async () => {
    const transport = sshTransport({ hosts, env: { PATH: process.env.PATH }, home: join(dir, 'home'), bin: join(dir, 'no-ssh-here') });
    await expect(transport('gpu', request)).rejects.toMatchObject({
      code: 'UMBEL_HOST_UNREACHABLE',
      message: expect.stringContaining('ssh cannot be started here'),
    });
  });

  it('a deadline ends a call that gets no answer; a cancelled call ends at once', async () => {
    const bin = await fakeSsh('exec sleep 30');
    const transport = sshTransport({ hosts, env: { PATH: process.env.PATH }, home: join(dir, 'home'), bin });
    await expect(transport('gpu', request, { deadlineMs: 200 })).rejects.toMatchObject({
      code: 'UMBEL_HOST_UNREACHABLE',
      message: expect.stringContaining('no answer within 200ms'),
    });
    const controller = new AbortController();
    const call = transport('gpu', request, { signal: controller.signal });
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'UMBEL_ABORTED' });
  });

  it('an unknown host is a usage error', async () => {
    const transport = sshTransport({ hosts, env: {}, home: join(dir, 'home'), bin: 'ssh' });
    await expect(transport('nope', request)).rejects.toMatchObject({ code: 'UMBEL_HOST_UNKNOWN' });
  });
});
