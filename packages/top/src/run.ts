/**
 * `umbel top` (the shell): the alternate screen, the ink view, the feed and the actions. Every way
 * out — `q`, Ctrl-C, SIGINT/SIGTERM/SIGHUP (the caller's `signal`), a crash of the view or of the
 * feed — unmounts ink (raw mode off, cursor shown) and leaves the alternate screen before it
 * returns or throws. Enter leaves the view for `attach` and comes back to it on detach.
 */
import { spawnSync } from 'node:child_process';
import type { Umbel } from '@umbel/core';
import { type Instance, render } from 'ink';
import { createElement } from 'react';
import { App } from './app.js';
import { createFeed, runFeed } from './feed.js';
import type { Action } from './keys.js';
import { createTopStore, type TopStore } from './store.js';

export interface TopOptions {
  readonly engine: Umbel;
  readonly stdin: NodeJS.ReadStream;
  readonly stdout: NodeJS.WriteStream;
  /** Aborted by the caller on SIGINT/SIGTERM/SIGHUP: `top` restores the terminal and returns. */
  readonly signal?: AbortSignal;
  /** Runs the attach command in the foreground (default: spawnSync with the terminal inherited). */
  readonly runAttach?: (command: { file: string; args: readonly string[]; env: Readonly<Record<string, string>> }) => void;
}

// The terminal's alternate screen (xterm's private mode 1049): what was on the screen before `top`
// comes back when it leaves. ink draws inside it; it has no option for it.
const ENTER_ALT = '\u001b[?1049h\u001b[H';
const LEAVE_ALT = '\u001b[?1049l';

type Exit = { readonly kind: 'quit' } | { readonly kind: 'attach'; readonly name: string } | { readonly kind: 'crash'; readonly error: unknown };

function describe(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0] || error.name : String(error);
}

/**
 * A dialog just drawn may not take keys yet: on the real claude 2.1.332 an Enter pressed as soon as
 * `wait` saw its permission dialog was lost (2 of 2 runs of tests/real/claude-top.test.ts), one
 * pressed 500 ms later approved it (3 of 3). `umbel keys` after `umbel wait` has a process start between them.
 */
const DIALOG_SETTLE_MS = 500;
/** How long y/n wait for the question to be drawn (a CLI fires its permission hook before it draws its dialog). */
const ANSWER_WAIT_MS = 15_000;

/**
 * Press an answer only to a question on the worker's screen: `wait` returns needs-input once the
 * provider sees the question drawn (keys pressed before it go into the input box instead). False
 * when the turn no longer waits on one.
 */
async function answer(engine: Umbel, action: { readonly name: string; readonly keys: readonly string[] }): Promise<boolean> {
  const outcome = await engine.wait({ name: action.name, timeout: ANSWER_WAIT_MS });
  if (outcome.reason !== 'needs-input') return false;
  await new Promise((resolve) => setTimeout(resolve, DIALOG_SETTLE_MS));
  await engine.keys({ name: action.name, keys: [...action.keys] });
  return true;
}

/** Carry out a key's action; `exit` ends the current view (quit, attach). */
function act(engine: Umbel, store: TopStore, action: Action, exit: (e: Exit) => void, refresh: () => void): void {
  const note = (text: string) => store.update((s) => ({ ...s, notice: text }));
  const fail = (error: unknown) => note(`${'name' in action ? `${action.name}: ` : ''}${describe(error)}`);
  if (action.kind === 'quit' || action.kind === 'attach') exit(action);
  else if (action.kind === 'send') {
    note(`sending to ${action.name}…`);
    engine.send({ name: action.name, prompt: action.prompt }).then((r) => note(`sent turn ${r.turn} to ${r.worker}${r.queued ? ' (queued)' : ''}`), fail);
  } else if (action.kind === 'keys') {
    note(`${action.name}: waiting for the question on its screen…`);
    answer(engine, action).then((pressed) => {
      note(pressed ? `pressed ${action.keys.join(' ')} in ${action.name}` : `${action.name}: no question on its screen any more; nothing pressed`);
      refresh();
    }, fail);
  } else {
    note(`killing ${action.name}…`);
    engine.kill({ name: action.name }).then(() => note(`killed ${action.name}`), fail);
  }
}

/** Show the view until it exits; the view is always unmounted before this returns. */
async function showView(store: TopStore, options: TopOptions, exited: Promise<Exit>): Promise<Exit> {
  options.stdout.write(ENTER_ALT);
  let instance: Instance | undefined;
  try {
    instance = render(createElement(App, { store }), { stdin: options.stdin, stdout: options.stdout, exitOnCtrlC: false, patchConsole: false });
    const crashed = instance.waitUntilExit().then(
      (): Exit => ({ kind: 'quit' }),
      (error: unknown): Exit => ({ kind: 'crash', error }),
    );
    return await Promise.race([exited, crashed]);
  } finally {
    instance?.unmount();
    instance?.cleanup();
    options.stdout.write(LEAVE_ALT);
  }
}

/** Run `top` until quit or `signal`; resolves with the exit code (0, or 130 after a signal). */
export async function runTop(options: TopOptions): Promise<number> {
  const { engine, signal } = options;
  const stop = new AbortController();
  let resolveExit: (e: Exit) => void = () => undefined;
  const nextExit = () =>
    new Promise<Exit>((resolve) => {
      resolveExit = resolve;
    });
  const store = createTopStore((action) =>
    act(
      engine,
      store,
      action,
      (e) => resolveExit(e),
      () => feed.refreshScreen(),
    ),
  );
  const feed = createFeed(engine, store);
  const onSignal = () => resolveExit({ kind: 'quit' });
  signal?.addEventListener('abort', onSignal, { once: true });
  const feeding = runFeed(engine, store, feed, stop.signal).catch((error: unknown) => {
    if (!stop.signal.aborted) resolveExit({ kind: 'crash', error });
  });
  const clock = setInterval(() => store.setNow(Date.now()), 1000);
  try {
    for (;;) {
      const exited = nextExit();
      if (signal?.aborted) resolveExit({ kind: 'quit' });
      const exit = await showView(store, options, exited);
      if (exit.kind === 'crash') throw exit.error;
      if (exit.kind === 'quit') return signal?.aborted ? 130 : 0;
      await attach(engine, exit.name, options, store);
      feed.refreshScreen(); // what happened there while attached
    }
  } finally {
    clearInterval(clock);
    signal?.removeEventListener('abort', onSignal);
    stop.abort();
    await feeding;
  }
}

async function attach(engine: Umbel, name: string, options: TopOptions, store: TopStore): Promise<void> {
  try {
    const command = await engine.attachCommand({ name });
    const run = options.runAttach ?? ((c) => spawnSync(c.file, [...c.args], { stdio: 'inherit', env: { ...c.env } }));
    run(command);
    store.update((s) => ({ ...s, notice: `back from ${name}` }));
  } catch (error) {
    store.update((s) => ({ ...s, notice: `${name}: ${describe(error)}` }));
  }
}
