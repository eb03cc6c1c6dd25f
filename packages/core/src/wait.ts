/**
 * wait: event-driven on the worker's events dir (and its transcript), ending in one Outcome.
 * A turn is completed only once the provider's transcript shows it ended (Claude fires Stop
 * before the final message lands); a hard deadline that an unresponsive substrate cannot hold.
 */
import { readFile } from 'node:fs/promises';
import type { EngineInternals } from './engine.js';
import { TurnNotFoundError } from './errors.js';
import { deathFacts, interpretEvents, pendingInputEvent, readEvents, type StoredEvent, stopFacts, writeEvent } from './events.js';
import type { ProviderV1Message, ProviderV1TurnRead } from './provider.js';
import { OUTCOME_EXIT_CODES, type Outcome, type OutcomeReason, type WaitOptionsParsed } from './schemas.js';
import type { PaneState } from './substrate.js';
import type { WaitContext } from './umbel.js';
import { tailLines } from './util.js';
import { watchDir } from './watch.js';

/** How long a stop is held for the transcript to show the end of the turn. */
export const STOP_SETTLE_MS = 5000;
/** How long `wait` looks for a provider's permission prompt on screen after its hook fired. */
export const INPUT_PROMPT_SETTLE_MS = 3000;
const LIVENESS_EVERY_MS = 500;
/** The first liveness probe of a wait. */
const MONITOR_FIRST_MS = 200;
const SIGN_IN_EVERY_MS = 2000;
const HARD_DEADLINE_GRACE_MS = 2000;

/** Options of one wait (the guardrail fields are ignored here). */
export type TurnWaitOptions = Pick<WaitOptionsParsed, 'name' | 'turn' | 'timeout' | 'idleTimeout'>;

