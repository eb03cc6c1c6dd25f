import { spawnSync } from 'node:child_process';
import { mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UmbelErrorCode } from '@umbel/core';
import { afterEach, describe, expect, it } from 'vitest';
import { alive, baseEnv, exitRecords, makeRig, tempDir, until, type Rig } from './__fixtures__/harness.js';
import { createTmuxSubstrate, LAUNCH_SCRIPT } from './index.js';

const rigs: Rig[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const rig of rigs.splice(0)) await rig.cleanup();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function rig(options: Parameters<typeof makeRig>[0] = {}): Promise<Rig> {
  const made = await makeRig(options);
  rigs.push(made);
  return made;
}

async function dir(prefix: string): Promise<string> {
  const made = await tempDir(prefix);
  dirs.push(made);
  return made;
}

/** A launch with a sh script as the worker, a PATH and a HOME. */
function shLaunch(r: Rig, session: string, script: string, extra: { exitRecordDir?: string; args?: string[]; env?: Record<string, string> } = {}) {
  return r.substrate.launch({
    session,
    cwd: r.home,
    argv: ['/bin/sh', '-c', script, 'worker', ...(extra.args ?? [])],
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: r.home, ...extra.env },
    exitRecordDir: extra.exitRecordDir ?? join(r.home, 'events'),
  });
}

