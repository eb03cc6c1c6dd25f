/**
 * The keys of `umbel top` (pure): a key press and the state give the next state and, maybe, one
 * action for the shell to carry out (attach, send, press keys, kill, quit).
 */
import { keepSelection, moveSelection, selectedRow, type TopState } from './model.js';

/** What the shell does for a key. */
export type Action =
  | { readonly kind: 'quit' }
  | { readonly kind: 'attach'; readonly name: string }
  | { readonly kind: 'send'; readonly name: string; readonly prompt: string }
  | { readonly kind: 'keys'; readonly name: string; readonly keys: readonly string[] }
  | { readonly kind: 'kill'; readonly name: string };

/** The named keys `top` reads (ink's `Key` has these fields, among others). */
export interface KeyInfo {
  readonly upArrow?: boolean;
  readonly downArrow?: boolean;
  readonly pageUp?: boolean;
  readonly pageDown?: boolean;
  readonly return?: boolean;
  readonly escape?: boolean;
  readonly backspace?: boolean;
  readonly delete?: boolean;
  readonly ctrl?: boolean;
}

export interface KeyResult {
  readonly state: TopState;
  readonly action?: Action;
}

/**
 * The keys that answer a permission prompt, per provider: Codex asks y/n itself; Claude Code,
 * Gemini CLI and opencode select their first option with Enter and cancel with Escape.
 */
const ANSWER_KEYS: Readonly<Record<string, { readonly yes: readonly string[]; readonly no: readonly string[] }>> = {
  codex: { yes: ['y'], no: ['Escape'] },
};
const DEFAULT_ANSWER_KEYS = { yes: ['Enter'], no: ['Escape'] };

/** The keys that answer `yes`/`no` on a worker of `provider`. */
export function answerKeys(provider: string, yes: boolean): readonly string[] {
  const keys = ANSWER_KEYS[provider] ?? DEFAULT_ANSWER_KEYS;
  return yes ? keys.yes : keys.no;
}

const PAGE = 10;

function notice(state: TopState, text: string | undefined): TopState {
  const { notice: _old, ...rest } = state;
  return text === undefined ? rest : { ...rest, notice: text };
}

/** Typing into the input line: printable text appends, Backspace deletes, Escape cancels. */
function edit(text: string, input: string, key: KeyInfo): string | undefined {
  if (key.backspace || key.delete) return text.slice(0, -1);
  if (key.ctrl || key.escape || key.upArrow || key.downArrow) return text;
  return text + input.replace(/[\u0000-\u001f\u007f]/g, '');
}

function listKey(state: TopState, input: string, key: KeyInfo): KeyResult {
  if (key.upArrow || input === 'k') return { state: moveSelection(state, -1) };
  if (key.downArrow || input === 'j') return { state: moveSelection(state, 1) };
  if (key.pageUp) return { state: moveSelection(state, -PAGE) };
  if (key.pageDown) return { state: moveSelection(state, PAGE) };
  if (input === 'q' || (key.ctrl && input === 'c')) return { state, action: { kind: 'quit' } };
  if (input === '/') return { state: notice({ ...state, mode: { kind: 'filter', text: state.filter } }, undefined) };
  const row = selectedRow(state);
  if (!row) return { state };
  if (key.return) return { state: notice(state, undefined), action: { kind: 'attach', name: row.name } };
  if (input === 's') return { state: notice({ ...state, mode: { kind: 'prompt', name: row.name, text: '' } }, undefined) };
  if (input === 'x') return { state: notice({ ...state, mode: { kind: 'confirm-kill', name: row.name } }, undefined) };
  if (input === 'y' || input === 'n') {
    if (!row.asking) return { state: notice(state, `${row.name} is not asking for anything`) };
    return { state: notice(state, undefined), action: { kind: 'keys', name: row.name, keys: answerKeys(row.provider, input === 'y') } };
  }
  return { state };
}

/** One key press (a pasted or coalesced chunk that ends a line in the input line is its text, then Enter). */
export function handleKey(state: TopState, input: string, key: KeyInfo): KeyResult {
  const mode = state.mode;
  const cut = input.search(/[\r\n]/);
  if ((mode.kind === 'filter' || mode.kind === 'prompt') && !key.return && cut >= 0) {
    const typed = handleKey(state, input.slice(0, cut), {});
    return typed.action ? typed : handleKey(typed.state, '', { return: true });
  }
  const list = { ...state, mode: { kind: 'list' } as const };
  if (mode.kind === 'list') return listKey(state, input, key);
  if (mode.kind === 'confirm-kill') {
    if (input === 'y' || input === 'Y') return { state: list, action: { kind: 'kill', name: mode.name } };
    return { state: notice(list, 'kill cancelled') };
  }
  if (key.ctrl && input === 'c') return { state, action: { kind: 'quit' } };
  if (key.escape) return { state: mode.kind === 'filter' ? keepSelection(list) : list };
  if (mode.kind === 'filter') {
    if (key.return) return { state: keepSelection({ ...list, filter: mode.text.trim() }) };
    return { state: keepSelection({ ...state, mode: { ...mode, text: edit(mode.text, input, key) ?? mode.text } }) };
  }
  if (key.return) {
    if (mode.text.trim() === '') return { state: notice(list, 'nothing sent: the prompt is empty') };
    return { state: list, action: { kind: 'send', name: mode.name, prompt: mode.text } };
  }
  return { state: { ...state, mode: { ...mode, text: edit(mode.text, input, key) ?? mode.text } } };
}
