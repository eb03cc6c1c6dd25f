/** capture: the worker's screen (for people and evidence), or the last one saved when it died. */
import type { EngineContext } from '../engine/context.js';
import { WorkerDeadError, WorkerNotFoundError } from '../contract/errors.js';
import { loadWorker } from '../ledger/ledger.js';
import { sessionName } from '../engine/paths.js';
import type { CaptureResult } from '../contract/schemas.js';
import { tailLines } from '../engine/util.js';

/** The last `lines` lines of the screen (trailing blank rows dropped). */
export async function captureScreen(ctx: EngineContext, options: { name: string; lines: number }): Promise<CaptureResult> {
  const view = loadWorker(ctx, options.name);
  const session = sessionName(options.name);
  const pane = await ctx.substrate.inspect(session);
  if (pane.exists) {
    const text = await ctx.substrate.capture(session, { lines: options.lines });
    return { worker: options.name, text: tailLines(text, options.lines), live: !pane.dead };
  }
  if (!view) throw new WorkerNotFoundError(options.name);
  const tail = view.death.dead?.paneTail;
  if (tail === undefined) throw new WorkerDeadError(options.name, 'no screen was saved');
  return { worker: options.name, text: tailLines(tail, options.lines), live: false };
}
