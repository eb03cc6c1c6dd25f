/**
 * `@umbel/top`: `umbel top`, a live full-screen view of the fleet drawn with ink from the engine's
 * event stream. The CLI loads it on demand (it is not in the `umbel` bin's bundle).
 */
import { importInteractive } from './interactive.js';
import type { TopOptions } from './run.js';

export type { TopOptions } from './run.js';

/** Run `top` until quit or the caller's signal: 0, or 130 after a signal (see run.ts). ink is loaded here, as an interactive view. */
export async function runTop(options: TopOptions): Promise<number> {
  const view = await importInteractive(() => import('./run.js'));
  return view.runTop(options);
}
export { type Action, answerKeys, handleKey, type KeyInfo } from './keys.js';
export * from './model.js';
export { type Frame, frame } from './view.js';
