/**
 * A spawn's first prompt (`SpawnContext.firstPrompt`: `umbel -p`'s cold call). A CLI whose provider
 * takes one on its command line (`capabilities.launchPrompt`) starts on it as it comes up — no wait
 * for the ready screen, no paste: its `sent` event is recorded before the launch, and the spawn
 * returns once the CLI took it. Any other CLI gets it as a send right after it is ready. Either way
 * it is turn 1, and no git snapshot is taken for it.
 */
import type { Provider } from '@umbel/provider';
import type { EngineContext } from '../engine/context.js';
import { usableWorker } from '../ledger/ledger.js';
import { writeOwnEvent } from '../ledger/own-events.js';
import type { BillingGuard, SendResult } from '../contract/schemas.js';
import { watchDir } from '../wait/watch.js';
import { confirm, preparedPrompt, sendPrompt } from './send.js';
import { inputBoxText } from './prompt-text.js';

/** A first prompt is always the worker's first turn. */
export const FIRST_TURN = 1;

/**
 * The longest first prompt put on a command line, in bytes (UTF-8): the launch goes through the
 * host's own command (tmux takes one message of ~16 KB for the whole command); a longer one is pasted.
 */
export const LAUNCH_PROMPT_MAX_BYTES = 4096;

/** A first prompt and how it goes in. */
export interface FirstPrompt {
  readonly prompt: string;
  /** The text for the CLI's command line, when its provider takes one there (else it is sent once ready). */
  readonly onLaunch?: string;
}

/**
 * How `prompt` reaches a new worker of `provider`: on its command line when it can (checked and
 * prepared as a paste would be) — unless the spawn guards its billing (`billing: 'subscription'`):
 * then the prompt goes in only after the ready screen showed how the worker bills; or it is longer
 * than {@link LAUNCH_PROMPT_MAX_BYTES}.
 */
export function planFirstPrompt(provider: Provider, prompt: string | undefined, guard: BillingGuard): FirstPrompt | undefined {
  if (prompt === undefined) return undefined;
  if (provider.capabilities.launchPrompt !== true || guard === 'subscription') return { prompt };
  const text = inputBoxText(preparedPrompt(provider, prompt));
  return Buffer.byteLength(text) > LAUNCH_PROMPT_MAX_BYTES ? { prompt } : { prompt, onLaunch: text };
}

/** Before the launch: a prompt on the command line opens turn 1 (its `sent` event comes before any of the CLI's). */
export async function recordLaunchPrompt(eventsDir: string, first: FirstPrompt | undefined): Promise<void> {
  if (first?.onLaunch !== undefined) await writeOwnEvent(eventsDir, 'sent', { turn: FIRST_TURN, prompt: first.prompt });
}

/** Once the worker is ready: confirm that the CLI took its launch prompt (Enter again if not), or send the prompt now. */
export async function firstTurn(ctx: EngineContext, name: string, first: FirstPrompt, signal?: AbortSignal): Promise<SendResult> {
  if (first.onLaunch === undefined) return sendPrompt(ctx, { name, prompt: first.prompt }, { snapshot: false, ...(signal ? { signal } : {}) });
  const view = usableWorker(ctx, name);
  const watcher = await watchDir(view.paths.events);
  try {
    return await confirm(ctx, view, FIRST_TURN, watcher, signal);
  } finally {
    await watcher.close();
  }
}
