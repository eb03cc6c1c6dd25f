/** Reading parsed argv values: every value is validated here or by core's schemas. */
import { DurationSchema, EnvArgsSchema, type SpawnOptions, usageFromZod, UsageError } from '@umbel/core';

/** Parsed argv as yargs hands it over (loosely typed). */
export type Args = Record<string, unknown> & { _: (string | number)[] };

/** `--env` values (repeatable) → the EnvMap of core. */
export function envFromArgs(value: unknown): Record<string, string | { fromEnv: string }> | undefined {
  if (value === undefined) return undefined;
  const list = (Array.isArray(value) ? value : [value]).map(String);
  const parsed = EnvArgsSchema.safeParse(list);
  if (!parsed.success) throw usageFromZod(parsed.error, '--env');
  return parsed.data;
}

/** A string value, or undefined. */
export function str(value: unknown): string | undefined {
  return value === undefined || value === null ? undefined : String(value);
}

/** A whole-number flag (declared as a string, so the message can quote what was typed). */
export function num(value: unknown, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  if (!/^\d+$/.test(text.trim())) throw new UsageError(`--${flag} must be a whole number, got '${text}'`);
  return Number(text);
}

/** A whole number that may be negative (`--from -1`: one back from the latest). */
export function signedNum(value: unknown, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  if (!/^-?\d+$/.test(text.trim())) throw new UsageError(`--${flag} must be a whole number (negative counts back from the latest), got '${text}'`);
  return Number(text);
}

/** `--turn N` or `--turn all`. */
export function turnOrAll(value: unknown): number | 'all' | undefined {
  return value !== undefined && String(value).trim() === 'all' ? 'all' : num(value, 'turn');
}

/** `--worktree [--branch B] [--base REF]` → spawn's `worktree` (absent without --worktree). */
export function worktreeFromArgs(args: Args): SpawnOptions['worktree'] {
  const branch = str(args.branch);
  const base = str(args.base);
  if (args.worktree !== true) {
    if (branch !== undefined || base !== undefined) throw new UsageError(`--${branch !== undefined ? 'branch' : 'base'} goes with --worktree`);
    return undefined;
  }
  return branch === undefined && base === undefined ? true : { ...(branch !== undefined ? { branch } : {}), ...(base !== undefined ? { base } : {}) };
}

const list = (value: unknown): string[] => (value === undefined ? [] : (Array.isArray(value) ? value : [value]).map(String));

/**
 * `--sandbox [--sandbox-write P] [--sandbox-read P] [--sandbox-allow HOST]` (each repeatable) → spawn's
 * `sandbox`; `--no-sandbox` → false (opts out of the config file's default); absent without either.
 */
export function sandboxFromArgs(args: Args): SpawnOptions['sandbox'] {
  const write = list(args.sandboxWrite);
  const read = list(args.sandboxRead);
  const allow = list(args.sandboxAllow);
  if (args.sandbox !== true) {
    const given = write.length ? 'sandbox-write' : read.length ? 'sandbox-read' : allow.length ? 'sandbox-allow' : undefined;
    if (given) throw new UsageError(`--${given} goes with --sandbox`);
    return args.sandbox === false ? false : undefined;
  }
  if (!write.length && !read.length && !allow.length) return true;
  return { ...(write.length ? { write } : {}), ...(read.length ? { read } : {}), ...(allow.length ? { allow } : {}) };
}

/** The spawn options of a call, from argv (shared by `spawn`, `pool start` and `-p`). */
export function spawnFromArgs(args: Args, cwd: string): Omit<SpawnOptions, 'name' | 'startupTimeout'> {
  const host = str(args.host);
  return {
    provider: str(args.provider) ?? 'claude',
    // On another host, the local cwd means nothing: the host's umbel picks its own default.
    cwd: str(args.cwd) ?? (host === undefined ? cwd : undefined),
    ...(host === undefined ? {} : { host }),
    model: str(args.model),
    env: envFromArgs(args.env),
    permissionMode: str(args.permissionMode),
    allowedTools: str(args.allowedTools),
    appendSystemPrompt: str(args.appendSystemPrompt),
    unattended: args.unattended === true,
    billing: billingFromArgs(args),
    ...maxWorkersFromArgs(args),
    ...(args.worktree === true || args.branch !== undefined || args.base !== undefined ? { worktree: worktreeFromArgs(args) } : {}),
    ...sandboxOption(args),
  };
}

function sandboxOption(args: Args): { sandbox?: SpawnOptions['sandbox'] } {
  const sandbox = sandboxFromArgs(args);
  return sandbox === undefined ? {} : { sandbox };
}

/** `--max-workers N` (a whole number; the schema refuses 0). */
export function maxWorkersFromArgs(args: Args): { maxWorkers?: number } {
  const maxWorkers = num(args.maxWorkers, 'max-workers');
  return maxWorkers === undefined ? {} : { maxWorkers };
}

/** `--billing subscription|any` (the schema refuses anything else). */
export function billingFromArgs(args: Args): SpawnOptions['billing'] {
  return str(args.billing) as SpawnOptions['billing'];
}

/** The options of a turn's wait that `wait` and `-p` share: its bounds and its check (argv → engine). */
export function turnWaitFromArgs(args: Args) {
  return {
    timeout: duration(str(args.timeout) ?? '30m', 'timeout'),
    idleTimeout: duration(str(args.idleTimeout), 'idle-timeout'),
    check: str(args.check),
    schema: str(args.schema),
    retries: num(args.retries, 'retries'),
    checkTimeout: duration(str(args.checkTimeout), 'check-timeout'),
  };
}

/** A duration flag checked now (before a worker is spawned for the wait that takes it). */
function duration<T extends string | undefined>(value: T, flag: string): T {
  const parsed = value === undefined ? undefined : DurationSchema.safeParse(value);
  if (parsed && !parsed.success) throw usageFromZod(parsed.error, `--${flag}`);
  return value;
}