describe('launch, inspect, list, capture, typing', () => {
  it('starts a live pane on the private socket with the wrapper written idempotently', async () => {
    const r = await rig();
    await shLaunch(r, 'umbel-live', 'echo started-$((40+2)); exec sleep 1000');
    const state = await r.substrate.inspect('umbel-live');
    expect(state).toMatchObject({ exists: true, dead: false });
    expect(state.pid).toBeGreaterThan(0);
    expect(await r.substrate.list()).toEqual(['umbel-live']);
    expect(await until(async () => (await r.substrate.capture('umbel-live')).includes('started-42'))).toBe(true);
    const script = join(r.home, 'hooks', 'launch.sh');
    expect(await readFile(script, 'utf8')).toBe(LAUNCH_SCRIPT);
    expect((await stat(script)).mode & 0o777).toBe(0o755);
    // The pane's tree: the wrapper and the worker under it.
    const tree = await r.substrate.processTree('umbel-live');
    expect(tree[0]).toBe(state.pid);
    expect(tree.length).toBeGreaterThanOrEqual(2);
    // The socket really is the private one (and on the caller's TMUX_TMPDIR).
    expect(r.tmux('list-sessions', '-F', '#{session_name}').stdout.trim()).toBe('umbel-live');
    // No env buffer left behind.
    expect(r.tmux('list-buffers').stdout).toBe('');
  });

  it('passes argv exactly (semicolons, formats, quotes) and the cwd verbatim', async () => {
    const r = await rig();
    const out = join(await dir('umbel-argv-'), 'argv.json');
    const cwd = join(r.home, 'odd #{pane_id} dir;');
    await mkdir(cwd);
    const argv = ['a;', ';', 'b\\;', '#{session_name}', "it's", '$(id)', '', '{', '}', '-t', 'ünï'];
    await r.substrate.launch({
      session: 'umbel-argv',
      cwd,
      argv: [
        process.execPath,
        '-e',
        'require("fs").writeFileSync(process.argv[1], JSON.stringify({argv: process.argv.slice(2), cwd: process.cwd()}))',
        out,
        ...argv,
      ],
      env: { PATH: process.env['PATH'] ?? '' },
      exitRecordDir: join(r.home, 'events'),
    });
    const seen = await until(async () => (JSON.parse(await readFile(out, 'utf8').catch(() => 'null')) as { argv: string[]; cwd: string } | null) ?? undefined);
    expect(seen.argv).toEqual(argv);
    expect(seen.cwd).toBe(cwd);
  });

  it('types literal text and presses keys', async () => {
    const r = await rig();
    await shLaunch(r, 'umbel-type', 'printf "ready>"; IFS= read -r line; printf "got[%s]\\n" "$line"; exec sleep 1000');
    await until(async () => (await r.substrate.capture('umbel-type')).includes('ready>'));
    await r.substrate.typeText('umbel-type', `it's "x" $HOME; \\ é;`);
    await r.substrate.sendKeys('umbel-type', ['Enter']);
    const screen = await until(async () => {
      const text = await r.substrate.capture('umbel-type');
      return text.includes('got[') ? text : undefined;
    });
    expect(screen).toContain(`got[it's "x" $HOME; \\ é;]`);
  });

  it('answers "gone" for unknown sessions and for no server, and list() is [] without a server', async () => {
    const r = await rig();
    expect(await r.substrate.list()).toEqual([]);
    expect(await r.substrate.inspect('umbel-none')).toEqual({ exists: false, dead: true });
    expect(await r.substrate.processTree('umbel-none')).toEqual([]);
    await shLaunch(r, 'umbel-one', 'exec sleep 1000');
    expect(await r.substrate.inspect('umbel-on')).toEqual({ exists: false, dead: true });
    expect(await r.substrate.inspect('umbel-none')).toEqual({ exists: false, dead: true });
  });

  it('refuses a duplicate session and leaves no env buffer behind', async () => {
    const r = await rig();
    await shLaunch(r, 'umbel-dup', 'exec sleep 1000');
    // The first launch's buffer is the wrapper's to delete, once it has read it.
    await until(() => r.tmux('list-buffers').stdout === '');
    // said as a fact (spawn asks nothing before its launch and relies on it), and the first one runs on
    await expect(shLaunch(r, 'umbel-dup', 'exec sleep 1000', { env: { SECRET_X: 'v' } })).rejects.toMatchObject({
      code: UmbelErrorCode.TmuxFailed,
      sessionExists: true,
    });
    expect(r.tmux('list-buffers').stdout).toBe('');
    expect(await r.substrate.inspect('umbel-dup')).toMatchObject({ exists: true, dead: false });
  });

  it('rejects a missing cwd and a bad session name before touching tmux', async () => {
    const r = await rig();
    await expect(r.substrate.launch({ session: 'umbel-x', cwd: join(r.home, 'nope'), argv: ['true'], env: {}, exitRecordDir: r.home })).rejects.toMatchObject({
      code: UmbelErrorCode.CwdMissing,
    });
    await expect(r.substrate.inspect('bad:name')).rejects.toMatchObject({ code: UmbelErrorCode.Usage });
    expect(await r.substrate.list()).toEqual([]);
  });

  it('createTmuxSubstrate refuses settings without a usable home with a typed usage error', () => {
    for (const settings of [{}, { home: '' }, { home: '   ' }, { home: 42 }, undefined, null]) {
      let error: unknown;
      try {
        createTmuxSubstrate(settings as never);
      } catch (e) {
        error = e;
      }
      expect(error, JSON.stringify(settings)).toMatchObject({ code: UmbelErrorCode.Usage, message: expect.stringContaining('home') });
    }
  });

  it('exposes the state root it serves, absolute, so an engine can take its home from it', async () => {
    const r = await rig();
    expect(r.substrate.home).toBe(r.home);
    expect(createTmuxSubstrate({ home: 'relative/state', env: r.env }).home).toBe(join(process.cwd(), 'relative/state'));
  });

  it('attachCommand targets the private socket with a minimal env', async () => {
    const r = await rig({ env: baseEnv({ ANTHROPIC_API_KEY: 'sk-should-not-appear' }) });
    const cmd = r.substrate.attachCommand('umbel-a');
    expect(cmd.file).toBe('tmux');
    expect(cmd.args).toEqual(['-u', '-L', r.substrate.socket, 'attach', '-t', '=umbel-a']);
    expect(Object.keys(cmd.env)).not.toContain('ANTHROPIC_API_KEY');
  });
});

