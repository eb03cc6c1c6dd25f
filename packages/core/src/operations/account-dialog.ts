/**
 * A blocking account dialog the CLI may show after a turn ended on a usage limit (Claude Code's
 * /rate-limit-options): the provider reads it from the screen (ProviderV1.doDetectAccountScreen).
 * The screen is looked at only when the ledger says one may be there (the latest turn ended
 * rate-limited), so status and send cost no host call otherwise.
 */
import type { EngineContext } from '../engine/context.js';
import type { WorkerView } from '../ledger/ledger-types.js';
import type { ProviderV1AccountScreen } from '@umbel/provider';
import { guarded } from '../engine/provider-guard.js';
import { latestSubmitted } from '../ledger/turns.js';

/** Whether the ledger allows a blocking account dialog: the latest turn ended on a rate limit (pure). */
export function mayShowAccountDialog(view: WorkerView): boolean {
  if (!view.provider?.doDetectAccountScreen) return false;
  return latestSubmitted(view.turns)?.end?.info.account?.kind === 'rate-limited';
}

/** The blocking account dialog on the worker's screen, when the ledger allows one; a failed capture is none. */
export async function accountDialogOf(ctx: EngineContext, view: WorkerView): Promise<ProviderV1AccountScreen | undefined> {
  const provider = view.provider;
  if (!provider || !mayShowAccountDialog(view)) return undefined;
  const screen = await ctx.substrate.capture(view.session, { lines: 40 }).catch(() => undefined);
  if (screen === undefined) return undefined;
  return guarded(provider, 'doDetectAccountScreen', () => provider.doDetectAccountScreen?.(screen));
}
