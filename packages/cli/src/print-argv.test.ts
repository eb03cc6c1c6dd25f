import { describe, expect, it } from 'vitest';
import type { Args } from './args.js';
import { parser } from './parser.js';
import { plainPrintArgs, PRINT_VALUE_FLAGS } from './print-argv.js';

/** What yargs makes of a command line (as run() parses it, minus the `--` handling: those fall back). */
function yargsArgs(argv: readonly string[]): Promise<{ args?: Args; error?: Error }> {
  return new Promise((resolve) => {
    parser(argv).parse([...argv], {}, (error: Error | undefined, args: unknown) => resolve({ args: args as Args, error }));
  });
}

const cfg = ['--env', 'CLAUDE_CONFIG_DIR=/tmp/c'];
const TAKEN: string[][] = [
  ['-p', 'ECHO hi'],
  ['--print', 'ECHO hi'],
  ['-p'],
  ['-p', 'ECHO hi', ...cfg],
  ['-p', ...cfg, 'ECHO hi', '--env', 'ANTHROPIC_API_KEY', '--env', 'B=2'],
  ['-p', 'multi\nline  prompt ü', '--output-format', 'json', '--verbose'],
  ['-p', 'x', '--provider', 'codex', '--cwd', '/tmp', '--model', 'm', '--permission-mode', 'auto', '--allowed-tools', 'Bash(git:*) Edit'],
  ['-p', 'x', '--append-system-prompt', 'be brief', '--unattended', '--timeout', '5m', '--idle-timeout', '30s'],
  ['-p', 'x', '--check', 'test -s "$UMBEL_ANSWER_FILE"', '--schema', 's.json', '--retries', '3', '--check-timeout', '1m'],
  ['-p', 'x', '--name', 'kept'],
  ['-p', 'x', '--resume', 'kept'],
  ['-p', 'x', '--pool', 'none'],
  ['-p', '--pool', 'claude-0d80942b', 'ECHO 42'],
  ['-p', '123'],
  ['-p', ''],
  ['-p', 'x', '--model', ''],
  ['-p', 'x', '--startup-timeout', '3m'],
  ['-p', 'x', '--worktree'],
  ['-p', 'x', '--worktree', '--branch', 'try/x', '--base', 'main'],
  ['-p', 'x', '--sandbox'],
  ['-p', 'x', '--sandbox', '--sandbox-write', '/a', '--sandbox-write', '/b', '--sandbox-read', '~/.npmrc', '--sandbox-allow', 'h.example'],
];
const LEFT_TO_YARGS: string[][] = [
  [],
  ['--help'],
  ['-p', '--help'],
  ['--version'],
  ['-p', '--version'],
  ['status'],
  ['status', '-p'],
  ['ECHO hi', '-p'],
  ['-p', 'a', 'b'],
  ['-p', 'x', '--', '-y'],
  ['-p', '--', '-x'],
  ['-p', 'x', '--model=m'],
  ['-p', 'x', '--model', 'a', '--model', 'b'],
  ['-p', 'x', '--model', '-m'],
  ['-p', 'x', '--model'],
  ['-p', 'x', '--json'],
  ['-p', 'x', '--bogus', '1'],
  ['-p', 'x', '--verbose', '--verbose'],
  ['-p', 'x', '--no-verbose'],
  ['-p', 'x', '-v'],
  ['-pv', 'x'],
  ['-p', '-p', 'x'],
];

describe('plainPrintArgs: a plain -p command line without yargs', () => {
  it.each(TAKEN)('gives what yargs gives for %j', async (...argv: string[]) => {
    const plain = plainPrintArgs(argv);
    expect(plain).toBeDefined();
    const { args, error } = await yargsArgs(argv);
    expect(error ?? undefined).toBeUndefined();
    expect(plain).toEqual(args);
  });

  it.each(LEFT_TO_YARGS)('leaves %j to yargs', (...argv: string[]) => {
    expect(plainPrintArgs(argv)).toBeUndefined();
  });

  it("knows every value flag of -p's parser, and no other", async () => {
    const { args } = await yargsArgs(['-p', 'x', ...[...PRINT_VALUE_FLAGS].flatMap((f) => [`--${f}`, 'v'])]);
    for (const flag of PRINT_VALUE_FLAGS) expect(args?.[flag], flag).toBe('v');
    // The options -p's help lists, less its booleans: exactly the value flags known here.
    const words = ['-p', 'x', '--help'];
    const help = await new Promise<string>((resolve) => parser(words).parse(words, {}, (_e: unknown, _a: unknown, out: string) => resolve(out)));
    const booleans = new Set(['help', 'version', 'print', 'verbose', 'unattended', 'worktree', 'sandbox']);
    const declared = [...help.matchAll(/^\s+(?:-\w, )?--([a-z-]+)\s/gm)].map((m) => m[1] as string).filter((f) => !booleans.has(f));
    expect(declared.sort()).toEqual([...PRINT_VALUE_FLAGS].sort());
  });
});
