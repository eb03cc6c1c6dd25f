/**
 * The calls a server has in flight, so a server whose client closed its input can still answer them
 * (a piped `printf … | umbel-mcp` must not lose its answers) before it shuts down: closing cancels
 * them (a wait answers `aborted`, its worker keeps running) and gives each a grace to send its answer.
 * Background work (a pool's refill after a claim) is drained the same way.
 */

/** In-flight calls and background work of one server. */
export interface CallTracker {
  /** Aborted when the server starts closing. */
  readonly closing: AbortSignal;
  /** Track a call until it settles; returns it. */
  track<T>(call: Promise<T>): Promise<T>;
  /** Track background work (not awaited by anyone else). */
  background(work: Promise<unknown>): void;
  /** Cancel everything, then wait until nothing is in flight or `graceMs` ran out. */
  drain(graceMs: number): Promise<void>;
}

export function createCallTracker(): CallTracker {
  const closing = new AbortController();
  const inFlight = new Set<Promise<unknown>>();
  const add = (work: Promise<unknown>) => {
    inFlight.add(work);
    void work.then(
      () => inFlight.delete(work),
      () => inFlight.delete(work),
    );
  };
  return {
    closing: closing.signal,
    async track(call) {
      add(call);
      return call;
    },
    background: add,
    async drain(graceMs) {
      closing.abort();
      const deadline = Date.now() + graceMs;
      let timer: NodeJS.Timeout | undefined;
      // Not unref'd: the drain itself keeps the process alive until it is done.
      const pause = (ms: number) =>
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, Math.max(0, ms));
        });
      // Requests read just before stdin ended may not have reached their handler yet: let them
      // start, then wait until nothing is in flight (or the grace runs out).
      await pause(50);
      while (inFlight.size > 0 && Date.now() < deadline) {
        await Promise.race([Promise.allSettled([...inFlight]), pause(deadline - Date.now())]);
        clearTimeout(timer);
        await pause(10);
      }
    },
  };
}
