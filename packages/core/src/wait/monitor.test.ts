// The liveness monitor: what it says about the screen is what it saw, dated when it asked.
import { describe, expect, it } from 'vitest';
import type { Substrate } from '../contract/substrate.js';
import { createMockProvider } from '../testing/index.js';
import { startMonitor } from './monitor.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A host whose captures take `captureMs` each and always show the same screen; from the third on, it never answers. */
function slowHost(captureMs: number): { substrate: Substrate; asked: number[] } {
  const asked: number[] = [];
  const substrate = {
    substrateId: 'slow',
    inspect: async () => ({ exists: true, dead: false }),
    capture: async () => {
      asked.push(Date.now());
      if (asked.length > 2) return new Promise<string>(() => undefined);
      await sleep(captureMs);
      return 'the same screen';
    },
  } as unknown as Substrate;
  return { substrate, asked };
}

describe('startMonitor', () => {
  it('dates the screen it saw by when it asked for it: a slow capture is no evidence of the time it took', async () => {
    const { substrate, asked } = slowHost(400);
    const monitor = startMonitor({ substrate, session: 's', provider: createMockProvider(), watchScreen: true, wake: () => undefined });
    try {
      const started = Date.now();
      expect(monitor.screenSeenAt()).toBeLessThanOrEqual(started);
      while (asked.length < 3) await sleep(20);
      // the second capture has returned (the third was asked for after it, and hangs): the screen was seen as of the second's
      // asking — no later than the host saw that ask (its own clock read a moment after the monitor's), after the first capture's
      // 400 ms; dated by its return it would be 400 ms after that ask
      const seen = monitor.screenSeenAt();
      expect(seen).toBeLessThanOrEqual(asked[1] as number);
      expect(seen).toBeGreaterThan(asked[0] as number);
      expect(monitor.screen()).toBe('the same screen');
      expect(monitor.screenChangedAt()).toBeLessThan(asked[1] as number);
    } finally {
      monitor.stop();
    }
  });
});