/** Wait for one turn of a worker to end. Never throws for an outcome; throws for bad input. */
export async function waitForTurn(x: EngineInternals, options: TurnWaitOptions, context: WaitContext = {}): Promise<Outcome> {
  const started = Date.now();
  const { meta, provider, history: initial } = await x.loadWorker(options.name);
  const latest = initial.turns.length;
  const turnNo = options.turn ?? latest;
  if (turnNo === 0 || turnNo > latest) throw new TurnNotFoundError(meta.name, options.turn ?? 0, latest);
  const wp = x.paths.worker(meta.name);
  const session = meta.substrateSession;
  const deadline = started + options.timeout;
  const signal = context.signal;

  let sessionId = meta.sessionId;
  let transcriptPath = meta.transcriptPath;
  let lastScreen = '';
  const base = () => ({
    worker: meta.name,
    provider: meta.provider,
    turn: turnNo,
    durationMs: Date.now() - started,
    ...(sessionId ? { sessionId } : {}),
    ...(transcriptPath ? { transcriptPath } : {}),
  });
  const outcome = (reason: OutcomeReason, extra: Partial<Outcome> = {}): Outcome => ({ ...base(), reason, exitCode: OUTCOME_EXIT_CODES[reason], ...extra });

  const watcher = await watchDir(wp.events);
  let hardTimer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const hard = new Promise<Outcome>((resolve) => {
    hardTimer = setTimeout(
      () =>
        resolve(
          outcome('timeout', {
            message: `no answer within ${Math.round(options.timeout / 1000)}s (the terminal host stopped answering)`,
            paneTail: lastScreen ? tailLines(lastScreen, 30) : undefined,
          }),
        ),
      Math.max(0, deadline - Date.now()) + HARD_DEADLINE_GRACE_MS,
    );
  });
  const aborted = new Promise<Outcome>((resolve) => {
    if (!signal) return;
    onAbort = () => resolve(outcome('aborted', { message: 'the wait was cancelled; the worker keeps running' }));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });

  let finished = false;
  let lastChangeAt = Date.now();
  // The host is asked about liveness and the sign-in screen beside the loop, never in its way: a
  // slow or unanswered tmux call cannot delay reacting to an event. It reports what it finds here.
  let finding: { dead: PaneState } | { signIn: string; screen: string } | { error: unknown } | undefined;
  let monitorTimer: NodeJS.Timeout | undefined;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      monitorTimer = setTimeout(resolve, ms);
    });
  const monitor = async (): Promise<void> => {
    let lastSignIn = 0;
    // Not at once: most waits end on their events first, and starting a tmux client costs the
    // process a few ms of its own. A death the launch wrapper records is an event anyway.
    await pause(MONITOR_FIRST_MS);
    while (!finished) {
      try {
        const pane = await x.substrate.inspect(session);
        if (finished) return;
        if (!pane.exists || pane.dead) {
          finding = { dead: pane };
          return watcher.poke();
        }
        const now = Date.now();
        if (now - lastSignIn >= SIGN_IN_EVERY_MS || options.idleTimeout !== undefined) {
          lastSignIn = now;
          const screen = await x.substrate.capture(session, { lines: 40 }).catch(() => lastScreen);
          if (finished) return;
          if (screen !== lastScreen) {
            lastScreen = screen;
            lastChangeAt = Date.now();
          }
          const line = provider.doDetectSignIn?.(screen);
          if (line) {
            finding = { signIn: line, screen };
            return watcher.poke();
          }
        }
      } catch (error) {
        finding = { error };
        return watcher.poke();
      }
      await pause(LIVENESS_EVERY_MS);
    }
  };

  const loop = async (): Promise<Outcome> => {
    let stopSeenAt: number | undefined;
    let inputSeenAt: number | undefined;
    let emitted = 0;
    let lastFingerprint = '';
    let lastActivity: string | undefined;
    void monitor();
    for (;;) {
      if (finished) return outcome('aborted', { message: 'superseded' });
      if (signal?.aborted) return outcome('aborted', { message: 'the wait was cancelled; the worker keeps running' });
      // A finding counts only once the events were read after it (a turn may end as its CLI exits).
      const news = finding;
      const events = await readEvents(wp.events);
      const history = interpretEvents(events);
      const turn = history.turns[turnNo - 1];
      if (!turn) throw new TurnNotFoundError(meta.name, turnNo, history.turns.length);
      const found = x.transcriptOf(meta, history, provider);
      sessionId = found.sessionId ?? sessionId;
      transcriptPath = found.path ?? transcriptPath;
      if (transcriptPath) watcher.add(transcriptPath);
      const content = transcriptPath ? await readFile(transcriptPath, 'utf8').catch(() => undefined) : undefined;
      const keyOf = (event: StoredEvent | undefined) => (event ? provider.doParseEvent(event).turnKey : undefined);
      const turnKey = keyOf(turn.promptEvent) ?? keyOf(turn.endEvent);
      const readOptions =
        content !== undefined && transcriptPath
          ? { content, transcriptPath, turnKey, prompt: turn.prompt, ordinal: turnNo, ...stopFacts(provider, turn) }
          : undefined;
      let read: ProviderV1TurnRead = { status: 'missing' };
      if (readOptions) {
        try {
          read = provider.doReadTurn(readOptions);
        } catch {
          read = { status: 'missing' };
        }
      }

      // progress
      const activityEvent = turn.activityEvents[turn.activityEvents.length - 1];
      const activity = (read.status === 'running' ? read.activity : undefined) ?? (activityEvent ? provider.doParseEvent(activityEvent).activity : undefined);
      let fresh: readonly ProviderV1Message[] = [];
      if (context.onProgress && readOptions && provider.doReadMessages) {
        try {
          const all = provider.doReadMessages(readOptions);
          fresh = all.slice(emitted);
          emitted = all.length;
        } catch {
          fresh = [];
        }
      }
      if (context.onProgress && (fresh.length || activity !== lastActivity)) {
        context.onProgress({ worker: meta.name, turn: turnNo, elapsedMs: Date.now() - started, activity, messages: fresh });
      }
      lastActivity = activity;
      const fingerprint = `${events.length}:${content?.length ?? -1}`;
      if (fingerprint !== lastFingerprint) {
        lastFingerprint = fingerprint;
        lastChangeAt = Date.now();
      }

      const completed = (r: Extract<ProviderV1TurnRead, { status: 'completed' }>, message?: string) =>
        outcome('completed', {
          result: r.answer,
          ...(r.usage ? { usage: mapUsage(r.usage) } : {}),
          ...(r.numTurns !== undefined ? { numTurns: r.numTurns } : {}),
          ...(r.sessionId ? { sessionId: r.sessionId } : {}),
          ...(message ? { message } : {}),
        });

      // the turn ended by a hook
      const end = turn.endEvent;
      if (end?.kind === 'stop-failure') {
        const info = provider.doParseEvent(end);
        return outcome('provider-error', {
          message: info.error ?? info.lastMessage ?? 'the provider reported an error',
          ...(read.status === 'failed' ? { message: read.message } : {}),
        });
      }
      if (end?.kind === 'interrupt') return outcome('idle', { message: 'the turn was interrupted; the worker waits for input' });
      if (end?.kind === 'stop') {
        if (read.status === 'completed') return completed(read);
        if (read.status === 'failed') return outcome('provider-error', { message: read.message });
        stopSeenAt ??= Date.now();
        if (Date.now() - stopSeenAt >= STOP_SETTLE_MS) {
          const info = provider.doParseEvent(end);
          return outcome('completed', {
            result: info.lastMessage ?? '',
            message: `the worker stopped, but its final message was not in the transcript within ${STOP_SETTLE_MS / 1000}s; the answer comes from the stop hook`,
          });
        }
        await watcher.next(50);
        continue;
      }
      // the transcript alone (CLIs whose errors and interrupts fire no hook): record the end, so
      // the next turn's hooks are not taken for this one's
      if (read.status === 'completed' || read.status === 'failed' || read.status === 'interrupted') {
        await writeEvent(wp.events, 'ended', { turn: turnNo, reason: read.status }).catch(() => undefined);
      }
      if (read.status === 'completed') return completed(read);
      if (read.status === 'failed') return outcome('provider-error', { message: read.message });
      if (read.status === 'interrupted') return outcome('idle', { message: read.message ?? 'the turn was interrupted; the worker waits for input' });

      // needs input: the newest input event, unless answered (keys pressed, or activity) since
      const lastInput = pendingInputEvent(turn, events);
      if (lastInput) {
        const info = provider.doParseEvent(lastInput);
        if (info.needsInput) {
          const screen = await x.substrate.capture(session, { lines: 30 }).catch(() => lastScreen);
          // The hook can fire before the prompt is drawn: keys sent then would be lost.
          if (info.needsInput.kind === 'permission' && provider.doDetectInputPrompt && !provider.doDetectInputPrompt(screen)) {
            inputSeenAt ??= Date.now();
            if (Date.now() < Math.min(inputSeenAt + INPUT_PROMPT_SETTLE_MS, deadline)) {
              await watcher.next(50);
              continue;
            }
          }
          return outcome('needs-input', {
            inputKind: info.needsInput.kind,
            message: info.needsInput.message ?? `${provider.displayName} is waiting for ${info.needsInput.kind}`,
            ...(info.needsInput.tool ? { tool: info.needsInput.tool } : {}),
            paneTail: tailLines(screen, 30),
          });
        }
      }

      // death: the launch wrapper's exit record, or the monitor's finding; sign-in; idle; deadline
      const now = Date.now();
      // (the pane stays for evidence: remain-on-exit; the record carries the status or signal)
      if (history.exit) return await deadOutcome({ exists: true, dead: true });
      if (news && 'dead' in news) return await deadOutcome(news.dead);
      if (news && 'signIn' in news)
        return outcome('needs-input', {
          inputKind: 'sign-in',
          message: `${provider.displayName} shows its sign-in screen: ${news.signIn.trim()}`,
          paneTail: tailLines(news.screen, 30),
        });
      if (news && 'error' in news) throw news.error;
      if (options.idleTimeout !== undefined && now - lastChangeAt >= options.idleTimeout) {
        return outcome('idle', {
          message: `no activity for ${Math.round((now - lastChangeAt) / 100) / 10}s (events, transcript and screen all still)`,
          paneTail: tailLines(lastScreen, 30),
        });
      }
      if (now >= deadline) {
        const screen = await x.substrate.capture(session, { lines: 30 }).catch(() => lastScreen);
        return outcome('timeout', { message: `turn ${turnNo} did not end within ${formatMs(options.timeout)}`, paneTail: tailLines(screen, 30) });
      }
      await watcher.next(Math.min(LIVENESS_EVERY_MS, Math.max(1, deadline - now)));
    }
  };

  const deadOutcome = async (pane: PaneState): Promise<Outcome> => {
    const events = await readEvents(wp.events);
    const history = interpretEvents(events);
    const { status, signal: sig, byKill: killed, cause } = deathFacts(history, pane);
    const screen = pane.exists ? await x.substrate.capture(session, { lines: 30 }).catch(() => lastScreen) : lastScreen;
    if (!history.dead) {
      await writeEvent(wp.events, 'dead', {
        by: 'wait',
        at: new Date().toISOString(),
        status,
        signal: sig,
        paneTail: screen ? tailLines(screen, 40) : undefined,
      }).catch(() => undefined);
    }
    return outcome('dead', {
      message: killed
        ? `worker '${meta.name}' was killed before completing turn ${turnNo}`
        : `worker '${meta.name}' died before completing turn ${turnNo} (${cause})`,
      exit: { ...(status !== undefined ? { status } : {}), ...(sig ? { signal: sig } : {}) },
      ...(screen ? { paneTail: tailLines(screen, 30) } : {}),
    });
  };

  try {
    return await Promise.race([loop(), hard, aborted]);
  } finally {
    finished = true;
    if (monitorTimer) clearTimeout(monitorTimer);
    if (hardTimer) clearTimeout(hardTimer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    await watcher.close();
  }
}

function mapUsage(usage: Record<string, number>): Outcome['usage'] {
  const out: Record<string, number> = {};
  const names: Record<string, string> = {
    input_tokens: 'inputTokens',
    output_tokens: 'outputTokens',
    cache_read_input_tokens: 'cacheReadTokens',
    cache_creation_input_tokens: 'cacheCreationTokens',
    cost_usd: 'costUsd',
  };
  for (const [key, value] of Object.entries(usage)) out[names[key] ?? key] = value;
  return out;
}

/** `90000` → `1.5m`. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  if (ms < 60_000) return `${Math.round(ms / 100) / 10}s`;
  if (ms < 3_600_000) return `${Math.round(ms / 6000) / 10}m`;
  return `${Math.round(ms / 360_000) / 10}h`;
}
