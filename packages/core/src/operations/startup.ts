/**
 * Startup: bring a launched CLI to its ready prompt. Looks at the screen (woken sooner by hook
 * events), answers startup dialogs one safe key at a time once they have settled, and fails with a
 * typed error on a sign-in screen, a fatal screen, an early exit, a full state disk or the deadline.
 */
import { statfs } from 'node:fs/promises';
import type { EngineContext } from '../engine/context.js';
import { deathFacts } from '../ledger/death.js';
import { AbortedError, NotSignedInError, SpawnFailedError, StateUnwritableError } from '../contract/errors.js';
import { loadWorker } from '../ledger/ledger.js';
import type { WorkerView } from '../ledger/ledger-types.js';
import { turnStarted } from '../ledger/turns.js';
import type { Provider, ProviderV1StartupState } from '@umbel/provider';
import { guarded } from '../engine/provider-guard.js';
import type { PaneState } from '../contract/substrate.js';
import { lastNonBlankLines, sleep, tailText } from '../engine/util.js';
import { watchDir } from '../wait/watch.js';

/** Default time a spawn may take to reach the ready prompt. */
export const DEFAULT_STARTUP_TIMEOUT_MS = 60_000;
/** Presses per dialog (a two-step dialog — move, then confirm — uses two). */
const DIALOG_MAX_TRIES = 5;
/** A dialog must look the same for this long before keys are pressed: CLIs draw it before its input is live. */
const DIALOG_SETTLE_MS = 300;
/** How often startup looks at the screen (a hook event wakes it sooner)… */
const READY_POLL_MS = 100;
/** …and once the CLI has announced its session (the input box is drawn around then). */
const READY_POLL_AFTER_SESSION_MS = 20;
/**
 * …and at a CLI started on a prompt on its command line, which needs no ready screen: its prompt hook
 * ends the wait; the screen is looked at only for a dialog, a sign-in or a fatal screen. Each look is
 * a tmux client, whose CPU a CLI starting on a 2-core machine misses (claude's start took ~150 ms
 * longer with looks every 100 ms than every 400).
 */
const LAUNCH_PROMPT_LOOK_MS = 400;
/** How often startup asks the host whether the CLI is still alive (an exit record asks at once; on a launch prompt, every other look). */
const READY_INSPECT_EVERY_MS = 500;
/** How often startup checks that hooks can still write (a full disk drops them silently). */
const SPACE_CHECK_EVERY_MS = 2000;

interface Startup {
  readonly ctx: EngineContext;
  readonly name: string;
  readonly session: string;
  readonly eventsDir: string;
  readonly provider: Provider;
  lastScreen: string;
}

function detect(s: Startup, screen: string): ProviderV1StartupState {
  const view = loadWorker(s.ctx, s.name);
  // only the current process's events: a revived worker's old session announcement is not this start's
  const since = view?.revivedAt ?? -1n;
  const events = (view?.events ?? []).filter((e) => e.at > since).map((e) => ({ kind: e.kind, at: e.at, payload: e.payload }));
  const envNames = view?.meta?.envNames ?? [];
  return guarded(s.provider, 'doDetectStartup', () => s.provider.doDetectStartup({ screen, events, envNames }));
}

function notSignedIn(provider: Provider, line: string): NotSignedInError {
  return new NotSignedInError(provider.displayName, line, provider.billing?.apiEnv ?? [], provider.signInHint);
}

async function failed(s: Startup, pane: PaneState): Promise<never> {
  const screen = pane.exists ? await s.ctx.substrate.capture(s.session, { lines: 40 }).catch(() => s.lastScreen) : s.lastScreen;
  const startup = screen ? detect(s, screen) : undefined;
  if (startup?.state === 'sign-in') throw notSignedIn(s.provider, startup.line);
  if (startup?.state === 'fatal') throw new SpawnFailedError(startup.message, { paneTail: lastNonBlankLines(screen, 20) });
  const view = loadWorker(s.ctx, s.name);
  const how = deathFacts(view ?? { death: {} }, pane).cause;
  throw new SpawnFailedError(`${s.provider.displayName} exited during startup (${how}); ${lastWords(screen)}`, { paneTail: lastNonBlankLines(screen, 20) });
}

/** Lines of a CLI's last output kept in a startup failure's message. */
const LAST_WORDS_LINES = 5;
const LAST_WORDS_CHARS = 600;

/**
 * What the CLI printed last, for the message of a startup failure: every face shows the message
 * (MCP and `--json` do not show the screen), and a CLI that exits at once says why in its output.
 */
function lastWords(screen: string): string {
  const lines = lastNonBlankLines(screen, LAST_WORDS_LINES)
    .split('\n')
    .map((line) => line.trim());
  if (lines.length === 0 || lines[0] === '') return 'it printed nothing';
  return `its last output: ${tailText(lines.join(' | '), LAST_WORDS_CHARS)}`;
}

/** Hooks write into the events dir; when its disk is full they drop events silently, so say so. */
async function checkSpace(dir: string): Promise<void> {
  const info = await statfs(dir).catch(() => undefined);
  if (info && info.bavail === 0) throw new StateUnwritableError(dir, 'ENOSPC');
}

