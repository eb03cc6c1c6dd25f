import { spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseProcStat, descendantsOf } from './proc-tree.js';
import { canonicalPath, resolveSocketName } from './socket.js';
import { escapeTmuxArgument, normalizeSignal, renderEnvExports, socketNameFor, tmuxClientEnv, TMUX_CALL_TIMEOUT_MS } from './index.js';

describe('renderEnvExports', () => {
  const exotic: Record<string, string> = {
    QUOTES: `it's "quoted" ''' and '\\''`,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${…} is the point of the test
    SUBST: '$(touch /tmp/umbel-pwned) `id` ${HOME} $HOME',
    NEWLINES: 'line1\nline2\n\nline4\n',
    BACKSLASH: 'a\\b\\\\c\\nd\\',
    UNICODE: 'é ñ ü 中文 日本語 🚀👍🏽 \u00a0\u2028',
    EMPTY: '',
    SPACES: '  lead and trail  ',
    TABS: 'a\tb',
    SEMI: 'x; echo injected;',
  };

  it('round-trips every value byte-exact through sh', () => {
    const script = `${renderEnvExports(exotic)}exec "${process.execPath}" -e 'process.stdout.write(JSON.stringify(process.env))'\n`;
    const result = spawnSync('/bin/sh', ['-s'], { input: script, env: {}, encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    const seen = JSON.parse(result.stdout) as Record<string, string>;
    for (const [name, value] of Object.entries(exotic)) expect(seen[name], name).toBe(value);
  });

  it('skips names that are not shell identifiers and values with NUL', () => {
    const text = renderEnvExports({ 'BAD-NAME': 'x', '1X': 'y', 'A B': 'z', OK_1: 'v', NUL: 'a\0b' });
    expect(text).toBe("# umbel worker environment\nexport OK_1='v'\n");
  });

  it('is never empty', () => {
    expect(renderEnvExports({})).toBe('# umbel worker environment\n');
  });
});

describe('tmuxClientEnv', () => {
  it('keeps only the terminal/locale/path names', () => {
    const env = tmuxClientEnv({
      PATH: '/bin',
      HOME: '/h',
      USER: 'u',
      LOGNAME: 'u',
      LANG: 'C.UTF-8',
      LANGUAGE: 'en',
      LC_ALL: 'C',
      LC_CTYPE: 'C',
      TMPDIR: '/t',
      TMUX_TMPDIR: '/tt',
      COLORTERM: 'truecolor',
      TERM: 'screen',
      ANTHROPIC_API_KEY: 'secret',
      TMUX: '/tmp/x,1,0',
      SHELL: '/bin/bash',
      CLAUDE_CODE_CHILD_SESSION: '1',
      UNDEF: undefined,
      UMBEL_TMUX_STALL: 'list-panes:1',
      UMBEL_TMUX_STALL_DIR: '/s',
      UMBEL_TMUX_STALL_SECONDS: '9',
      UMBEL_TMUX_STALL_REAL: '/usr/bin/tmux',
      UMBEL_TMUX_STALLS: 'not a knob',
      UMBEL_TMUX_SOCKET: 'not for tmux',
    });
    expect(env).toEqual({
      PATH: '/bin',
      HOME: '/h',
      USER: 'u',
      LOGNAME: 'u',
      LANG: 'C.UTF-8',
      LANGUAGE: 'en',
      LC_ALL: 'C',
      LC_CTYPE: 'C',
      TMPDIR: '/t',
      TMUX_TMPDIR: '/tt',
      COLORTERM: 'truecolor',
      TERM: 'screen',
      UMBEL_TMUX_STALL: 'list-panes:1',
      UMBEL_TMUX_STALL_DIR: '/s',
      UMBEL_TMUX_STALL_SECONDS: '9',
      UMBEL_TMUX_STALL_REAL: '/usr/bin/tmux',
    });
  });

  it('defaults TERM to xterm-256color and always has a PATH', () => {
    const env = tmuxClientEnv({});
    expect(env['TERM']).toBe('xterm-256color');
    expect(env['PATH']).toBeTruthy();
  });
});

describe('socketNameFor', () => {
  it('is umbel-<12 hex>, stable, and follows the realpath', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'umbel-sock-'));
    try {
      const link = `${dir}-link`;
      await symlink(dir, link);
      try {
        expect(socketNameFor(dir)).toMatch(/^umbel-[0-9a-f]{12}$/);
        expect(socketNameFor(dir)).toBe(socketNameFor(`${dir}/`));
        expect(socketNameFor(link)).toBe(socketNameFor(dir));
        expect(socketNameFor(join(dir, 'missing'))).not.toBe(socketNameFor(dir));
      } finally {
        await rm(link, { force: true });
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('is the same for a root before and after it exists, also under a symlink whose target is missing', async () => {
    const dir = realpathSync(await mkdtemp(join(tmpdir(), 'umbel-sock-')));
    try {
      // macOS-like: an existing symlinked parent, the root below it not created yet.
      await mkdir(join(dir, 'real'));
      await symlink(join(dir, 'real'), join(dir, 'via'));
      const under = join(dir, 'via', 'state', 'umbel');
      const before = socketNameFor(under);
      await mkdir(join(dir, 'real', 'state', 'umbel'), { recursive: true });
      expect(socketNameFor(under)).toBe(before);
      expect(before).toBe(socketNameFor(join(dir, 'real', 'state', 'umbel')));
      // A dangling symlink (relative target) on the way: the target is followed although missing.
      await symlink('later/../later2', join(dir, 'dangling'));
      const dangling = join(dir, 'dangling', 'umbel');
      const early = socketNameFor(dangling);
      await mkdir(join(dir, 'later2', 'umbel'), { recursive: true });
      await mkdir(join(dir, 'later'));
      expect(socketNameFor(dangling)).toBe(early);
      expect(early).toBe(socketNameFor(join(dir, 'later2', 'umbel')));
      // `..` after a symlink is physical, as realpath takes it.
      expect(canonicalPath(join(dir, 'via', '..', 'x'))).toBe(join(dir, 'x'));
      expect(canonicalPath(join(dir, 'via', 'state', '..', 'y'))).toBe(join(dir, 'real', 'y'));
      // A loop does not hang: the rest is appended as written.
      await symlink(join(dir, 'loop-b'), join(dir, 'loop-a'));
      await symlink(join(dir, 'loop-a'), join(dir, 'loop-b'));
      expect(canonicalPath(join(dir, 'loop-a', 'z'))).toMatch(/loop-[ab]\/z$/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('is overridden by UMBEL_TMUX_SOCKET', () => {
    expect(resolveSocketName('/x', { UMBEL_TMUX_SOCKET: 'mine' })).toBe('mine');
    expect(resolveSocketName('/x', { UMBEL_TMUX_SOCKET: '' })).toBe(socketNameFor('/x'));
  });

  it('exports the call bound', () => {
    expect(TMUX_CALL_TIMEOUT_MS).toBe(5000);
  });
});

describe('normalizeSignal', () => {
  it.each([
    ['15', 'SIGTERM'],
    ['9', 'SIGKILL'],
    ['term', 'SIGTERM'],
    ['TERM', 'SIGTERM'],
    ['SIGHUP', 'SIGHUP'],
    [' 1 ', 'SIGHUP'],
  ])('%s → %s', (raw, expected) => {
    expect(normalizeSignal(raw)).toBe(expected);
  });
  it('returns undefined for empty/zero', () => {
    expect(normalizeSignal('')).toBeUndefined();
    expect(normalizeSignal(undefined)).toBeUndefined();
    expect(normalizeSignal('0')).toBeUndefined();
  });
});

describe('escapeTmuxArgument', () => {
  it('escapes only a trailing semicolon', () => {
    expect(escapeTmuxArgument('a;')).toBe('a\\;');
    expect(escapeTmuxArgument(';')).toBe('\\;');
    expect(escapeTmuxArgument('a\\;')).toBe('a\\\\;');
    expect(escapeTmuxArgument('a;b')).toBe('a;b');
    expect(escapeTmuxArgument('')).toBe('');
  });
});

describe('proc stat parsing', () => {
  it('handles command names with spaces and parentheses', () => {
    const entry = parseProcStat('123 (we ird) (x)) S 45 123 123 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 98765 1000 10');
    expect(entry).toEqual({ pid: 123, ppid: 45, state: 'S', start: '98765' });
  });
  it('collects descendants breadth-first', () => {
    const table = [
      { pid: 1, ppid: 0, start: '', state: 'S' },
      { pid: 10, ppid: 1, start: '', state: 'S' },
      { pid: 11, ppid: 10, start: '', state: 'S' },
      { pid: 12, ppid: 11, start: '', state: 'S' },
      { pid: 20, ppid: 1, start: '', state: 'S' },
    ];
    expect(descendantsOf(table, [10]).map((e) => e.pid)).toEqual([10, 11, 12]);
    expect(descendantsOf(table, [99])).toEqual([]);
  });
});

describe('killProcessGroup', () => {
  it('is quiet for a child whose group is already gone (a late kill never throws or loops)', async () => {
    const { spawn } = await import('node:child_process');
    const { killProcessGroup } = await import('./run-tmux.js');
    const child = spawn('/bin/sh', ['-c', 'exit 0'], { detached: true, stdio: 'ignore' });
    await new Promise((resolve) => child.once('close', resolve));
    expect(() => killProcessGroup(child)).not.toThrow();
  });
});
