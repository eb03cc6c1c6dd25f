// A real OpenSSH server on the loopback interface, for the tests of umbel's remote hosts: its own
// port, a host key and a client key generated in a temp dir, its own sshd_config (PidFile, keys and
// authorized_keys in that dir), run in the foreground (`-D -e`) as a child of the test process.
// Dependency-free Node ESM; the types are in sshd.d.mts.
//
//   const sshd = await startSshd({ dir });          // dir: a fresh temp dir of the test
//   host config: { ssh: sshd.destination, sshArgs: sshd.sshArgs }
//   await sshd.drop();      // the host goes away: the server and every connection it holds
//   await sshd.restart();   // back on the same port, same host key
//   await sshd.stop();      // at the end: no process of it is left
//
// As root, sshd needs its privilege separation directory (/run/sshd, which the openssh-server
// service creates at boot): created when missing.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';

/** Where sshd is (PATH first, then the usual sbin folders). */
export function sshdPath() {
  for (const dir of [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/local/sbin', '/sbin']) {
    if (dir && existsSync(join(dir, 'sshd'))) return join(dir, 'sshd');
  }
  throw new Error('sshd is not installed (apt-get install openssh-server); the remote-host tests need a real sshd on 127.0.0.1');
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort() {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePromise(port));
    });
  });
}

