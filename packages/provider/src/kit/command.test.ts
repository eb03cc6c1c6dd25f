import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lastLines, runCommand, stripAnsi } from './command.js';

const root = mkdtempSync(join(tmpdir(), 'umbel-kit-command-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
/** A stand-in CLI running `body` for its `list` subcommand only. */
function bin(name: string, body: string): string {
  const file = join(root, name);
  writeFileSync(file, `#!/bin/sh\n[ "$1" = list ] || exit 99\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}
const env = { PATH: '/usr/bin:/bin' };

describe('runCommand', () => {
  it('runs the subcommand with the given env and cwd, no shell, and resolves with what it printed', async () => {
    const echo = bin('echo', 'printf "%s\\n" "$WHICH" "$(basename "$PWD")" "$2"');
    expect(await runCommand(echo, ['list', '$HOME;x'], { env: { ...env, WHICH: 'from-env' }, cwd: root, timeoutMs: 30_000 })).toEqual({
      ok: true,
      stdout: `from-env\n${root.split('/').at(-1)}\n$HOME;x\n`,
    });
  });

  it('a failure is one line: the exit code (or error) and the last lines it wrote, colours removed; it never rejects', async () => {
    const failing = bin('failing', 'printf "one\\ntwo\\nthree\\n\\033[91mError: \\033[0mconfig broken\\n" >&2; exit 3');
    expect(await runCommand(failing, ['list'], { env, cwd: root, timeoutMs: 30_000 })).toEqual({
      ok: false,
      reason: 'failed (3): two / three / Error: config broken',
    });
    expect(await runCommand(join(root, 'missing'), ['list'], { env, cwd: root, timeoutMs: 30_000 })).toEqual({ ok: false, reason: 'failed (ENOENT)' });
    const slow = bin('slow', 'exec sleep 30');
    expect(await runCommand(slow, ['list'], { env, cwd: root, timeoutMs: 200 })).toEqual({ ok: false, reason: 'did not answer within 0.2s' });
  });
});

describe('text helpers', () => {
  it('stripAnsi removes colour codes; lastLines keeps the last three lines of a text in one, cut at 300 characters', () => {
    expect(stripAnsi('\x1b[1mmock/a\x1b[0m and \x1b[91;1mred\x1b[0m')).toBe('mock/a and red');
    expect(lastLines('\n a\nb\nc\nd \n')).toBe('b / c / d');
    expect(lastLines('x'.repeat(400))).toHaveLength(300);
  });
});
