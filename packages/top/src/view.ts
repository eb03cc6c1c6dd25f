/**
 * What `umbel top` draws (pure text): the header, the table of workers (a window that keeps the
 * selection in view), the selected worker's screen and the input line — as lines cut to the
 * terminal's width, so the ink component (./app.ts) only lays them out.
 */
import { formatAge, selectedRow, type Row, type TopState, visibleRows, windowOf } from './model.js';

export interface Frame {
  readonly header: string;
  readonly columns: string;
  /** The table's lines; `selected` is the index of the selected one. */
  readonly rows: readonly string[];
  readonly selected: number;
  /** The detail pane: a title and the screen's last lines. */
  readonly detailTitle: string;
  readonly detail: readonly string[];
  readonly detailHeight: number;
  readonly footer: string;
}

export interface FrameInput {
  readonly state: TopState;
  readonly screen?: { readonly name: string; readonly text: string };
  readonly nowMs: number;
  readonly width: number;
  readonly height: number;
}

interface Column {
  readonly title: string;
  readonly width: number;
  readonly value: (row: Row, nowMs: number) => string;
}

const BILLING: Readonly<Record<string, string>> = { subscription: 'plan', api: 'api', unknown: '?' };

function columnsFor(rows: readonly Row[]): Column[] {
  const columns: Column[] = [
    { title: 'NAME', width: 12, value: (r) => r.name },
    { title: 'STATE', width: 11, value: (r) => r.state },
    { title: 'PROVIDER', width: 8, value: (r) => r.provider },
  ];
  if (rows.some((r) => r.host)) columns.push({ title: 'HOST', width: 8, value: (r) => r.host ?? '-' });
  columns.push(
    { title: 'TURN', width: 4, value: (r) => String(r.turn) },
    { title: 'AGE', width: 4, value: (r, now) => formatAge(r.lastActivityAt, now) },
    { title: 'BILL', width: 4, value: (r) => BILLING[r.billing] ?? r.billing },
  );
  if (rows.some((r) => r.quota)) columns.push({ title: 'QUOTA', width: 13, value: (r) => r.quota ?? '-' });
  return columns;
}

/** `text` cut or padded to exactly `width` columns (a cut ends with `…`). */
export function clip(text: string, width: number): string {
  if (width <= 0) return '';
  const flat = text.replace(/[\u0000-\u001f\u007f]/g, ' ');
  if (flat.length <= width) return flat.padEnd(width);
  return `${flat.slice(0, width - 1)}…`;
}

function line(columns: readonly Column[], cells: readonly string[], width: number): string {
  const fixed = columns.map((c, i) => clip(cells[i] ?? '', c.width)).join(' ');
  const rest = width - fixed.length - 1;
  return rest > 0 ? `${fixed} ${clip(cells[columns.length] ?? '', rest)}` : clip(fixed, width);
}

function footer(state: TopState): string {
  const mode = state.mode;
  if (mode.kind === 'filter') return `/${mode.text}▏  (Enter keep, Esc clear)`;
  if (mode.kind === 'prompt') return `send to ${mode.name}> ${mode.text}▏  (Enter send, Esc cancel)`;
  if (mode.kind === 'confirm-kill') return `kill ${mode.name}? y/N`;
  return state.notice ?? '↑↓/jk select  Enter attach  s send  y/n answer  x kill  / filter  q quit';
}

function screenLines(text: string, count: number, width: number): string[] {
  const lines = text.replace(/\s+$/, '').split('\n');
  return lines.slice(Math.max(0, lines.length - count)).map((l) => clip(l.trimEnd(), width).trimEnd());
}

/** The frame for a terminal of `width` × `height`: the table gets what the detail pane leaves. */
export function frame({ state, screen, nowMs, width, height }: FrameInput): Frame {
  const rows = visibleRows(state);
  const columns = columnsFor(state.rows);
  const detailHeight = Math.max(0, Math.min(12, Math.floor((height - 5) / 2)));
  const tableHeight = Math.max(1, height - 5 - detailHeight);
  const index = rows.findIndex((r) => r.name === state.selected);
  const { start, end } = windowOf(rows.length, Math.max(0, index), tableHeight);
  const filter = state.filter === '' ? '' : `  filter: ${state.filter}`;
  const shown = rows.length === state.rows.length ? `${rows.length}` : `${rows.length}/${state.rows.length}`;
  const selected = selectedRow(state);
  const title = selected ? `── ${selected.name}${screen?.name === selected.name ? '' : ' (…)'} ` : '── no worker ';
  return {
    header: clip(`umbel top  ${shown} workers${filter}${rows.length > tableHeight ? `  ${start + 1}-${end}` : ''}`, width).trimEnd(),
    columns: line(columns, [...columns.map((c) => c.title), 'LAST'], width).trimEnd(),
    rows: rows.slice(start, end).map((r) => line(columns, [...columns.map((c) => c.value(r, nowMs)), r.line], width).trimEnd()),
    selected: index - start,
    detailTitle: clip(title.padEnd(width, '─'), width),
    detail: selected && screen?.name === selected.name ? screenLines(screen.text, detailHeight, width) : [],
    detailHeight,
    footer: clip(footer(state), width).trimEnd(),
  };
}
