/** Formatting helpers shared by the verbs. */
import { type ErrorBody, errorBody, errorExitCode, type FleetEvent, type HostReport, type LogEntry, UmbelError, type WorkerStatus } from '@umbel/core';
import type { Out } from './io.js';

/** Print one JSON value as a line. */
export function printJson(out: Out, value: unknown): void {
  out.write(`${JSON.stringify(value)}\n`);
}

/**
 * Report an error once, at the face, from core's one error body: `umbel: message` (+ hint, + the
 * last screen) on stderr, and the body as JSON on stdout with `--json`. Returns the exit code.
 */
export function reportError(error: unknown, io: { stdout: Out; stderr: Out }, json: boolean): number {
  const body = errorBody(error);
  if (json) printJson(io.stdout, { error: body });
  io.stderr.write(errorText(error, body));
  return errorExitCode(error);
}

/** The text of an error body for a person; a bug (not a typed error) with its stack. */
export function errorText(error: unknown, body: ErrorBody = errorBody(error)): string {
  if (!UmbelError.isInstance(error)) {
    return `umbel: internal error (this is a bug, please report it):\n${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`;
  }
  const paneTail = typeof body.paneTail === 'string' && body.paneTail ? `--- last screen ---\n${body.paneTail}\n` : '';
  return `umbel: ${body.message}\n${body.hint ? `  hint: ${body.hint}\n` : ''}${paneTail}`;
}

/**
 * One `logs` line per event: time, kind, summary. Line breaks and other control characters in the
 * summary (a multi-line answer) are escaped (`\n`, `\t`, `\u001b`), so each event stays one line.
 */
export function logLine(entry: LogEntry): string {
  return `${entry.at}  ${entry.kind.padEnd(12)}  ${oneLine(entry.summary)}\n`;
}

/** One `events` line: time, worker (@host), provider, kind, then what the kind tells. */
export function eventLine(e: FleetEvent): string {
  const details = [
    e.turn !== undefined ? `turn ${e.turn}` : undefined,
    e.reason ? `${e.reason} (exit ${e.exitCode})` : undefined,
    e.input ? `${e.input}${e.tool ? ` ${e.tool}` : ''}` : undefined,
    e.status !== undefined ? `status ${e.status}` : undefined,
    e.signal,
    e.message === undefined ? undefined : oneLine(e.message),
  ].filter((d) => d !== undefined);
  return `${[e.at, `${e.worker}${e.host ? `@${e.host}` : ''}`, e.provider, e.kind.padEnd(11), ...details].join('  ').trimEnd()}\n`;
}

const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function ago(iso: string | undefined, now: number): string {
  if (!iso) return '—';
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86400)}d ago`;
}

function stateText(w: WorkerStatus): string {
  if (w.state === 'needs-input') return `needs-input${w.needsInput?.tool ? ` (${w.needsInput.tool})` : w.needsInput?.kind ? ` (${w.needsInput.kind})` : ''}`;
  if (w.state === 'dead' || w.state === 'exited')
    return `${w.state}${w.exit?.signal ? ` (${w.exit.signal})` : w.exit?.status !== undefined ? ` (exit ${w.exit.status})` : ''}`;
  return w.state;
}

function shortenPath(path: string, max: number): string {
  return path.length <= max ? path : `…${path.slice(path.length - max + 1)}`;
}

/** One stderr line per host that did not answer (its workers' state is unknown, not dead). */
export function unreachableHosts(hosts: readonly HostReport[]): string {
  return hosts
    .filter((h) => !h.reachable)
    .map((h) => {
      const shown =
        h.workers === 0 ? '' : `; ${h.workers === 1 ? 'the worker recorded there is' : `the ${h.workers} workers recorded there are`} shown as unreachable`;
      return `umbel: host ${h.host} is unreachable (${h.reason ?? 'no answer'})${shown}\n`;
    })
    .join('');
}

/** An aligned table of workers (HOST: `local` for this machine's). */
export function statusTable(workers: readonly WorkerStatus[], now = Date.now()): string {
  if (workers.length === 0) return 'No workers.\n';
  // The BRANCH column only when a worker runs in its own worktree (spawn --worktree).
  const branches = workers.some((w) => w.worktree);
  const branch = (w: WorkerStatus) => (branches ? [w.worktree?.branch ?? '—'] : []);
  const rows = [['NAME', 'PROVIDER', 'STATE', 'TURN', 'MODEL', 'CWD', ...(branches ? ['BRANCH'] : []), 'HOST', 'CREATED', 'LAST ACTIVITY']];
  for (const w of workers)
    rows.push([
      w.name,
      w.provider,
      stateText(w),
      `${w.completedTurn}/${w.turn}`,
      w.model ?? '—',
      w.cwd === '' ? '—' : shortenPath(w.cwd, 32),
      ...branch(w),
      w.host ?? 'local',
      ago(w.createdAt, now),
      ago(w.lastActivityAt, now),
    ]);
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return `${rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ')).join('\n')}\n`;
}
