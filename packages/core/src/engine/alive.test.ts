// The host's word that a session lives (./alive.ts): it stands for the window, and an engine that
// lives long (an MCP server, a workflow) keeps only the words of the last moments, not one per
// worker it ever started.
import { describe, expect, it } from 'vitest';
import { ALIVE_FRESH_MS, aliveRecently, sawAlive } from './alive.js';
import type { EngineContext } from './context.js';

function clockedContext(): { ctx: EngineContext; at: { now: number } } {
  const at = { now: 1_000_000 };
  return { ctx: { aliveSeen: new Map(), now: () => at.now } as unknown as EngineContext, at };
}

describe('the word that a session lives', () => {
  it('stands for the window, then not', () => {
    const { ctx, at } = clockedContext();
    sawAlive(ctx, 'umbel-a');
    at.now += ALIVE_FRESH_MS;
    expect(aliveRecently(ctx, 'umbel-a')).toBe(true);
    at.now += 1;
    expect(aliveRecently(ctx, 'umbel-a')).toBe(false);
    expect(aliveRecently(ctx, 'umbel-never')).toBe(false);
  });

  it('is not kept for every worker a long-lived engine ever started: old words go as new ones come', () => {
    const { ctx, at } = clockedContext();
    for (let i = 0; i < 1000; i++) {
      sawAlive(ctx, `umbel-w${i}`);
      at.now += 100;
    }
    expect(ctx.aliveSeen.size).toBeLessThanOrEqual(100);
    expect(aliveRecently(ctx, 'umbel-w999')).toBe(true);
  });
});
