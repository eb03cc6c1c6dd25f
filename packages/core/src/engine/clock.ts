/** Event time: wall-clock nanoseconds (strictly increasing within a process) and their ISO form. */

const hrStart = process.hrtime.bigint();
const epochStartNs = BigInt(Date.now()) * 1_000_000n;
let lastNs = 0n;

/** Wall-clock nanoseconds, strictly increasing within this process. */
export function nowNs(): bigint {
  let ns = epochStartNs + (process.hrtime.bigint() - hrStart);
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
