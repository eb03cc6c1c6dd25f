/**
 * The host's last word, to this engine, that a worker's session was alive: a send right after it (a
 * spawn that saw the ready screen, a pool claim that found the pane alive) does not ask again — one
 * tmux client less on every `umbel -p`. A worker that dies inside the window is still found dead: a
 * delivery that fails asks the host, and so does a send whose prompt is not confirmed.
 */
import type { EngineContext } from './context.js';

/** How long the host's word that a session is alive stands for this engine's next send. */
export const ALIVE_FRESH_MS = 1000;

/** Words kept before the old ones are dropped (an engine that lives long starts many workers). */
const KEEP_WORDS = 64;

/** Record that the host just said `session` is alive; words older than the window go once there are many. */
export function sawAlive(ctx: EngineContext, session: string): void {
  const now = ctx.now();
  if (ctx.aliveSeen.size >= KEEP_WORDS) {
    for (const [old, at] of ctx.aliveSeen) if (now - at > ALIVE_FRESH_MS) ctx.aliveSeen.delete(old);
  }
  ctx.aliveSeen.set(session, now);
}

/** Whether the host said `session` was alive within {@link ALIVE_FRESH_MS}. */
export function aliveRecently(ctx: EngineContext, session: string): boolean {
  const at = ctx.aliveSeen.get(session);
  return at !== undefined && ctx.now() - at <= ALIVE_FRESH_MS;
}
