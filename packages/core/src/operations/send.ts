/**
 * send: deliver a prompt exactly as given and confirm the CLI took it. Sends to one worker run one
 * at a time, in the order they take the worker's send lock (a directory); each opens the next turn
 * and returns once its prompt was accepted — or, on a busy worker, queued behind the running turn.
 * A prompt that never gets in is recorded as `send-failed`, which closes its turn as not submitted
 * (it never takes a later turn's events), and the CLI's input box is cleared.
 */
import { accountDialogOf } from './account-dialog.js';
import type { EngineContext } from '../engine/context.js';
import { deathFacts } from '../ledger/death.js';
import {
  AbortedError,
  AccountDialogError,
  type InputBoxAtFailure,
  inputBoxSays,
  SendBusyError,
  SendNotSubmittedError,
  UmbelError,
  WorkerDeadError,
} from '../contract/errors.js';
import { snapshotTree } from '../git/git-tree.js';
import { loadWorker, usableWorker } from '../ledger/ledger.js';
import type { TurnView, UsableView } from '../ledger/ledger-types.js';
import { writeOwnEvent } from '../ledger/own-events.js';
import { guarded } from '../engine/provider-guard.js';
import type { SendResult } from '../contract/schemas.js';
import type { SendContext } from '../contract/umbel.js';
import { nextTurnNumber, turnStarted } from '../ledger/turns.js';
import { lastNonBlankLines, sleep } from '../engine/util.js';
import { acquireOwnedLock, type HeldLock } from '../engine/owned-lock.js';
import { aliveRecently } from '../engine/alive.js';
import type { ProcessOwner } from '../engine/process-owner.js';
import type { Provider } from '@umbel/provider';
import { watchDir, type DirWatcher } from '../wait/watch.js';
import { inputBoxText } from './prompt-text.js';

const LOCK_WAIT_MS = 30_000;

/** Take the worker's send lock (a dead sender's is broken at once); SIGINT (`signal`) ends the wait. */
export function acquireLock(path: string, worker: string, signal?: AbortSignal): Promise<HeldLock> {
  return acquireOwnedLock(path, { waitMs: LOCK_WAIT_MS, ...(signal ? { signal } : {}), busy: (ms) => new SendBusyError(worker, ms) });
}

/**
 * A send killed while it held the lock (`dead`) may have left its turn open, its text in the input
 * box: unless the CLI takes that turn within the confirm window (or it is queued behind a running
 * turn, the box empty), it is closed as not submitted and the box cleared, so it never takes the
 * next turn's events.
 */
export async function closeOrphanTurn(ctx: EngineContext, name: string, dead: ProcessOwner, signal?: AbortSignal): Promise<void> {
  const view = usableWorker(ctx, name);
  const last = view.turns.at(-1);
  if (!last || last.notSubmitted || last.accepted || last.end || last.inputs.length > 0) return;
  if (last.sent.at < BigInt(dead.at) * 1_000_000n) return; // sent before the dead sender took the lock
  const watcher = await watchDir(view.paths.events);
  try {
    const seen = await confirmWithin(ctx, view, last.turn, view.provider.input?.confirmTimeoutMs ?? 1500, watcher, signal);
    if (seen.turn || (seen.busyBefore && !(await inputBoxHolds(ctx, view)))) return;
  } finally {
    await watcher.close();
  }
  await writeOwnEvent(view.paths.events, 'send-failed', {
    turn: last.turn,
    reason: 'not-submitted',
    message: 'its send was killed before the CLI took the prompt',
  });
  await clearInput(ctx, view).catch(() => undefined);
}

/** The text in the CLI's input box; undefined when the provider cannot read it or the screen shows none. */
async function readInputBox(ctx: EngineContext, view: UsableView): Promise<string | undefined> {
  const provider = view.provider;
  if (!provider.doReadInputBox) return undefined;
  const screen = await ctx.substrate.capture(view.session, { lines: 40 }).catch(() => undefined);
  if (screen === undefined) return undefined;
  return guarded(provider, 'doReadInputBox', () => provider.doReadInputBox?.(screen));
}

/** Whether the CLI's input box holds text (false when the provider cannot read it). */
export async function inputBoxHolds(ctx: EngineContext, view: UsableView): Promise<boolean> {
  const box = await readInputBox(ctx, view);
  return box !== undefined && box.trim() !== '';
}

/**
 * Whether the CLI took the prompt without starting it: a CLI whose prompt hook confirms every prompt
 * it takes (`promptHook: 'every-prompt'`) and whose input box reads empty after the text was put in
 * it queued the prompt behind a turn of its own that fired no hook (Qwen Code's `<task-notification>`).
 */
async function queuedUnseen(ctx: EngineContext, view: UsableView): Promise<boolean> {
  return view.provider.promptHook === 'every-prompt' && (await readInputBox(ctx, view))?.trim() === '';
}

