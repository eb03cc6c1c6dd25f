/**
 * What feeds `top` (I/O): the fleet as `list` finds it once, then the engine's event stream
 * (`events --follow`, every host): each event updates its row at once, then that worker's status
 * is asked again, a completed turn's answer read, and the selected worker's screen captured. No
 * timer redraws anything: a still fleet costs nothing.
 */
import type { FleetEvent, Umbel } from '@umbel/core';
import { applyAnswer, applyEvent, applyStatus, applyStatuses, type TopState } from './model.js';
import type { TopStore } from './store.js';

/** Lines of the screen the detail pane asks for (it shows the last ones that fit). */
const CAPTURE_LINES = 60;

export interface Feed {
  /** Capture the selected worker's screen again (selection changed, or after an action). */
  refreshScreen(): void;
  /** Ask one worker's status again. */
  refreshWorker(name: string): void;
}

export function createFeed(engine: Umbel, store: TopStore): Feed {
  let captured: string | undefined;
  const refreshScreen = () => {
    const name = store.snapshot().state.selected;
    captured = name;
    if (name === undefined) return store.setScreen(undefined);
    engine
      .capture({ name, lines: CAPTURE_LINES })
      .then((result) => {
        if (store.snapshot().state.selected === name) store.setScreen({ name, text: result.text });
      })
      .catch(() => undefined);
  };
  // Two asks of one worker's status may answer out of order: only the latest one asked is applied.
  const asked = new Map<string, number>();
  let asks = 0;
  const refreshWorker = (name: string) => {
    const ask = ++asks;
    asked.set(name, ask);
    engine
      .status({ name })
      .then((status) => {
        if (asked.get(name) === ask) store.update((s) => applyStatus(s, status));
      })
      .catch(() => undefined);
  };
  store.subscribe(() => {
    if (store.snapshot().state.selected !== captured) refreshScreen();
  });
  return { refreshScreen, refreshWorker };
}

/** The answers of the turns that had already ended when `top` started. */
function readKnownAnswers(engine: Umbel, store: TopStore, state: TopState, signal: AbortSignal): Promise<void> {
  const ended = state.rows.filter((r) => r.turn > 0 && (r.state === 'ready' || r.state === 'exited' || r.state === 'dead' || r.state === 'killed'));
  return ended.reduce<Promise<void>>(
    (chain, row) =>
      chain.then(async () => {
        if (signal.aborted) return;
        const answer = await engine.read({ name: row.name, turn: row.turn }).catch(() => undefined);
        if (answer?.complete) store.update((s) => applyAnswer(s, row.name, row.turn, answer.result));
      }),
    Promise.resolve(),
  );
}

/** One event: its row at once, then what it makes worth asking again. */
function onEvent(engine: Umbel, store: TopStore, feed: Feed, event: FleetEvent): void {
  store.update((s) => applyEvent(s, event));
  feed.refreshWorker(event.worker);
  if (event.kind === 'ended' && event.reason === 'completed' && event.turn !== undefined) {
    const { worker, turn } = event;
    engine
      .read({ name: worker, turn })
      .then((r) => store.update((s) => applyAnswer(s, worker, turn, r.result)))
      .catch(() => undefined);
  }
  if (store.snapshot().state.selected === event.worker) feed.refreshScreen();
}

/** List the fleet, then follow its events until `signal`; a failure of the stream is reported once. */
export async function runFeed(engine: Umbel, store: TopStore, feed: Feed, signal: AbortSignal): Promise<void> {
  const since = new Date().toISOString();
  const workers = engine.listFleet ? (await engine.listFleet()).workers : await engine.list();
  store.update((s) => applyStatuses(s, workers));
  feed.refreshScreen();
  void readKnownAnswers(engine, store, store.snapshot().state, signal);
  for await (const event of engine.events({ follow: true, since }, { signal })) onEvent(engine, store, feed, event);
}