describe('death evidence', () => {
  it('exit 3 → dead with status 3 and an exit record {"status":3}', async () => {
    const r = await rig();
    const events = join(r.home, 'events');
    await mkdir(events);
    await shLaunch(r, 'umbel-exit3', 'exit 3', { exitRecordDir: events });
    const state = await until(async () => {
      const s = await r.substrate.inspect('umbel-exit3');
      return s.dead ? s : undefined;
    });
    expect(state).toEqual({ exists: true, dead: true, exitStatus: 3 });
    const records = await until(async () => ((await exitRecords(events)).length > 0 ? exitRecords(events) : undefined));
    expect(records).toHaveLength(1);
    expect(records[0]?.body).toEqual({ status: 3 });
    expect(records[0]?.name).toMatch(/^\d+-\d+-exit\.json$/);
    expect((await readdir(events)).filter((name) => name.startsWith('.'))).toEqual([]);
    // private like every state file, whatever the umask the CLI ran with
    expect(((await stat(join(events, records[0]?.name as string))).mode & 0o777).toString(8)).toBe('600');
  });

  it('a dead pane\'s capture is what the CLI showed: no tmux "Pane is dead" line, nothing scrolled off', async () => {
    const r = await rig();
    await shLaunch(r, 'umbel-said', 'echo first line; echo Error: config broken; exit 1');
    await until(async () => (await r.substrate.inspect('umbel-said')).dead || undefined);
    const screen = await r.substrate.capture('umbel-said');
    // tmux 3.3a writes its status line at the bottom of a dead pane and scrolls the screen up by one
    // line to make room: the first line the CLI printed left the visible screen.
    expect(screen).not.toContain('Pane is dead');
    expect(screen.split('\n').slice(0, 2)).toEqual(['first line', 'Error: config broken']);
    expect(await r.substrate.capture('umbel-said', { lines: 10 })).not.toContain('Pane is dead');
  });

  it('inspectAll answers for every session in one call, as inspect does for each', async () => {
    const r = await rig();
    expect(await r.substrate.inspectAll()).toEqual(new Map());
    await shLaunch(r, 'umbel-all-live', 'exec sleep 1000');
    await shLaunch(r, 'umbel-all-exit', 'exit 5', { exitRecordDir: join(r.home, 'none') });
    await shLaunch(r, 'umbel-all-sig', 'kill -TERM $$; sleep 5', { exitRecordDir: join(r.home, 'none') });
    const settled = await until(async () => {
      const all = await r.substrate.inspectAll();
      return all.get('umbel-all-exit')?.dead && all.get('umbel-all-sig')?.dead ? all : undefined;
    });
    expect([...settled.keys()].sort()).toEqual(['umbel-all-exit', 'umbel-all-live', 'umbel-all-sig']);
    for (const session of settled.keys()) expect(settled.get(session)).toEqual(await r.substrate.inspect(session));
    expect(settled.get('umbel-all-exit')).toEqual({ exists: true, dead: true, exitStatus: 5 });
    expect(settled.get('umbel-all-sig')).toEqual({ exists: true, dead: true, signal: 'SIGTERM' });
    expect(settled.get('umbel-all-live')).toMatchObject({ exists: true, dead: false });
  });

  it('SIGKILL of the worker → dead by SIGKILL, exit record {"signal":"SIGKILL"}', async () => {
    const r = await rig();
    const events = join(r.home, 'events');
    await mkdir(events);
    const pidFile = join(await dir('umbel-sigkill-'), 'pid');
    await shLaunch(r, 'umbel-sigkill', 'echo $$ > "$1.tmp" && mv "$1.tmp" "$1" && exec sleep 1000', { exitRecordDir: events, args: [pidFile] });
    const worker = Number(await until(async () => (await readFile(pidFile, 'utf8').catch(() => '')).trim() || undefined));
    expect(await r.substrate.processTree('umbel-sigkill')).toContain(worker);
    process.kill(worker, 'SIGKILL');
    const state = await until(async () => {
      const s = await r.substrate.inspect('umbel-sigkill');
      return s.dead ? s : undefined;
    });
    expect(state).toEqual({ exists: true, dead: true, signal: 'SIGKILL' });
    const records = await until(async () => ((await exitRecords(events)).length > 0 ? exitRecords(events) : undefined));
    expect(records.map((rec) => rec.body)).toEqual([{ signal: 'SIGKILL' }]);
  });

  it('SIGTERM to the pane process is forwarded to the worker, which is waited for', async () => {
    const r = await rig();
    const events = join(r.home, 'events');
    await mkdir(events);
    const scratch = await dir('umbel-term-');
    const marker = join(scratch, 'got-term');
    const ready = join(scratch, 'ready');
    await shLaunch(r, 'umbel-term', `trap 'echo term > "$1"; trap - TERM; kill -TERM $$' TERM; sleep 1000 & : > "$2"; wait`, {
      exitRecordDir: events,
      args: [marker, ready],
    });
    const state0 = await r.substrate.inspect('umbel-term');
    await until(async () => (await stat(ready).catch(() => undefined)) !== undefined);
    process.kill(state0.pid!, 'SIGTERM');
    const state = await until(async () => {
      const s = await r.substrate.inspect('umbel-term');
      return s.dead ? s : undefined;
    });
    expect(await readFile(marker, 'utf8')).toBe('term\n');
    expect(state).toEqual({ exists: true, dead: true, signal: 'SIGTERM' });
    const records = await until(async () => ((await exitRecords(events)).length > 0 ? exitRecords(events) : undefined));
    expect(records.map((rec) => rec.body)).toEqual([{ signal: 'SIGTERM' }]);
  });

  it('writes no exit record when the directory does not exist', async () => {
    const r = await rig();
    const events = join(r.home, 'gone-events');
    await shLaunch(r, 'umbel-norec', 'exit 0', { exitRecordDir: events });
    await until(async () => (await r.substrate.inspect('umbel-norec')).dead);
    await expect(stat(events)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a missing command is a dead pane with status 127, not a launch error', async () => {
    const r = await rig();
    const events = join(r.home, 'events');
    await mkdir(events);
    await r.substrate.launch({ session: 'umbel-nocmd', cwd: r.home, argv: ['/nonexistent/umbel-cli'], env: { PATH: '/usr/bin:/bin' }, exitRecordDir: events });
    const state = await until(async () => {
      const s = await r.substrate.inspect('umbel-nocmd');
      return s.dead ? s : undefined;
    });

    expect(state).toMatchObject({ exists: true, dead: true, exitStatus: 127 });
  });
});

describe('kill', () => {
  it('ends the session and every process of its tree, even ones ignoring TERM/HUP; idempotent', async () => {
    const r = await rig();
    const ready = join(await dir('umbel-kill-'), 'ready');
    await shLaunch(r, 'umbel-kill', `trap '' TERM HUP; sleep 1000 & sleep 1001 & (trap '' TERM HUP; exec sleep 1002) & : > "$1"; wait`, { args: [ready] });
    await until(async () => (await stat(ready).catch(() => undefined)) !== undefined);
    const tree = await until(async () => {
      const t = await r.substrate.processTree('umbel-kill');
      return t.length >= 5 ? t : undefined;
    });
    expect(tree).toHaveLength(5);
    for (const pid of tree) expect(await alive(pid)).toBe(true);
    await r.substrate.kill('umbel-kill');
    for (const pid of tree) expect(await alive(pid), `pid ${pid}`).toBe(false);
    expect(await r.substrate.inspect('umbel-kill')).toEqual({ exists: false, dead: true });
    await r.substrate.kill('umbel-kill');
    await r.substrate.kill('umbel-never-existed');
    expect(await r.substrate.list()).toEqual([]);
  });

  it('killServer ends every session of this socket at once and no other socket; it is idempotent', async () => {
    const r = await rig();
    const other = await rig();
    await shLaunch(r, 'umbel-ks1', 'exec sleep 1000');
    await shLaunch(r, 'umbel-ks2', 'exec sleep 1000');
    await shLaunch(other, 'umbel-ks3', 'exec sleep 1000');
    expect((await r.substrate.list()).sort()).toEqual(['umbel-ks1', 'umbel-ks2']);
    await r.substrate.killServer();
    expect(await r.substrate.list()).toEqual([]);
    await r.substrate.killServer();
    expect(await other.substrate.list()).toEqual(['umbel-ks3']);
  });

  it('kills only the named session (exact match, not a prefix)', async () => {
    const r = await rig();
    await shLaunch(r, 'umbel-k', 'exec sleep 1000');
    await shLaunch(r, 'umbel-k2', 'exec sleep 1000');
    await r.substrate.kill('umbel-k');
    expect(await r.substrate.list()).toEqual(['umbel-k2']);
    expect((await r.substrate.inspect('umbel-k2')).dead).toBe(false);
  });
});

describe('isolation', () => {
  it('a kill-server on the default socket leaves our worker alive; two homes never see each other', async () => {
    const tmuxTmp = await dir('umbel-tmux-tmpdir-');
    const env = baseEnv({ TMUX_TMPDIR: tmuxTmp });
    const a = await rig({ env });
    const b = await rig({ env });
    expect(a.substrate.socket).not.toBe(b.substrate.socket);
    await shLaunch(a, 'umbel-a1', 'exec sleep 1000');
    await shLaunch(b, 'umbel-b1', 'exec sleep 1000');

    // A "user" server on the default socket of the same TMUX_TMPDIR.
    const userEnv = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: a.home, TERM: 'xterm-256color', TMUX_TMPDIR: tmuxTmp };
    const user = (...args: string[]) =>
      spawnSync('tmux', ['-f', '/dev/null', ...args], { env: userEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 15_000 });
    expect(user('new-session', '-d', '-s', 'user', 'sleep 1000').status).toBe(0);
    const socketDir = (await readdir(tmuxTmp)).map((name) => join(tmuxTmp, name));
    expect(socketDir).toHaveLength(1);
    expect((await readdir(socketDir[0]!)).sort()).toEqual(['default', a.substrate.socket, b.substrate.socket].sort());
    expect(user('list-sessions', '-F', '#{session_name}').stdout.trim()).toBe('user');
    expect(user('kill-server').status).toBe(0);

    expect(await a.substrate.inspect('umbel-a1')).toMatchObject({ exists: true, dead: false });
    expect(await a.substrate.list()).toEqual(['umbel-a1']);
    expect(await b.substrate.list()).toEqual(['umbel-b1']);
    expect(await a.substrate.inspect('umbel-b1')).toEqual({ exists: false, dead: true });
    await a.substrate.kill('umbel-b1');
    expect((await b.substrate.inspect('umbel-b1')).dead).toBe(false);
  });

  it('UMBEL_TMUX_SOCKET overrides the derived socket', async () => {
    const name = `umbel-test-${process.pid}-${Date.now().toString(36)}`;
    const r = await rig({ env: baseEnv({ UMBEL_TMUX_SOCKET: name }) });
    expect(r.substrate.socket).toBe(name);
    await shLaunch(r, 'umbel-o', 'exec sleep 1000');
    expect(r.tmux('list-sessions', '-F', '#{session_name}').stdout.trim()).toBe('umbel-o');
  });
});

