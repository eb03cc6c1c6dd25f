// A two-machine world on one machine, for the tests (and the bench) of umbel's remote hosts: a real
// sshd on 127.0.0.1 (./sshd.mjs), a LOCAL state root with a config file naming the hosts, and a
// second state root standing in for the remote machine, whose `umbel` command runs the built bin
// with that root (and its own HOME). Types in remote-world.d.mts.
//
//   const world = await remoteWorld({ prefix: 'umbel-remote-', remoteEnv: { UMBEL_CLAUDE_BIN: fake } });
//   world.run(['spawn', 'w', '--host', 'loop', '--cwd', world.remoteWork]);
//   afterAll(() => world.cleanUp());
//
// Hosts in the config: `loop` (the sshd), `down` (a port nothing listens on), `nocmd` (an umbel
// command that does not exist there), `old` (an umbel there that does not know `rpc`).
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanUp, processesOf, reapProcesses, testEnv, UMBEL_BIN, umbelRunner } from '../real/umbel-helpers.mjs';
import { exitMasters, freePort, startSshd } from './sshd.mjs';

/** `value` quoted for a POSIX shell. */
export function sh(value) {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * @param {{prefix?: string, remoteEnv?: Record<string, string>, localEnv?: Record<string, string>, tmp?: string}} [options]
 */
export async function remoteWorld({ prefix = 'umbel-remote-', remoteEnv = {}, localEnv = {}, tmp = '/tmp' } = {}) {
  // Short paths: the control sockets live under the local root (a socket path is short).
  const root = realpathSync(mkdtempSync(join(tmp || tmpdir(), prefix)));
  let sshd;
  try {
    sshd = await startSshd({ dir: join(root, 'sshd') });
    const dirs = {
      localHome: join(root, 'local'),
      localUser: join(root, 'home'),
      remoteHome: join(root, 'remote'),
      remoteUser: join(root, 'rhome'),
      remoteWork: join(root, 'rwork'),
      localWork: join(root, 'work'),
    };
    for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
    const vars = {
      HOME: dirs.remoteUser,
      UMBEL_HOME: dirs.remoteHome,
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      LANG: 'C.UTF-8',
      ...(process.env.TMUX_TMPDIR ? { TMUX_TMPDIR: process.env.TMUX_TMPDIR } : {}),
      ...remoteEnv,
    };
    const umbelCommand = ['env', ...Object.entries(vars).map(([k, v]) => `${k}=${sh(v)}`), sh(process.execPath), sh(UMBEL_BIN)].join(' ');
    const oldUmbel = join(root, 'old-umbel.sh');
    writeFileSync(
      oldUmbel,
      `#!/bin/sh\nif [ "$1" = --version ]; then echo 'umbel 0.0.9'; exit 0; fi\necho "umbel: unknown verb '$1'; to run a prompt use umbel -p \\"PROMPT\\"" >&2\nexit 2\n`,
    );
    chmodSync(oldUmbel, 0o755);
    const deadPort = await freePort();
    const config = join(root, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        hosts: {
          loop: { ssh: sshd.destination, sshArgs: sshd.sshArgs, umbel: umbelCommand },
          down: { ssh: sshd.destination, sshArgs: [...sshd.sshArgs, '-p', String(deadPort)], umbel: umbelCommand },
          nocmd: { ssh: sshd.destination, sshArgs: sshd.sshArgs, umbel: join(root, 'no-such-dir', 'umbel') },
          old: { ssh: sshd.destination, sshArgs: sshd.sshArgs, umbel: oldUmbel },
        },
      }),
    );
    const env = testEnv({ home: dirs.localUser, umbelHome: dirs.localHome, UMBEL_CONFIG: config, ...localEnv });
    const local = umbelRunner({ cwd: dirs.localWork, env });
    // The remote machine's own umbel, as someone logged in there would run it.
    const remote = umbelRunner({ cwd: dirs.remoteWork, env: testEnv({ home: dirs.remoteUser, umbelHome: dirs.remoteHome, ...remoteEnv }) });
    const controlDir = join(dirs.localHome, 'ssh');
    const world = {
      root,
      sshd,
      config,
      umbelCommand,
      controlDir,
      ...dirs,
      env,
      run: local.run,
      start: local.start,
      remoteRun: remote.run,
      /** The connection masters of this world (ssh processes holding a control socket under the local root). */
      masters: () => processesOf({ argsIncludes: [controlDir] }).filter((p) => p.args.startsWith('ssh')),
      /** The host drops: the sshd and every connection it holds, and this side's connection masters. */
      async drop() {
        await sshd.drop();
        for (const m of world.masters()) {
          try {
            process.kill(m.pid, 'SIGKILL');
          } catch {
            // gone already
          }
        }
      },
      restart: () => sshd.restart(),
      /** Every worker killed and purged (here and there), the masters ended, the sshd stopped, nothing left running. */
      async cleanUp() {
        await sshd.restart().catch(() => undefined);
        await cleanUp({
          workers: [remote.run, local.run],
          verify: [async () => exitMasters({ controlDir, sshArgs: sshd.sshArgs, destination: sshd.destination }), () => sshd.stop()],
          reap: [root],
          remove: [root],
        });
      },
    };
    return world;
  } catch (error) {
    await sshd?.stop().catch(() => undefined);
    await reapProcesses(root).catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}
