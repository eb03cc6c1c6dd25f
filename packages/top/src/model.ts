/**
 * The view model of `umbel top` (pure): one row per worker, built from the engine's statuses and
 * updated by its fleet events; the selection, the filter and the mode of the input line. Nothing
 * here does I/O or knows about the terminal: the shell (./run.ts) feeds it, the view (./view.ts)
 * draws it.
 */
import type { FleetEvent, Quota, WorkerStatus } from '@umbel/core';

/** One worker as `top` shows it. */
export interface Row {
  readonly name: string;
  readonly host?: string;
  readonly provider: string;
  readonly state: string;
  readonly turn: number;
  /** ISO time of the last activity (an event, or the status's lastActivityAt). */
  readonly lastActivityAt?: string;
  readonly billing: string;
  readonly quota?: string;
  /** The first line of the last answer, or what the worker asks for. */
  readonly line: string;
  /** What it asks for, while it does: the keys `y`/`n` answer only then. */
  readonly asking?: string;
}

/** What the input line is doing. */
export type Mode =
  | { readonly kind: 'list' }
  | { readonly kind: 'filter'; readonly text: string }
  | { readonly kind: 'prompt'; readonly name: string; readonly text: string }
  | { readonly kind: 'confirm-kill'; readonly name: string };

export interface TopState {
  /** Sorted by name. */
  readonly rows: readonly Row[];
  readonly selected?: string;
  readonly filter: string;
  readonly mode: Mode;
  /** One line of feedback (the last action's result or error). */
  readonly notice?: string;
}

export const initialState: TopState = { rows: [], filter: '', mode: { kind: 'list' } };

/** The first non-empty line of a text, trimmed. */
export function firstLine(text: string | undefined): string {
  return (
    (text ?? '')
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? ''
  );
}

function askingLine(needs: { kind: string; tool?: string; message?: string }): string {
  // a permission message often starts with the tool's name already (`Bash: touch x`)
  const message = firstLine(needs.message);
  const said = needs.tool && message.startsWith(`${needs.tool}: `) ? message.slice(needs.tool.length + 2) : message;
  return `asks ${needs.kind}${needs.tool ? ` ${needs.tool}` : ''}${said ? `: ${said}` : ''}`;
}

/** `5h 42% 7d 10%` (the windows the CLI reported). */
export function formatQuota(quota: Quota | undefined): string | undefined {
  if (!quota) return undefined;
  const parts: string[] = [];
  if (quota.fiveHour) parts.push(`5h ${Math.round(quota.fiveHour.usedPercent)}%`);
  if (quota.sevenDay) parts.push(`7d ${Math.round(quota.sevenDay.usedPercent)}%`);
  return parts.length > 0 ? parts.join(' ') : undefined;
}

/** A row from a status; the answer line a previous row had is kept (a status has no answer). */
export function rowFromStatus(status: WorkerStatus, previous?: Row): Row {
  const asking = status.state === 'needs-input' && status.needsInput ? askingLine(status.needsInput) : undefined;
  const quota = formatQuota(status.quota);
  return {
    name: status.name,
    ...(status.host ? { host: status.host } : {}),
    provider: status.provider,
    state: status.state,
    turn: status.turn,
    ...(latest(status.lastActivityAt, previous?.lastActivityAt) ? { lastActivityAt: latest(status.lastActivityAt, previous?.lastActivityAt) } : {}),
    billing: status.billing,
    ...(quota ? { quota } : {}),
    line: asking ?? (previous?.asking ? '' : (previous?.line ?? '')),
    ...(asking ? { asking } : {}),
  };
}

function latest(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Date.parse(a) >= Date.parse(b) ? a : b;
}

function upsert(state: TopState, row: Row): TopState {
  const rows = state.rows.filter((r) => r.name !== row.name);
  rows.push(row);
  rows.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return keepSelection({ ...state, rows });
}

/** Replace every row (the fleet as `list` found it), keeping what the statuses do not carry. */
export function applyStatuses(state: TopState, statuses: readonly WorkerStatus[]): TopState {
  const old = new Map(state.rows.map((r) => [r.name, r]));
  const rows = statuses.map((s) => rowFromStatus(s, old.get(s.name))).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return keepSelection({ ...state, rows });
}

/** States a worker never leaves (a name spawned again starts over with its `spawned` event). */
const FINAL = new Set(['exited', 'dead', 'killed']);

/**
 * One worker's fresh status. An ended worker stays ended: a host running an umbel older than this
 * one says `ready` while its kill ends the session (this umbel's status says `killed` from the
 * moment the kill is recorded; the feed already drops a status asked before the latest one).
 */