/** The worker's session must be alive to take a prompt (the host is asked). */
export async function requireAlive(ctx: EngineContext, view: UsableView): Promise<void> {
  const pane = await ctx.substrate.inspect(view.session);
  if (!pane.exists || pane.dead) throw new WorkerDeadError(view.name, deathFacts(loadWorker(ctx, view.name) ?? view, pane).cause);
}

/** As {@link requireAlive}, unless the host said so to this engine a moment ago (../engine/alive.ts). */
async function requireAliveOrRecent(ctx: EngineContext, view: UsableView): Promise<void> {
  if (!aliveRecently(ctx, view.session)) await requireAlive(ctx, view);
}

/** Whether the ledger shows turn `n` started: accepted, ended, or asking for input. */
function started(ctx: EngineContext, name: string, n: number): { turn?: TurnView; busyBefore: boolean } {
  const view = loadWorker(ctx, name);
  const turns = view?.turns ?? [];
  const turn = turns.find((t) => t.turn === n);
  const before = turns.filter((t) => t.turn < n && !t.notSubmitted);
  const busyBefore = before.length > 0 && !before[before.length - 1]?.end;
  return { ...(turn && turnStarted(turn) ? { turn } : {}), busyBefore };
}

/** Press the provider's clear keys one at a time while its input box still holds text. */
export async function clearInput(ctx: EngineContext, view: UsableView): Promise<void> {
  const provider = view.provider;
  const keys = provider.input?.clearKeys ?? [];
  if (!provider.doReadInputBox || keys.length === 0) return;
  for (const key of keys) {
    const screen = await ctx.substrate.capture(view.session, { lines: 40 }).catch(() => undefined);
    if (screen === undefined) return;
    const box = guarded(provider, 'doReadInputBox', () => provider.doReadInputBox?.(screen));
    if (!box) return;
    await ctx.substrate.sendKeys(view.session, [key]);
    await sleep(100);
  }
}

/**
 * Put `text` in the CLI's input box as text (`inputBoxText`: it can never type keys), then (once
 * `beforeEnter` settled) press Enter. Typed, a newline or a tab is a key: such text is pasted. A
 * pasted prompt the provider wants submitted at once goes with its Enter in one host call.
 */
export async function deliver(ctx: EngineContext, view: UsableView, prompt: string, signal?: AbortSignal, beforeEnter?: Promise<unknown>): Promise<void> {
  const input = view.provider.input ?? {};
  const text = inputBoxText(prompt);
  const paste = (input.alwaysPaste ?? true) || /[\n\t]/.test(text) || text.length > 1000;
  if (paste && !input.submitDelayMs && ctx.substrate.pasteAndPress) {
    await beforeEnter;
    return ctx.substrate.pasteAndPress(view.session, text, ['Enter']);
  }
  if (paste) await ctx.substrate.pasteText(view.session, text);
  else await ctx.substrate.typeText(view.session, text);
  if (input.submitDelayMs) await sleep(input.submitDelayMs, signal);
  await beforeEnter;
  await ctx.substrate.sendKeys(view.session, ['Enter']);
}

/**
 * Snapshot the worker's git work tree for `diff` and record it (`snapshot` event): taken after the
 * `sent` event and settled before the Enter that submits the turn, so it holds the tree before the
 * turn could change it. Outside git, or when the caller will not diff the turn (`context.snapshot`
 * false), nothing is recorded. Never rejects: a failed snapshot is a recorded reason (that turn has
 * no git diff), never a failed send.
 */
export function takeSnapshot(ctx: EngineContext, view: UsableView, turn: number, context: SendContext): Promise<void> {
  if (context.snapshot === false) return Promise.resolve();
  return (async () => {
    const snapshot = await snapshotTree(view.meta.cwd, view.paths.dir, ctx.env);
    if (!snapshot) return;
    await writeOwnEvent(view.paths.events, 'snapshot', { turn, ...snapshot });
  })().catch(() => undefined);
}

/** Wait up to `ms` for the ledger to show turn `n` started. */
export async function confirmWithin(ctx: EngineContext, view: UsableView, n: number, ms: number, watcher: DirWatcher, signal?: AbortSignal) {
  const until = Date.now() + ms;
  for (;;) {
    const seen = started(ctx, view.name, n);
    if (seen.turn || Date.now() >= until) return seen;
    if (signal?.aborted) throw new AbortedError('send cancelled');
    await watcher.next(Math.min(100, Math.max(1, until - Date.now())));
  }
}

/**
 * Wait for turn `n` to start; unconfirmed, press Enter again (up to the provider's retries) while the
 * worker lives. The presses spent, the input box decides (a CLI slow under load): still holding the
 * prompt, the CLI has not taken it yet — it gets as many presses again; empty, it took the text — it
 * gets as long again to start the turn (a prompt hook that comes late). Recorded `send-failed` and
 * thrown (SendNotSubmittedError, saying what the box showed) when it never starts.
 */
