/** Event time: wall-clock nanoseconds (strictly increasing within a process) and their ISO form. */

let hrAnchor = process.hrtime.bigint();
let wallAnchorNs = BigInt(Date.now()) * 1_000_000n;
let lastNs = 0n;
/** How far the sub-millisecond clock may stray from the wall clock before it is anchored again. */
const MAX_SKEW_NS = 1_000_000n;

/**
 * Wall-clock nanoseconds, strictly increasing within this process. Hook events are stamped by the
 * wall clock of other processes, so this one follows the wall clock too: the monotonic clock only
 * adds sub-millisecond precision, and is anchored again whenever the two drift apart by more than
 * a millisecond (in a VM the wall clock moves against it, by steps when time is synced). It never
 * goes back: when the wall clock does, it counts on from the last value.
 */
export function nowNs(): bigint {
  const wallNs = BigInt(Date.now()) * 1_000_000n;
  let ns = wallAnchorNs + (process.hrtime.bigint() - hrAnchor);
  const skew = ns - wallNs;
  if (skew > MAX_SKEW_NS || skew < -MAX_SKEW_NS) {
    hrAnchor = process.hrtime.bigint();
    wallAnchorNs = wallNs;
    ns = wallNs;
  }
  if (ns <= lastNs) ns = lastNs + 1n;
  lastNs = ns;
  return ns;
}

/** Event timestamps umbel accepts: 2001-09-09 … 2286-11-20 (19-digit nanoseconds). Anything else is a malformed name. */
export const EVENT_NS_MIN = 1_000_000_000_000_000_000n;
export const EVENT_NS_MAX = 9_999_999_999_999_999_999n;

/** Milliseconds of an event timestamp. */
export function msOf(at: bigint): number {
  return Number(at / 1_000_000n);
}

/** Convert an event timestamp to an ISO string. */
export function isoOf(at: bigint): string {
  return new Date(msOf(at)).toISOString();
}
