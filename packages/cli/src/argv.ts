/**
 * The argv rules yargs does not enforce by itself: `--` ends the options, a boolean flag takes no
 * value, a single-value flag is given once, an unknown verb names the nearest one, a missing
 * positional is named. Each failure is a UsageError (exit 2).
 */
import { UsageError } from '@umbel/core';
import type { Args } from './args.js';
import { BOOLEAN_FLAGS, COMMANDS, REPEATABLE_FLAGS, VERB_REPEATABLE_FLAGS, type Verb, VERBS } from './parser.js';

const HELP_HINT = "run 'umbel --help' (or 'umbel <verb> --help')";

/** argv with every word after `--` replaced by a placeholder yargs takes as a positional. */
export interface Protected {
  /** What yargs parses. */
  readonly argv: readonly string[];
  /** The words before `--` (where options are). */
  readonly options: readonly string[];
  /** Undo the placeholders in a parsed value or message. */
  restore<T>(value: T): T;
}

const placeholder = (i: number) => `\u0000umbel-arg-${i}\u0000`;
const PLACEHOLDER = /\u0000umbel-arg-(\d+)\u0000/g;

/**
 * Split argv at the first `--`: what follows is positional text even when it starts with `-`
 * (`umbel send w -- '- fix it'`, `umbel -p -- -x`). yargs would put it in `_`, away from the
 * positionals, so it parses placeholders instead and `restore` puts the words back.
 */
export function protectDashDash(argv: readonly string[]): Protected {
  const at = argv.indexOf('--');
  if (at < 0) return { argv, options: argv, restore: (v) => v };
  const rest = argv.slice(at + 1);
  const back = (text: string) => text.replace(PLACEHOLDER, (_, i: string) => rest[Number(i)] ?? '');
  const restore = <T>(value: T): T => {
    if (typeof value === 'string') return back(value) as T;
    if (Array.isArray(value)) return value.map((v) => restore(v)) as T;
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, restore(v)])) as T;
    return value;
  };
  return { argv: [...argv.slice(0, at), ...rest.map((_, i) => placeholder(i))], options: argv.slice(0, at), restore };
}

/** `--json=maybe`: a boolean flag given a value other than true/false. */
export function checkBooleanValues(options: readonly string[]): void {
  for (const word of options) {
    const m = /^--(?:no-)?([a-z][a-z-]*)=(.*)$/s.exec(word);
    if (m?.[1] && BOOLEAN_FLAGS.has(m[1]) && m[2] !== 'true' && m[2] !== 'false') {
      throw new UsageError(`--${m[1]} takes no value (got '${word}')`, { hint: `write --${m[1]} alone, or --no-${m[1]}` });
    }
  }
}

/** A single-value flag given more than once (yargs would join `--model a --model b` into `a,b`). */
export function checkRepeats(args: Args): void {
  const verbOnly = VERB_REPEATABLE_FLAGS[String(args._[0] ?? '')] ?? [];
  for (const [key, value] of Object.entries(args)) {
    if (verbOnly.includes(key)) continue;
    // camelCase keys are yargs' aliases of the kebab-case ones; `keys` and `names` are variadic positionals.
    if (key === '_' || key === 'keys' || key === 'names' || /[A-Z]/.test(key) || REPEATABLE_FLAGS.has(key) || !Array.isArray(value)) continue;
    const given = value.map((v) => `'${String(v)}'`).join(', ');
    throw new UsageError(`--${key} was given ${value.length} times (${given}); it takes one value`, {
      hint: `only ${[...REPEATABLE_FLAGS].map((f) => `--${f}`).join(' and ')} repeat`,
    });
  }
}

/** Edit distance (optimal string alignment: a swap of two neighbours counts as one edit). */
function distance(a: string, b: string): number {
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, (before[j - 2] ?? 0) + 1);
      cur.push(d);
    }
    before = prev;
    prev = cur;
  }
  return prev[b.length] ?? 0;
}

/** The verb nearest to `word` (at most 2 edits, fewer for short words), if any. */
export function nearestVerb(word: string): Verb | undefined {
  const limit = word.length <= 3 ? 1 : 2;
  let best: { verb: Verb; d: number } | undefined;
  for (const verb of VERBS) {
    const d = distance(word.toLowerCase(), verb);
    if (d <= limit && (best === undefined || d < best.d)) best = { verb, d };
  }
  return best?.verb;
}

/** The error for a word that is not a verb (and no -p was given). */
export function unknownVerb(word: string): UsageError {
  const near = nearestVerb(word);
  if (near) return new UsageError(`unknown verb '${word}' — did you mean '${near}'?`, { hint: HELP_HINT });
  return new UsageError(`unknown verb '${word}'; to run a prompt use umbel -p "PROMPT"`, { hint: HELP_HINT });
}

/** `umbel sned w hi`: the first word is neither a verb nor an option, and there is no -p. */
export function checkVerbWord(options: readonly string[]): void {
  const first = options[0];
  if (first === undefined || first.startsWith('-') || (VERBS as string[]).includes(first)) return;
  if (options.some((w) => w === '-p' || w === '--print' || /^-[a-zA-Z]*p[a-zA-Z]*$/.test(w))) return;
  throw unknownVerb(first);
}

/** How a positional is shown in a usage line: `<name>` → NAME, `[prompt]` → [PROMPT], `<keys..>` → KEY…. */
function shown(token: string): string {
  const bare = token.replace(/^[<[]|[>\]]$/g, '');
  const word = bare.endsWith('..') ? `${bare.slice(0, -2).replace(/s$/, '').toUpperCase()}…` : bare.toUpperCase();
  return token.startsWith('[') ? `[${word}]` : word;
}

/**
 * yargs' "Not enough non-option arguments: got N, need at least M" as the argument that is
 * missing: "send needs NAME: umbel send NAME [PROMPT]".
 */
export function missingArgument(verb: string, message: string): UsageError | undefined {
  const m = /Not enough non-option arguments: got (\d+)/.exec(message);
  if (!m || !(VERBS as string[]).includes(verb)) return undefined;
  const tokens = COMMANDS[verb as Verb].split(' ').slice(1);
  const required = tokens.filter((t) => t.startsWith('<'));
  const missing = required[Number(m[1])] ?? required.at(-1);
  if (!missing) return undefined;
  const missingName = shown(missing).replace(/…$/, '');
  return new UsageError(`${verb} needs ${missingName}: umbel ${verb} ${tokens.map(shown).join(' ')}`, { hint: `run 'umbel ${verb} --help'` });
}