export async function confirm(ctx: EngineContext, view: UsableView, n: number, watcher: DirWatcher, signal?: AbortSignal): Promise<SendResult> {
  const input = view.provider.input ?? {};
  const windowMs = input.confirmTimeoutMs ?? 1500;
  const retries = input.maxSubmitRetries ?? 3;
  for (let presses = 1; ; presses++) {
    const seen = await confirmWithin(ctx, view, n, windowMs, watcher, signal);
    if (seen.turn) return { worker: view.name, turn: n };
    await requireAlive(ctx, view);
    // A busy CLI queues the prompt and starts it after the running turn: nothing to re-press.
    if (seen.busyBefore) return { worker: view.name, turn: n, queued: true };
    const spent = presses > retries;
    if (spent && (await queuedUnseen(ctx, view))) return { worker: view.name, turn: n, queued: true };
    const box = spent ? boxState(await readInputBox(ctx, view)) : undefined;
    if (!spent || (box === 'holds' && presses <= 2 * retries + 1)) {
      await ctx.substrate.sendKeys(view.session, ['Enter']);
      continue;
    }
    if (box === 'empty' && (await confirmWithin(ctx, view, n, windowMs * presses, watcher, signal)).turn) return { worker: view.name, turn: n };
    return notSubmitted(ctx, view, n, presses, box);
  }
}

function boxState(text: string | undefined): InputBoxAtFailure {
  if (text === undefined) return undefined;
  return text.trim() === '' ? 'empty' : 'holds';
}

/** Turn `n` recorded `send-failed`, the input box cleared, and the error thrown with the screen's last lines as the send gave up. */
async function notSubmitted(ctx: EngineContext, view: UsableView, n: number, presses: number, box: InputBoxAtFailure): Promise<never> {
  const screen = await ctx.substrate.capture(view.session, { lines: 40 }).catch(() => undefined);
  await writeOwnEvent(view.paths.events, 'send-failed', {
    turn: n,
    reason: 'not-submitted',
    message: [`not confirmed after ${presses} Enter presses`, inputBoxSays(box)].filter(Boolean).join('; '),
  });
  await clearInput(ctx, view).catch(() => undefined);
  throw new SendNotSubmittedError(view.name, presses, screen === undefined ? undefined : lastNonBlankLines(screen, 20), box);
}

/**
 * A CLI that drops input typed while it works, or takes it into the running turn
 * (`input.whileBusy: 'drop' | 'merge'`), and a turn still running: refused before anything is typed
 * or a turn number is taken.
 */
function refuseWhileBusy(view: UsableView): void {
  const whileBusy = view.provider.input?.whileBusy;
  if (whileBusy !== 'drop' && whileBusy !== 'merge') return;
  const running = view.turns.filter((t) => !t.notSubmitted).at(-1);
  if (running && !running.end) throw new SendBusyError(view.name, 0, running.turn, whileBusy);
}

/** The prompt as the provider wants it given (`doPreparePrompt`: escapes, refusals), before the input-box rule. */
export function preparedPrompt(provider: Provider, prompt: string): string {
  return provider.doPreparePrompt ? guarded(provider, 'doPreparePrompt', () => provider.doPreparePrompt?.(prompt) ?? prompt) : prompt;
}

/** Deliver a prompt into a worker and confirm it was submitted. */
export async function sendPrompt(ctx: EngineContext, options: { name: string; prompt: string }, context: SendContext = {}): Promise<SendResult> {
  const view = usableWorker(ctx, options.name);
  await requireAliveOrRecent(ctx, view);
  const text = preparedPrompt(view.provider, options.prompt);
  const lock = await acquireLock(view.paths.sendLock, view.name, context.signal);
  try {
    if (lock.broke) await closeOrphanTurn(ctx, options.name, lock.broke, context.signal);
    const now = usableWorker(ctx, options.name);
    // A prompt pasted into a blocking account dialog would answer it, or be lost: refuse, type nothing.
    const dialog = await accountDialogOf(ctx, now);
    if (dialog) throw new AccountDialogError(view.name, dialog.message, dialog.answer);
    refuseWhileBusy(now);
    const n = nextTurnNumber(now.turns);
    await writeOwnEvent(view.paths.events, 'sent', { turn: n, prompt: options.prompt });
    const snapshot = takeSnapshot(ctx, view, n, context);
    const watcher = await watchDir(view.paths.events);
    try {
      try {
        await deliver(ctx, view, text, context.signal, snapshot);
      } catch (error) {
        // nothing reached the CLI's input, or not all of it: the turn never started
        const message = UmbelError.isInstance(error) || error instanceof Error ? error.message : String(error);
        await writeOwnEvent(view.paths.events, 'send-failed', { turn: n, reason: 'delivery-failed', message }).catch(() => undefined);
        await clearInput(ctx, view).catch(() => undefined);
        // a worker that died since the host last said it lived is dead, not a failed delivery
        const dead = await requireAlive(ctx, view).then(
          () => undefined,
          (failure: unknown) => failure,
        );
        throw dead instanceof WorkerDeadError ? dead : error;
      }
      return await confirm(ctx, view, n, watcher, context.signal);
    } finally {
      await snapshot;
      await watcher.close();
    }
  } finally {
    await lock.release();
  }
}
