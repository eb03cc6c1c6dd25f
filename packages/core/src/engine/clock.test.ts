import { afterEach, describe, expect, it, vi } from 'vitest';
import { nowNs } from './clock.js';

afterEach(() => vi.restoreAllMocks());

const ms = (ns: bigint) => Number(ns / 1_000_000n);

describe('nowNs', () => {
  it('is strictly increasing within a process', () => {
    const seen = Array.from({ length: 1000 }, () => nowNs());
    for (let i = 1; i < seen.length; i++) expect(seen[i]! > seen[i - 1]!).toBe(true);
  });

  // Hook events are stamped by `date +%s%N` in a new process: the wall clock. A long-lived process
  // (an MCP server, a library's fleet, a test worker) must stamp its own events on the same clock,
  // or a key pressed after a permission request sorts before it (the wall clock moves against the
  // monotonic one in VMs: ~15 µs/s measured here, and by steps when time is synced).
  it('follows the wall clock when it moves against the monotonic clock', () => {
    const wall = Date.now();
    const ahead = wall + 250;
    vi.spyOn(Date, 'now').mockReturnValue(ahead);
    expect(Math.abs(ms(nowNs()) - ahead)).toBeLessThanOrEqual(1);
  });

  it('never goes back when the wall clock does', () => {
    const before = nowNs();
    vi.spyOn(Date, 'now').mockReturnValue(Date.now() - 60_000);
    const after = nowNs();
    expect(after > before).toBe(true);
  });
});
