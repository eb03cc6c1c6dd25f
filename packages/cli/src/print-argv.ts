/**
 * The argv of a plain `umbel -p` call, read without yargs: loading yargs and building the full
 * command tree costs ~50 ms of CPU, a large share of a warm call. Only the common shape is taken —
 * `-p`/`--print` first and once, at most one prompt, each print flag with its value as the next word
 * (`--env` repeatable), `--verbose`/`--unattended`/`--worktree`/`--sandbox` — and the result is what yargs gives for it
 * (./print-argv.test.ts compares the two on many command lines). Anything else (help, `--`,
 * `--flag=value`, an unknown or repeated flag, a value starting with `-`, a verb, a second prompt)
 * is left to yargs, which also explains the mistakes.
 */
import type { Args } from './args.js';

/** The flags of `-p` that take a value (parser.ts: printCommand). */
export const PRINT_VALUE_FLAGS: ReadonlySet<string> = new Set([
  'provider',
  'host',
  'cwd',
  'model',
  'env',
  'permission-mode',
  'allowed-tools',
  'append-system-prompt',
  'output-format',
  'timeout',
  'idle-timeout',
  'check',
  'schema',
  'retries',
  'check-timeout',
  'name',
  'resume',
  'pool',
  'billing',
  'startup-timeout',
  'max-workers',
  'branch',
  'base',
  'sandbox-write',
  'sandbox-read',
  'sandbox-allow',
]);
const PRINT_BOOLEAN_FLAGS: ReadonlySet<string> = new Set(['verbose', 'unattended', 'worktree', 'sandbox']);
/** The value flags that may be given more than once (yargs collects them into an array). */
const REPEATABLE: ReadonlySet<string> = new Set(['env', 'sandbox-write', 'sandbox-read', 'sandbox-allow']);
const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** The parsed args of a plain `umbel -p …`, or undefined when yargs must read this command line. */
export function plainPrintArgs(argv: readonly string[]): Args | undefined {
  if (argv[0] !== '-p' && argv[0] !== '--print') return undefined;
  const flags: Record<string, string | string[] | true> = {};
  let prompt: string | undefined;
  for (let i = 1; i < argv.length; i++) {
    const word = argv[i] as string;
    if (!word.startsWith('-')) {
      if (prompt !== undefined) return undefined;
      prompt = word;
      continue;
    }
    const flag = word.startsWith('--') ? word.slice(2) : '';
    if (PRINT_BOOLEAN_FLAGS.has(flag) && !(flag in flags)) {
      flags[flag] = true;
      continue;
    }
    const value = argv[i + 1];
    if (!PRINT_VALUE_FLAGS.has(flag) || value === undefined || value.startsWith('-')) return undefined;
    i++;
    const before = flags[flag];
    if (REPEATABLE.has(flag)) flags[flag] = before === undefined ? value : [...(Array.isArray(before) ? before : [String(before)]), value];
    else if (before !== undefined) return undefined;
    else flags[flag] = value;
  }
  const args: Args = { _: [], p: true, print: true, $0: 'umbel', ...(prompt !== undefined ? { prompt } : {}) };
  for (const [flag, value] of Object.entries(flags)) {
    args[flag] = value;
    args[camel(flag)] = value;
  }
  return args;
}