describe('pasteText', () => {
  it('delivers 100 KB of multi-line text byte-exact inside bracketed-paste markers, nothing submitted', async () => {
    const r = await rig();
    const out = join(await dir('umbel-paste-'), 'pasted.bin');
    await shLaunch(r, 'umbel-paste', `stty -echo; printf '\\033[?2004h'; printf 'READY\\n'; exec cat > "$1"`, { args: [out] });
    await until(async () => (await r.substrate.capture('umbel-paste')).includes('READY'));
    const alphabet = `abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789 'quotes' "dq" $HOME \`bt\` \\ é 中文 🚀 ;{}`;
    const lines: string[] = [];
    let size = 0;
    for (let i = 0; size < 100 * 1024; i += 1) {
      const line = `${String(i).padStart(5, '0')} ${alphabet.slice(i % 40)}${alphabet.slice(0, i % 40)}`;
      lines.push(line);
      size += Buffer.byteLength(line) + 1;
    }
    const text = `${lines.join('\n')}\n`;
    await r.substrate.pasteText('umbel-paste', text);
    // Nothing submitted: the text ends with a newline, but the closing marker waits in the line buffer.
    await r.substrate.sendKeys('umbel-paste', ['Enter']);
    const open = '\u001b[200~';
    const close = '\u001b[201~';
    const received = await until(async () => {
      const content = await readFile(out, 'utf8').catch(() => '');
      return content.includes(close) ? content : undefined;
    }, 60_000);
    const start = received.indexOf(open);
    expect(start).toBe(0);
    const body = received.slice(start + open.length, received.indexOf(close));
    expect(Buffer.from(body).equals(Buffer.from(text))).toBe(true);
    expect(r.tmux('list-buffers').stdout).toBe('');
  });
});

