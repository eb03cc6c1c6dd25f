/**
 * The liveness monitor of a wait: asks the host about the worker's pane (and, now and then, for
 * its sign-in screen) beside the wait's loop, never in its way — a slow or unanswered host call
 * cannot delay reacting to an event, and cannot end the wait either: a call that fails is retried
 * on the next round, while the worker's own signals (hooks, transcript) decide the outcome.
 */
import type { Provider } from '@umbel/provider';
import { guarded } from '../engine/provider-guard.js';
import type { Substrate } from '../contract/substrate.js';
import type { MonitorFinding } from './wait-decision.js';

const LIVENESS_EVERY_MS = 500;
/** The first probe: most waits end on their events first, and a tmux client costs a few ms. */
const FIRST_PROBE_MS = 200;
const SIGN_IN_EVERY_MS = 2000;

/** A running monitor. */
export interface Monitor {
  /** What it found (read after the events, so a turn that ended as its CLI exited still counts). */
  finding(): MonitorFinding | undefined;
  /** The last screen it captured ('' before the first). */
  screen(): string;
  /** When the screen last changed (ms). */
  screenChangedAt(): number;
  /**
   * As of when the screen was last seen (ms): when the latest capture that came back was asked for
   * (its start before the first). A still screen is evidence of stillness up to this time, never up
   * to now: a capture a loaded host answers late says nothing of the time it took.
   */
  screenSeenAt(): number;
  /** The last host error, while the host keeps failing (for the timeout's message). */
  hostError(): unknown;
  stop(): void;
}

/** Start monitoring `session`; `wake` is called when something was found. */
export function startMonitor(options: {
  substrate: Substrate;
  session: string;
  provider: Provider;
  /** Capture the screen every round (an idle timeout watches it), not only every 2 s. */
  watchScreen: boolean;
  wake: () => void;
}): Monitor {
  let stopped = false;
  let finding: MonitorFinding | undefined;
  let screen = '';
  let changedAt = Date.now();
  let seenAt = changedAt;
  let hostError: unknown;
  let timer: NodeJS.Timeout | undefined;
  const pause = (ms: number) => new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));

  const round = async (lookAtScreen: boolean): Promise<MonitorFinding | undefined> => {
    const pane = await options.substrate.inspect(options.session);
    if (!pane.exists || pane.dead) return { dead: pane };
    if (!lookAtScreen) return undefined;
    const askedAt = Date.now();
    const now = await options.substrate.capture(options.session, { lines: 40 });
    seenAt = askedAt;
    if (now !== screen) {
      screen = now;
      changedAt = Date.now();
    }
    const provider = options.provider;
    const line = provider.doDetectSignIn ? guarded(provider, 'doDetectSignIn', () => provider.doDetectSignIn?.(now)) : undefined;
    if (line) return { signIn: line, screen: now };
    const account = provider.doDetectAccountScreen ? guarded(provider, 'doDetectAccountScreen', () => provider.doDetectAccountScreen?.(now)) : undefined;
    return account ? { account, screen: now } : undefined;
  };

  const loop = async () => {
    let lastSignIn = 0;
    await pause(FIRST_PROBE_MS);
    while (!stopped) {
      const look = options.watchScreen || Date.now() - lastSignIn >= SIGN_IN_EVERY_MS;
      if (look) lastSignIn = Date.now();
      try {
        const found = await round(look);
        hostError = undefined;
        if (found && !stopped) {
          finding = found;
          return options.wake();
        }
      } catch (error) {
        hostError = error; // a slow or failing host: try again next round
      }
      if (!stopped) await pause(LIVENESS_EVERY_MS);
    }
  };
  void loop();

  return {
    finding: () => finding,
    screen: () => screen,
    screenChangedAt: () => changedAt,
    screenSeenAt: () => seenAt,
    hostError: () => hostError,
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