async function waitScreenChange(s: Startup, before: string, maxMs: number): Promise<void> {
  const until = Date.now() + maxMs;
  while (Date.now() < until) {
    await sleep(50);
    const now = await s.ctx.substrate.capture(s.session, { lines: 60 }).catch(() => before);
    if (now !== before) return sleep(150);
  }
}

async function answerDialog(
  s: Startup,
  startup: Extract<ProviderV1StartupState, { state: 'dialog' }>,
  screen: string,
  tries: Map<string, number>,
): Promise<void> {
  const n = (tries.get(startup.id) ?? 0) + 1;
  if (n > DIALOG_MAX_TRIES) {
    throw new SpawnFailedError(`the startup dialog '${startup.id}' did not go away after ${DIALOG_MAX_TRIES} tries`, {
      paneTail: lastNonBlankLines(screen, 20),
    });
  }
  await sleep(DIALOG_SETTLE_MS);
  const settled = await s.ctx.substrate.capture(s.session, { lines: 60 });
  if (settled !== screen) return;
  tries.set(startup.id, n);
  for (const key of startup.keys) await s.ctx.substrate.sendKeys(s.session, [key]);
  await waitScreenChange(s, screen, 1500);
}

async function look(s: Startup): Promise<string> {
  try {
    return await s.ctx.substrate.capture(s.session, { lines: 60 });
  } catch (error) {
    const pane = await s.ctx.substrate.inspect(s.session);
    if (!pane.exists || pane.dead) await failed(s, pane);
    throw error;
  }
}

/** A CLI started on a prompt on its command line is past its startup once it took that turn (it may never show an idle prompt first). */
function tookFirstTurn(view: WorkerView | undefined, n: number | undefined): boolean {
  if (n === undefined) return false;
  const turn = view?.turns.find((t) => t.turn === n);
  return turn !== undefined && turnStarted(turn);
}

/** Wait until the CLI in `session` shows its ready prompt (answering dialogs), or throw why not. Returns the ready screen. */
export async function awaitReady(
  ctx: EngineContext,
  target: { name: string; session: string; eventsDir: string; provider: Provider; firstTurn?: number },
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<string> {
  const s: Startup = { ctx, ...target, lastScreen: '' };
  const deadline = Date.now() + timeoutMs;
  const tries = new Map<string, number>();
  const watcher = await watchDir(target.eventsDir);
  // The launch has just had the host's answer for this session: the first liveness ask waits its
  // turn (an exit record, or a capture that fails, asks at once).
  let lastInspect = Date.now();
  let lastSpaceCheck = Date.now();
  let lookedSinceSession = 0;
  // a CLI on a launch prompt is first looked at a while after its launch, and never more often than that
  const lookEvery = target.firstTurn !== undefined ? LAUNCH_PROMPT_LOOK_MS : 0;
  let lastLook = Date.now();
  try {
    for (;;) {
      if (signal?.aborted) throw new AbortedError('spawn cancelled');
      const view = loadWorker(ctx, target.name);
      // Liveness from the host every so often, and at once when the launch wrapper recorded an exit.
      if (Date.now() - lastInspect >= Math.max(READY_INSPECT_EVERY_MS, 2 * lookEvery) || view?.death.exit) {
        lastInspect = Date.now();
        const pane = await ctx.substrate.inspect(target.session);
        if (!pane.exists || pane.dead) await failed(s, pane);
      }
      // the CLI took its launch prompt: past its startup (the screen is for the billing verdict)
      if (tookFirstTurn(view, target.firstTurn)) return await look(s);
      const sinceLook = Date.now() - lastLook;
      if (sinceLook < lookEvery && !view?.death.exit) {
        await watcher.next(lookEvery - sinceLook);
        continue;
      }
      lastLook = Date.now();
      const screen = await look(s);
      s.lastScreen = screen;
      const startup = detect(s, screen);
      if (startup.state === 'ready') return screen;
      if (startup.state === 'sign-in') throw notSignedIn(target.provider, startup.line);
      if (startup.state === 'fatal') throw new SpawnFailedError(startup.message, { paneTail: lastNonBlankLines(screen, 20) });
      if (startup.state === 'dialog') {
        await answerDialog(s, startup, screen, tries);
        continue;
      }
      if (Date.now() - lastSpaceCheck >= SPACE_CHECK_EVERY_MS || Date.now() > deadline) {
        lastSpaceCheck = Date.now();
        await checkSpace(target.eventsDir);
      }
      if (Date.now() > deadline) {
        throw new SpawnFailedError(`${target.provider.displayName} did not reach its ready prompt within ${Math.round(timeoutMs / 1000)}s`, {
          paneTail: lastNonBlankLines(screen, 20),
        });
      }
      // Once the CLI announced its session, the ready screen follows within moments: look often at
      // first, then back off (20, 40, 80, 100 ms), so many workers starting at once stay cheap.
      const sessionSeen = view?.sessionSeen ?? false;
      if (sessionSeen) lookedSinceSession += 1;
      const pause = sessionSeen ? Math.min(READY_POLL_MS, READY_POLL_AFTER_SESSION_MS * 2 ** (lookedSinceSession - 1)) : READY_POLL_MS;
      await watcher.next(Math.max(lookEvery, pause));
    }
  } finally {
    await watcher.close();
  }
}