export function applyStatus(state: TopState, status: WorkerStatus): TopState {
  const previous = state.rows.find((r) => r.name === status.name);
  const row = rowFromStatus(status, previous);
  const ended = previous && FINAL.has(previous.state) && !FINAL.has(row.state);
  return upsert(state, ended ? { ...row, state: previous.state } : row);
}

/** The first line of a turn's answer (read after its `ended` event). */
export function applyAnswer(state: TopState, name: string, turn: number, text: string): TopState {
  const row = state.rows.find((r) => r.name === name);
  if (!row || row.turn !== turn || row.asking) return state;
  return upsert(state, { ...row, line: firstLine(text) });
}

const EVENT_STATE: Partial<Record<FleetEvent['kind'], string>> = {
  spawned: 'starting',
  ready: 'ready',
  sent: 'busy',
  'needs-input': 'needs-input',
  ended: 'ready',
  dead: 'dead',
  killed: 'killed',
  'host-unreachable': 'unreachable',
};

function eventLine(event: FleetEvent, row: Row | undefined): Pick<Row, 'line' | 'asking'> {
  if (event.kind === 'needs-input') {
    const asking = askingLine({
      kind: event.input ?? 'input',
      ...(event.tool ? { tool: event.tool } : {}),
      ...(event.message ? { message: event.message } : {}),
    });
    return { line: asking, asking };
  }
  if (event.kind === 'ended' && event.reason !== 'completed') return { line: `${event.reason}${event.message ? `: ${firstLine(event.message)}` : ''}` };
  if (event.kind === 'sent') return { line: '' };
  if (event.kind === 'host-unreachable') return { line: `host unreachable${event.message ? `: ${firstLine(event.message)}` : ''}` };
  return { line: row?.asking ? '' : (row?.line ?? '') };
}

/** What an event says at once (before the worker's status is asked again). */
export function applyEvent(state: TopState, event: FleetEvent): TopState {
  const row = state.rows.find((r) => r.name === event.worker);
  const next = EVENT_STATE[event.kind] ?? row?.state ?? 'starting';
  const base: Row = row ?? {
    name: event.worker,
    provider: event.provider,
    state: next,
    turn: 0,
    billing: 'unknown',
    line: '',
    ...(event.host ? { host: event.host } : {}),
  };
  const { asking: _asking, ...rest } = base;
  const updated: Row = {
    ...rest,
    state: next,
    turn: Math.max(base.turn, event.turn ?? 0),
    lastActivityAt: latest(event.at, base.lastActivityAt) ?? event.at,
    ...eventLine(event, row),
  };
  return upsert(state, updated);
}

/** The rows the filter lets through (a case-insensitive substring of name, provider, state or host). */
export function visibleRows(state: TopState): readonly Row[] {
  const filter = state.mode.kind === 'filter' ? state.mode.text : state.filter;
  const needle = filter.trim().toLowerCase();
  if (needle === '') return state.rows;
  return state.rows.filter((r) => [r.name, r.provider, r.state, r.host ?? ''].some((f) => f.toLowerCase().includes(needle)));
}

/** The selection stays on its worker while it is visible, else moves to the first visible one. */
export function keepSelection(state: TopState): TopState {
  const rows = visibleRows(state);
  if (state.selected !== undefined && rows.some((r) => r.name === state.selected)) return state;
  const { selected: _selected, ...rest } = state;
  return rows[0] ? { ...rest, selected: rows[0].name } : rest;
}

/** Move the selection by `delta` rows (clamped). */
export function moveSelection(state: TopState, delta: number): TopState {
  const rows = visibleRows(state);
  if (rows.length === 0) return state;
  const at = Math.max(
    0,
    rows.findIndex((r) => r.name === state.selected),
  );
  const to = Math.min(rows.length - 1, Math.max(0, at + delta));
  return { ...state, selected: rows[to]?.name };
}

/** The selected row, if any. */
export function selectedRow(state: TopState): Row | undefined {
  return state.rows.find((r) => r.name === state.selected);
}

/** `12s`, `5m`, `3h`, `2d`; `-` when unknown. */
export function formatAge(iso: string | undefined, nowMs: number): string {
  if (iso === undefined) return '-';
  const seconds = Math.max(0, Math.floor((nowMs - Date.parse(iso)) / 1000));
  if (!Number.isFinite(seconds)) return '-';
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

/** The slice of `count` rows to show out of `total` so that `index` stays in view (a scrolling window). */
export function windowOf(total: number, index: number, count: number): { start: number; end: number } {
  if (count <= 0) return { start: 0, end: 0 };
  if (total <= count) return { start: 0, end: total };
  const start = Math.min(Math.max(0, index - Math.floor(count / 2)), total - count);
  return { start, end: start + count };
}
