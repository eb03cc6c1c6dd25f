/**
 * The state `top` draws, outside React so it outlives a remount (attach leaves the view and comes
 * back): the view model, the selected worker's screen and the clock of the age column. Every
 * change notifies the view once; a key press goes through ./keys.ts and its action to the shell.
 */
import { type Action, handleKey, type KeyInfo } from './keys.js';
import { initialState, type TopState } from './model.js';

export interface Snapshot {
  readonly state: TopState;
  readonly screen?: { readonly name: string; readonly text: string };
  readonly nowMs: number;
}

export interface TopStore {
  readonly subscribe: (listener: () => void) => () => void;
  readonly snapshot: () => Snapshot;
  /** Change the view model. */
  update(change: (state: TopState) => TopState): void;
  setScreen(screen: Snapshot['screen']): void;
  setNow(nowMs: number): void;
  /** A key press: the next state, and its action handed to `onAction`. */
  key(input: string, key: KeyInfo): void;
}

export function createTopStore(onAction: (action: Action) => void, nowMs = Date.now()): TopStore {
  let snap: Snapshot = { state: initialState, nowMs };
  const listeners = new Set<() => void>();
  const set = (next: Snapshot) => {
    if (next === snap) return;
    snap = next;
    for (const listener of listeners) listener();
  };
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    snapshot: () => snap,
    update(change) {
      const state = change(snap.state);
      if (state !== snap.state) set({ ...snap, state });
    },
    setScreen(screen) {
      const { screen: _old, ...rest } = snap;
      set(screen ? { ...rest, screen } : rest);
    },
    setNow(now) {
      if (Math.floor(now / 1000) !== Math.floor(snap.nowMs / 1000)) set({ ...snap, nowMs: now });
    },
    key(input, key) {
      const result = handleKey(snap.state, input, key);
      if (result.state !== snap.state) set({ ...snap, state: result.state });
      if (result.action) onAction(result.action);
    },
  };
}
