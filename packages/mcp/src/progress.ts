/**
 * Progress notifications (`notifications/progress`) for a tool call whose request carried a
 * progressToken; none otherwise. `progress` counts the notifications (it must increase with each);
 * the message says what happened. One that fails to send is logged, never thrown.
 */
import type { Extra } from './register.js';

export interface ProgressNotifier {
  send(message: string): void;
  /** Send `message()` every `intervalMs` until the returned stop is called (a heartbeat while waiting). */
  every(intervalMs: number, message: () => string): () => void;
}

/** The notifier of one call, or undefined when the client did not ask for progress. */
export function progressNotifier(extra: Extra, log: (line: string) => void): ProgressNotifier | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  let count = 0;
  const send = (message: string): void => {
    if (extra.signal.aborted) return;
    count += 1;
    extra
      .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: count, message } })
      .catch((error: unknown) => log(`progress notification failed: ${error instanceof Error ? error.message : String(error)}`));
  };
  return {
    send,
    every: (intervalMs, message) => {
      const timer = setInterval(() => send(message()), intervalMs);
      return () => clearInterval(timer);
    },
  };
}

/** Whole seconds since `startedMs`, as progress messages show them. */
export const secondsSince = (startedMs: number): string => `${Math.round((Date.now() - startedMs) / 1000)}s`;