function keygen(path) {
  const r = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'umbel-test', '-f', path], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ssh-keygen failed: ${r.stderr || r.error}`);
}

/** The parent pid of a process, from /proc (undefined once it is gone). */
function parentOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** Every live descendant of `root` (children first found, depth-first), from /proc. */
export function descendantsOf(root) {
  const parents = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const ppid = parentOf(Number(entry));
    if (ppid !== undefined) parents.set(Number(entry), ppid);
  }
  const out = [];
  const walk = (pid) => {
    for (const [child, ppid] of parents) {
      if (ppid === pid) {
        out.push(child);
        walk(child);
      }
    }
  };
  walk(root);
  return out;
}

const alive = (pid) => existsSync(`/proc/${pid}`) && !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));

async function gone(pids, timeoutMs) {
  const until = Date.now() + timeoutMs;
  while (pids.some((pid) => safeAlive(pid)) && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
  return !pids.some((pid) => safeAlive(pid));
}

function safeAlive(pid) {
  try {
    return alive(pid);
  } catch {
    return false;
  }
}

function signal(pids, sig) {
  for (const pid of pids) {
    try {
      process.kill(pid, sig);
    } catch {
      // gone already
    }
  }
}

/**
 * Start a real sshd on 127.0.0.1 that lets the current user in with a generated key (and nothing
 * else: no password, no PAM). `dir` holds everything it uses.
 * @param {{dir: string}} options
 */
export async function startSshd({ dir }) {
  const bin = sshdPath();
  if (typeof process.getuid === 'function' && process.getuid() === 0 && !existsSync('/run/sshd')) mkdirSync('/run/sshd', { mode: 0o755 });
  mkdirSync(join(dir, 'home'), { recursive: true });
  chmodSync(dir, 0o700);
  const hostKey = join(dir, 'host_key');
  const clientKey = join(dir, 'client_key');
  keygen(hostKey);
  keygen(clientKey);
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(`${clientKey}.pub`), { mode: 0o600 });
  const user = userInfo().username;
  const pidFile = join(dir, 'sshd.pid');
  const knownHosts = join(dir, 'known_hosts');
  let port = await freePort();
  let child;
  let log = '';

  const writeConfigs = () => {
    writeFileSync(
      join(dir, 'sshd_config'),
      [
        'ListenAddress 127.0.0.1',
        `Port ${port}`,
        `HostKey ${hostKey}`,
        `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
        `AllowUsers ${user}`,
        'PermitRootLogin prohibit-password',
        'PubkeyAuthentication yes',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'UsePAM no',
        'StrictModes no',
        'PermitUserEnvironment no',
        // The login shell runs with a home of its own: the machine user's ~/.bashrc (sourced by bash
        // for every ssh command) is not this test's — one here ran `pyenv rehash`, which waits 60 s on
        // a lock a killed session left, for every command. Each test sets its remote HOME itself.
        `SetEnv HOME=${join(dir, 'home')}`,
        'X11Forwarding no',
        'PrintMotd no',
        'UseDNS no',
        `PidFile ${pidFile}`,
        'LogLevel INFO',
        '',
      ].join('\n'),
    );
    // The client side: one alias for the server, another for a port nothing listens on.
    writeFileSync(
      join(dir, 'ssh_config'),
      [
        'Host umbel-loopback',
        '  HostName 127.0.0.1',
        `  Port ${port}`,
        `  User ${user}`,
        `  IdentityFile ${clientKey}`,
        '  IdentitiesOnly yes',
        `  UserKnownHostsFile ${knownHosts}`,
        '  StrictHostKeyChecking accept-new',
        '  LogLevel ERROR',
        '',
      ].join('\n'),
    );
  };

  const launch = async () => {
    writeConfigs();
    log = '';
    child = spawn(bin, ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr.setEncoding('utf8');
    const listening = await new Promise((resolvePromise) => {
      const onData = (d) => {
        log += d;
        if (log.includes('Server listening')) resolvePromise(true);
      };
      child.stderr.on('data', onData);
      child.on('exit', () => resolvePromise(false));
    });
    if (!listening) throw new Error(`sshd did not start on port ${port}:\n${log}`);
  };

  const drop = async () => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const listener = child.pid;
    const sessions = descendantsOf(listener).filter((pid) => safeCmdline(pid).startsWith('sshd'));
    // The listener first (no new connection), then every connection it holds, at once.
    signal([listener], 'SIGKILL');
    signal(sessions, 'SIGKILL');
    await gone([listener], 10_000);
    // Reap the listener's exit status.
    await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', r)));
  };

  for (let attempt = 0; ; attempt++) {
    try {
      await launch();
      break;
    } catch (error) {
      if (attempt >= 4 || !/Address already in use|Bind to port/.test(String(error.message))) throw error;
      port = await freePort();
    }
  }

  return {
    dir,
    get port() {
      return port;
    },
    destination: 'umbel-loopback',
    sshArgs: ['-F', join(dir, 'ssh_config')],
    clientKey,
    knownHosts,
    get pid() {
      return child?.pid;
    },
    get log() {
      return log;
    },
    /** The processes of the server: the listener and every connection's (not what they started). */
    processes() {
      if (!child?.pid || !safeAlive(child.pid)) return [];
      return [child.pid, ...descendantsOf(child.pid).filter((pid) => safeCmdline(pid).startsWith('sshd'))];
    },
    drop,
    async restart() {
      await drop();
      for (let attempt = 0; ; attempt++) {
        try {
          await launch();
          return;
        } catch (error) {
          if (attempt >= 20) throw error;
          await new Promise((r) => setTimeout(r, 250));
        }
      }
    },
    async stop() {
      const pids = child?.pid ? [child.pid, ...descendantsOf(child.pid)] : [];
      await drop();
      signal(pids, 'SIGKILL');
      if (!(await gone(pids, 10_000))) throw new Error(`sshd processes left: ${pids.filter(safeAlive).join(', ')}`);
    },
  };
}

function safeCmdline(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/**
 * End the SSH connection masters whose control sockets live in `controlDir` (`ssh -O exit`), as a
 * test's cleanup: a master left by ControlPersist would otherwise outlive the test by its persist time.
 * @param {{controlDir: string, sshArgs: string[], destination: string}} options
 */
export function exitMasters({ controlDir, sshArgs, destination }) {
  if (!existsSync(controlDir)) return;
  for (const socket of readdirSync(controlDir)) {
    spawnSync('ssh', [...sshArgs, '-o', `ControlPath=${join(controlDir, socket)}`, '-O', 'exit', destination], { stdio: 'ignore', timeout: 10_000 });
  }
}
