/**
 * send with `command: true`: run the CLI's own command on purpose (`/compact`, `!git status`). The
 * text is delivered as given — no leading space, no provider rewriting — with one Enter (a second
 * one could pick an entry of a menu the command opened). It takes a turn number like any send; if
 * the CLI starts a model turn for it within the confirmation window (a custom command that expands
 * to a prompt, Claude's `!` bash mode), that turn is a normal one to wait for and read. Otherwise a
 * `send-failed` (reason `command`) closes it, so no wait hangs on it and no later event is credited
 * to it.
 */
import type { EngineContext } from '../engine/context.js';
import { SendNotSubmittedError, UmbelError, UsageError } from '../contract/errors.js';
import { usableWorker } from '../ledger/ledger.js';
import type { UsableView } from '../ledger/ledger-types.js';
import { writeOwnEvent } from '../ledger/own-events.js';
import type { SendResult } from '../contract/schemas.js';
import { acquireLock, clearInput, closeOrphanTurn, confirmWithin, deliver, inputBoxHolds, requireAlive, takeSnapshot } from './send.js';
import { latestSubmitted, nextTurnNumber } from '../ledger/turns.js';
import type { SendContext } from '../contract/umbel.js';
import { watchDir } from '../wait/watch.js';

/** A command is refused while a turn runs: the CLI would queue it or treat it as input to that turn. */
function requireIdle(view: UsableView): void {
  const running = latestSubmitted(view.turns);
  if (running && !running.end) {
    throw new UsageError(`'${view.name}' is busy with turn ${running.turn}; a CLI command is run only between turns`, {
      hint: `wait for it first: umbel wait ${view.name} --turn ${running.turn}`,
    });
  }
}

/** Run `text` as the worker CLI's own command. */
export async function sendCommand(ctx: EngineContext, options: { name: string; prompt: string }, context: SendContext = {}): Promise<SendResult> {
  const view = usableWorker(ctx, options.name);
  await requireAlive(ctx, view);
  requireIdle(view);
  const lock = await acquireLock(view.paths.sendLock, view.name, context.signal);
  try {
    if (lock.broke) await closeOrphanTurn(ctx, options.name, lock.broke, context.signal);
    const now = usableWorker(ctx, options.name);
    requireIdle(now);
    const n = nextTurnNumber(now.turns);
    await writeOwnEvent(view.paths.events, 'sent', { turn: n, prompt: options.prompt, command: true });
    const snapshot = takeSnapshot(ctx, view, n, context);
    const watcher = await watchDir(view.paths.events);
    try {
      try {
        await deliver(ctx, view, options.prompt, context.signal, snapshot);
      } catch (error) {
        const message = UmbelError.isInstance(error) || error instanceof Error ? error.message : String(error);
        await writeOwnEvent(view.paths.events, 'send-failed', { turn: n, reason: 'delivery-failed', message }).catch(() => undefined);
        await clearInput(ctx, view).catch(() => undefined);
        throw error;
      }
      const seen = await confirmWithin(ctx, view, n, view.provider.input?.confirmTimeoutMs ?? 1500, watcher, context.signal);
      if (seen.turn) return { worker: view.name, turn: n, command: true, modelTurn: true };
      if (await inputBoxHolds(ctx, view)) {
        await writeOwnEvent(view.paths.events, 'send-failed', { turn: n, reason: 'not-submitted', message: 'the command stayed in the input box' });
        await clearInput(ctx, view).catch(() => undefined);
        throw new SendNotSubmittedError(view.name, 1, await ctx.substrate.capture(view.session, { lines: 20 }).catch(() => undefined));
      }
      const message = `ran as a CLI command (${JSON.stringify(options.prompt.slice(0, 60))}) that started no model turn`;
      await writeOwnEvent(view.paths.events, 'send-failed', { turn: n, reason: 'command', message });
      return { worker: view.name, turn: n, command: true, modelTurn: false };
    } finally {
      await snapshot;
      await watcher.close();
    }
  } finally {
    await lock.release();
  }
}
