/**
 * How @umbel/tmux reads tmux: the session names it keeps verbatim, the targets and escapes of its
 * arguments, the `list-panes` fields of a liveness probe, and which answers mean "absent",
 * "duplicate" or a failure.
 */
import { randomBytes } from 'node:crypto';
import { type PaneState, SubstrateError, UmbelErrorCode, UsageError } from '@umbel/core';
import { FIELD_SEPARATOR } from './constants.js';
import type { TmuxResult } from './run-tmux.js';
import { normalizeSignal } from './signals.js';

/** Session names tmux keeps verbatim (no `:` `.`, no format `#`, no leading `-`). */
export const SESSION_NAME = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,199}$/;

/**
 * tmux's answers that mean "there is no such session" (or no server at all). tmux 3.3a, found by
 * racing kills and reads against kill-session/kill-server: `no current target` (the server has no
 * session left, so it cannot even find a default: printed for any command, target or not), `server
 * exited unexpectedly` and `lost server` (it went away while answering), `no server running on …`.
 */
const ABSENT =
  /no server running|no current target|server exited unexpectedly|lost server|can't find session|can't find window|can't find pane|session not found|error connecting to .*\((?:No such file or directory|Connection refused)\)/i;

/** new-session's answer when the server already has a session of that name (tmux 3.3a: `duplicate session: NAME`). */
export const DUPLICATE = /^duplicate session: /m;

/** The `list-panes` fields of a liveness probe. */
export const PANE_FORMAT = ['#{pane_dead}', '#{pane_dead_status}', '#{pane_dead_signal}', '#{pane_pid}'].join(FIELD_SEPARATOR);

/** One `PANE_FORMAT` row as a PaneState, or undefined when the row is not one. */
export function paneStateOf(row: string): PaneState | undefined {
  const [deadField, statusField, signalField, pidField] = row.split(FIELD_SEPARATOR);
  if (deadField === undefined || deadField === '') return undefined;
  if (deadField !== '1') {
    const pid = Number(pidField);
    return { exists: true, dead: false, ...(Number.isInteger(pid) && pid > 0 ? { pid } : {}) };
  }
  const signal = normalizeSignal(signalField);
  const status = statusField !== undefined && /^\d+$/.test(statusField) ? Number(statusField) : undefined;
  return { exists: true, dead: true, ...(signal !== undefined ? { signal } : status !== undefined ? { exitStatus: status } : {}) };
}

/**
 * tmux splits a command list at any argument that ends with `;` (and turns a trailing `\;` into `;`),
 * so every argument we did not write ourselves is escaped: a trailing `;` becomes `\;`.
 */
export function escapeTmuxArgument(arg: string): string {
  return arg.endsWith(';') ? `${arg.slice(0, -1)}\\;` : arg;
}

/** Escape `#` for options tmux expands as formats (`new-session -c`). */
export function escapeFormat(value: string): string {
  return value.replaceAll('#', '##');
}

/**
 * Target of commands that take a window or pane (`list-panes`, `capture-pane`, `send-keys`,
 * `paste-buffer`): `=<s>:`. A bare `=<s>` there is read as a window name first and then matches a
 * session by prefix (tmux 3.3a: `list-panes -s -t =umbel-on` lists `umbel-one`).
 */
export function windowTarget(session: string): string {
  return `=${session}:`;
}

export function checkSession(session: string): void {
  if (!SESSION_NAME.test(session)) {
    throw new UsageError(`invalid tmux session name '${session}' (letters, digits, '_' and '-' only)`);
  }
}

export function failed(what: string, result: TmuxResult, facts: { sessionExists?: boolean } = {}): SubstrateError {
  const detail = result.stderr.trim();
  return new SubstrateError({
    code: UmbelErrorCode.TmuxFailed,
    message: `tmux ${what} failed (exit ${result.code})${detail ? `: ${detail}` : ''}`,
    stderr: result.stderr,
    ...facts,
  });
}

export function isAbsent(result: TmuxResult): boolean {
  return ABSENT.test(result.stderr);
}

/** A random suffix for the names of umbel's tmux buffers (never shared between two calls). */
export function uniqueSuffix(): string {
  return randomBytes(6).toString('hex');
}
