/**
 * The errors of the provider specification: the base every umbel error extends, and the errors a
 * provider (or the kit) throws on purpose. Recognised by a `Symbol.for` marker rather than
 * `instanceof`, so two copies of this package in one tree still agree. The engine adds its own
 * error classes and codes on the same base (`@umbel/core`).
 */

/** Stable string codes of the errors defined here; part of the public contract. */
export const ProviderErrorCode = {
  Usage: 'UMBEL_USAGE',
  OptionUnsupported: 'UMBEL_OPTION_UNSUPPORTED',
  SpawnFailed: 'UMBEL_SPAWN_FAILED',
  StateUnwritable: 'UMBEL_STATE_UNWRITABLE',
  ProviderInvalid: 'UMBEL_PROVIDER_INVALID',
  Internal: 'UMBEL_INTERNAL',
} as const;

const marker = 'umbel.error';
const symbol = Symbol.for(marker);

/** Base of every error umbel throws on purpose. */
export class UmbelError extends Error {
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: the marker isInstance() looks for
  private readonly [symbol] = true;
  /** Stable machine-readable code. */
  readonly code: string;
  /** A short suggestion for the person reading the message. */
  readonly hint: string | undefined;

  constructor(options: { name?: string; code: string; message: string; hint?: string; cause?: unknown }) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = options.name ?? 'UmbelError';
    this.code = options.code;
    this.hint = options.hint;
  }

  /** True for any UmbelError, including one from another copy of this package. */
  static isInstance(error: unknown): error is UmbelError {
    return error != null && typeof error === 'object' && symbol in error && (error as Record<symbol, unknown>)[symbol] === true;
  }

  /**
   * The error as plain data, one shape on every face (CLI `--json`, MCP, the RPC wire, workflow
   * results): `{code, name, message, hint?}` and the error's facts. A subclass declares a fact once,
   * by declaring a public field (worker, issues, paneTail, limit, path, host, …): every own field
   * beyond code, name and hint is one, except absent values and empty lists. A field named around
   * one of Error's own members (`cause_`) is the fact of its plain name (`cause`).
   */
  toJSON(): UmbelErrorJSON {
    return { code: this.code, name: this.name, message: this.message, ...(this.hint ? { hint: this.hint } : {}), ...factsOf(this) };
  }
}

/** The facts of an error: its own fields beyond the base ones (see `UmbelError.toJSON`). */
function factsOf(error: UmbelError): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(error)) {
    if (BASE_FIELDS.has(key) || value === undefined || (Array.isArray(value) && value.length === 0)) continue;
    out[key.endsWith('_') ? key.slice(0, -1) : key] = value;
  }
  return out;
}

/** The fields of every UmbelError, not facts of one. */
const BASE_FIELDS: ReadonlySet<string> = new Set(['code', 'name', 'message', 'hint', 'stack', 'cause']);

/** An error as plain data: `UmbelError.toJSON()` and what crosses every face. */
export interface UmbelErrorJSON {
  readonly code: string;
  readonly name: string;
  readonly message: string;
  readonly hint?: string;
  readonly [fact: string]: unknown;
}

/** Bad input from the caller: flags, arguments, schema violations. Exit 2. */
export class UsageError extends UmbelError {
  /** Zod-style issues, when the error came from schema validation. */
  readonly issues: readonly { path: string; message: string }[];
  constructor(message: string, options: { code?: string; hint?: string; issues?: readonly { path: string; message: string }[]; cause?: unknown } = {}) {
    super({ name: 'UsageError', code: options.code ?? ProviderErrorCode.Usage, message, hint: options.hint, cause: options.cause });
    this.issues = options.issues ?? [];
  }
}

/** The provider does not support an option the caller asked for. Exit 2. */
export class OptionUnsupportedError extends UsageError {
  constructor(provider: string, option: string, detail?: string) {
    super(`provider '${provider}' does not support ${option}${detail ? `: ${detail}` : ''}`, { code: ProviderErrorCode.OptionUnsupported });
    this.name = 'OptionUnsupportedError';
  }
}

/** Spawn could not bring the worker to its ready prompt. Exit 1. */
export class SpawnFailedError extends UmbelError {
  readonly paneTail: string | undefined;
  constructor(message: string, options: { paneTail?: string; cause?: unknown; hint?: string } = {}) {
    super({ name: 'SpawnFailedError', code: ProviderErrorCode.SpawnFailed, message, cause: options.cause, hint: options.hint });
    this.paneTail = options.paneTail;
  }
}

/** The state root cannot be written (full disk, read-only, no permission). Exit 1. */
export class StateUnwritableError extends UmbelError {
  readonly path: string;
  readonly errno: string;
  constructor(path: string, errno: string, cause?: unknown) {
    const why: Record<string, string> = {
      ENOSPC: 'no space left',
      EDQUOT: 'disk quota exceeded',
      EROFS: 'read-only file system',
      EACCES: 'permission denied',
      EPERM: 'operation not permitted',
    };
    super({
      name: 'StateUnwritableError',
      code: ProviderErrorCode.StateUnwritable,
      message: `${why[errno] ?? errno} on the state root (${path})`,
      hint:
        errno === 'ENOSPC' || errno === 'EDQUOT'
          ? 'free some space (umbel prune removes dead workers), then try again'
          : 'set UMBEL_HOME to a writable directory',
      cause,
    });
    this.path = path;
    this.errno = errno;
  }
}
