/** keys: press keys in a live worker's terminal; a pending needs-input counts as answered. */
import type { EngineContext } from '../engine/context.js';
import { deathFacts } from '../ledger/death.js';
import { WorkerDeadError } from '../contract/errors.js';
import { usableWorker } from '../ledger/ledger.js';
import { writeOwnEvent } from '../ledger/own-events.js';
import type { KeysResult } from '../contract/schemas.js';

/** Press `keys` (already validated key names) in worker `name`. */
export async function pressKeys(ctx: EngineContext, options: { name: string; keys: string[] }): Promise<KeysResult> {
  const view = usableWorker(ctx, options.name);
  const pane = await ctx.substrate.inspect(view.session);
  if (!pane.exists || pane.dead) throw new WorkerDeadError(view.name, deathFacts(view, pane).cause);
  await writeOwnEvent(view.paths.events, 'keys', { keys: options.keys });
  await ctx.substrate.sendKeys(view.session, options.keys);
  return { worker: view.name, keys: options.keys };
}