describe('pasteAndPress', () => {
  it('pastes the text and presses the keys in one tmux client: the pane reads the paste, then the key, nothing between', async () => {
    const bin = await dir('umbel-tmux-count-');
    const log = join(bin, 'calls.log');
    // a tmux that logs each client it starts (its first command) before it runs the real one
    const tmux = join(bin, 'tmux');
    const real = spawnSync('sh', ['-c', 'command -v tmux'], { encoding: 'utf8' }).stdout.trim();
    await writeFile(tmux, `#!/bin/sh\nfor a; do case "$a" in -*|umbel-*|/*) ;; *) echo "$a" >> '${log}'; break ;; esac; done\nexec '${real}' "$@"\n`, {
      mode: 0o755,
    });
    const r = await rig({ settings: { tmuxBin: tmux } });
    const out = join(bin, 'pasted.bin');
    await shLaunch(r, 'umbel-submit', `stty -echo; printf '\\033[?2004h'; printf 'READY\\n'; exec cat > "$1"`, { args: [out] });
    await until(async () => (await r.substrate.capture('umbel-submit')).includes('READY'));
    await writeFile(log, '');
    await r.substrate.pasteAndPress?.('umbel-submit', 'ECHO one\ntwo', ['Enter']);
    expect((await readFile(log, 'utf8')).trim().split('\n')).toEqual(['load-buffer']);
    // the terminal turns the Enter's carriage return into the newline that ends cat's line
    const received = await until(async () => {
      const content = await readFile(out, 'utf8').catch(() => '');
      return content.endsWith('\n') ? content : undefined;
    });
    expect(received).toBe('\u001b[200~ECHO one\ntwo\u001b[201~\n');
    expect(r.tmux('list-buffers').stdout).toBe('');
    // no text: the keys alone
    await r.substrate.pasteAndPress?.('umbel-submit', '', ['Enter']);
    expect(await until(async () => ((await readFile(out, 'utf8')).endsWith('~\n\n') ? true : undefined))).toBe(true);
  });
});

describe('a caller without a UTF-8 locale', () => {
  it('still reads liveness, exit status and the screen exactly (tmux is told the client speaks UTF-8)', async () => {
    const env = baseEnv();
    for (const name of Object.keys(env)) if (name === 'LANG' || name === 'LANGUAGE' || name.startsWith('LC_')) delete env[name];
    const r = await rig({ env: { ...env, LANG: 'C' } });
    await shLaunch(r, 'umbel-c-locale', `printf '❯ ready ─── ünï\\n'; exec sleep 1000`, { env: { LANG: 'C.UTF-8' } });
    const screen = await until(async () => {
      const text = await r.substrate.capture('umbel-c-locale');
      return text.includes('ready') ? text : undefined;
    });
    expect(screen).toContain('❯ ready ─── ünï');
    const events = join(r.home, 'events-c');
    await mkdir(events);
    await shLaunch(r, 'umbel-c-exit', 'exit 4', { exitRecordDir: events });
    const state = await until(async () => {
      const s = await r.substrate.inspect('umbel-c-exit');
      return s.dead ? s : undefined;
    });
    expect(state).toMatchObject({ exists: true, dead: true, exitStatus: 4 });
    expect((await r.substrate.inspectAll()).get('umbel-c-exit')).toMatchObject({ dead: true, exitStatus: 4 });
  });
});
