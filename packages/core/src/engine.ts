/**
 * The engine: the operations spawn, send, wait, read, status, list, kill, prune, capture, logs,
 * composed over an injected Substrate and Providers. No daemon: every state is derived from the
 * files under the state root and the substrate's answer when asked.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, realpath, rm, stat } from 'node:fs/promises';
import { isAbsolute, resolve as resolvePath } from 'node:path';
import { finalizeWorkerEnv, resolveWorkerEnv } from './env.js';
import {
  CwdMissingError,
  OptionUnsupportedError,
  ProviderUnknownError,
  SendNotSubmittedError,
  SpawnFailedError,
  TranscriptUnavailableError,
  TurnNotFoundError,
  UmbelError,
  UsageError,
  usageFromZod,
  WorkerDeadError,
  WorkerExistsError,
  WorkerNotFoundError,
  NotSignedInError,
} from './errors.js';
import { deathFacts, type EventHistory, interpretEvents, isoOf, pendingInputEvent, readEvents, type StoredEvent, stopFacts, writeEvent } from './events.js';
import { writeFileAtomic } from './fs-atomic.js';
import { hookCommandFor, installHookSink } from './hook-sink.js';
import { readMeta, tryReadMeta, writeMeta } from './meta.js';
import { resolveHome, sessionName, statePaths, type StatePaths } from './paths.js';
import type { HookEvent, Provider, ProviderV1EventInfo, ProviderV1Message } from './provider.js';
import {
  CaptureOptionsSchema,
  KeysOptionsSchema,
  KillOptionsSchema,
  PruneOptionsSchema,
  ReadOptionsSchema,
  SendOptionsSchema,
  SpawnOptionsSchema,
  WaitOptionsSchema,
  type WorkerMeta,
  type WorkerState,
  type WorkerStatus,
} from './schemas.js';
import type { PaneState, Substrate } from './substrate.js';
import type { KeysResult } from './schemas.js';
import type { CallContext, CaptureResult, KillResult, LogEntry, PruneResult, ReadResult, SendResult, Umbel, UmbelSettings, WaitContext } from './umbel.js';
import { mapLimit, sleep, tailLines } from './util.js';
import { watchDir } from './watch.js';
import { waitForTurn } from './wait.js';
import { runGuarded } from './guardrail.js';
import { shapeAnswer } from './answer.js';

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
/** How often startup asks the host whether the CLI is still alive (an exit record asks at once). */
const READY_INSPECT_EVERY_MS = 500;

function parse<T>(
  schema: {
    safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
  },
  value: unknown,
  what: string,
): T {
  const result = schema.safeParse(value);
  if (!result.success) throw usageFromZod(result.error, what);
  return result.data;
}

function anonymousName(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(6);
  return `anon-${Array.from(bytes, (b) => alphabet[b % 36]).join('')}`;
}

/** Internal shared state of one engine, used by wait/guardrail. */
export interface EngineInternals {
  readonly paths: StatePaths;
  readonly substrate: Substrate;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly settings: UmbelSettings;
  providerFor(meta: WorkerMeta): Provider;
  loadWorker(name: string): Promise<{ meta: WorkerMeta; provider: Provider; events: StoredEvent[]; history: EventHistory }>;
  transcriptOf(meta: WorkerMeta, history: EventHistory, provider: Provider): { path?: string; sessionId?: string };
}

/** Create an engine. */
export function createUmbel(settings: UmbelSettings): Umbel {
  const env = settings.env ?? process.env;
  const home = resolveHome(env, settings.home);
  const paths = statePaths(home);
  const substrate = settings.substrate;
  const providers = new Map<string, Provider>();
  for (const provider of settings.providers) {
    if (provider?.specificationVersion !== 'umbel-provider-v1') {
      throw new UmbelError({
        code: 'UMBEL_PROVIDER_INVALID',
        message: `provider ${(provider as { providerId?: string })?.providerId ?? '?'} implements an unsupported specification version`,
      });
    }
    providers.set(provider.providerId, provider);
  }

  function getProvider(id: string): Provider {
    const provider = providers.get(id);
    if (!provider) throw new ProviderUnknownError(id, [...providers.keys()]);
    return provider;
  }

  function parseEvent(provider: Provider, event: HookEvent): ProviderV1EventInfo {
    try {
      return provider.doParseEvent(event);
    } catch {
      return {};
    }
  }

  function transcriptOf(meta: WorkerMeta, history: EventHistory, provider: Provider): { path?: string; sessionId?: string } {
    let path = meta.transcriptPath;
    let sessionId = meta.sessionId;
    // The newest event that names a transcript wins (a /clear switches files).
    const candidates: HookEvent[] = [...history.sessionEvents];
    for (const t of history.turns) {
      if (t.promptEvent) candidates.push(t.promptEvent);
      if (t.endEvent) candidates.push(t.endEvent);
    }
    candidates.sort((a, b) => (a.at < b.at ? -1 : 1));
    for (const event of candidates) {
      const info = parseEvent(provider, event);
      if (info.transcriptPath) path = info.transcriptPath;
      if (info.sessionId) sessionId = info.sessionId;
    }
    return { path, sessionId };
  }

  async function loadWorker(name: string) {
    const wp = paths.worker(name);
    const meta = await readMeta(wp.meta, name);
    const provider = getProvider(meta.provider);
    const events = await readEvents(wp.events);
    return { meta, provider, events, history: interpretEvents(events) };
  }

  const internals: EngineInternals = {
    paths,
    substrate,
    env,
    settings,
    providerFor: (meta) => getProvider(meta.provider),
    loadWorker,
    transcriptOf,
  };

  // --- spawn ---

  async function spawn(input: Parameters<Umbel['spawn']>[0], context: CallContext = {}): Promise<WorkerStatus> {
    const options = parse(SpawnOptionsSchema, input, 'spawn options');
    const provider = getProvider(options.provider);
    const caps = provider.capabilities;
    if (options.unattended && !caps.unattended) throw new OptionUnsupportedError(provider.providerId, '--unattended');
    if (options.allowedTools && !caps.allowedTools) throw new OptionUnsupportedError(provider.providerId, '--allowed-tools');
    if (options.appendSystemPrompt !== undefined && !caps.appendSystemPrompt) throw new OptionUnsupportedError(provider.providerId, '--append-system-prompt');
    if (options.permissionMode !== undefined && !caps.permissionModes.includes(options.permissionMode)) {
      throw new OptionUnsupportedError(
        provider.providerId,
        `--permission-mode ${options.permissionMode}`,
        caps.permissionModes.length ? `use one of ${caps.permissionModes.join(', ')}` : 'it has no permission modes',
      );
    }
    const workerEnv = resolveWorkerEnv({ callerEnv: env, inherit: provider.inheritEnv, explicit: options.env });
    const cwdInput = options.cwd ?? process.cwd();
    const cwdAbs = isAbsolute(cwdInput) ? cwdInput : resolvePath(process.cwd(), cwdInput);
    let cwd: string;
    try {
      if (!(await stat(cwdAbs)).isDirectory()) throw new CwdMissingError(cwdAbs);
      cwd = await realpath(cwdAbs);
    } catch (error) {
      if (UmbelError.isInstance(error)) throw error;
      throw new CwdMissingError(cwdAbs);
    }
    const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
    const choices = {
      cwd,
      model: options.model,
      permissionMode: options.permissionMode,
      allowedTools: options.allowedTools,
      appendSystemPrompt: options.appendSystemPrompt,
      unattended: options.unattended,
      env: workerEnv,
      callerEnv: env,
    };
    provider.doValidate?.({ spawn: choices, isRoot });

    const name = options.name ?? anonymousName();
    const wp = paths.worker(name);
    const session = sessionName(name);
    await mkdir(paths.workersDir, { recursive: true });
    try {
      await mkdir(wp.dir);
    } catch (error) {
      if ((error as { code?: string }).code === 'EEXIST') throw new WorkerExistsError(name);
      throw error;
    }
    const written: string[] = [];
    let launched = false;
    try {
      const existing = await substrate.inspect(session);
      if (existing.exists) throw new WorkerExistsError(name);
      await mkdir(wp.events, { recursive: true });
      await mkdir(wp.provider, { recursive: true });
      await installHookSink(paths.hookSink);
      const sharedDir = paths.providerShared(provider.providerId);
      await mkdir(sharedDir, { recursive: true });
      const launch = await provider.doBuildLaunch({
        ...choices,
        worker: name,
        workerDir: wp.provider,
        sharedDir,
        sessionId: randomUUID(),
        hookSinkPath: paths.hookSink,
        hookCommand: (kind, hookOptions) => hookCommandFor(paths.hookSink, kind, hookOptions?.stdout),
      });
      const providerFiles: string[] = [];
      for (const file of launch.files ?? []) {
        if (file.shared) {
          let same = false;
          try {
            same = (await readFile(file.path, 'utf8')) === file.content;
          } catch {
            same = false;
          }
          if (!same) await writeFileAtomic(file.path, file.content, file.mode);
          continue;
        }
        await writeFileAtomic(file.path, file.content, file.mode);
        written.push(file.path);
        if (!file.path.startsWith(`${wp.dir}/`)) providerFiles.push(file.path);
      }
      let finalEnv = finalizeWorkerEnv(workerEnv, launch.env, launch.unsetEnv, { UMBEL_EVENTS_DIR: wp.events, UMBEL_WORKER: name });
      if (provider.doReconcileEnv) finalEnv = provider.doReconcileEnv(finalEnv);
      const meta: WorkerMeta = {
        version: 1,
        name,
        provider: provider.providerId,
        cwd,
        model: options.model,
        permissionMode: options.permissionMode,
        allowedTools: options.allowedTools,
        unattended: options.unattended,
        anonymous: options.name === undefined,
        createdAt: new Date().toISOString(),
        substrateSession: session,
        sessionId: launch.sessionId,
        transcriptPath: launch.transcriptPath,
        providerFiles,
        envNames: Object.keys(finalEnv).sort(),
      };
      await writeMeta(wp.meta, meta);
      launched = true;
      await substrate.launch({ session, cwd, argv: launch.argv, env: finalEnv, exitRecordDir: wp.events });
      await awaitReady(name, provider, options.startupTimeout ?? DEFAULT_STARTUP_TIMEOUT_MS, context.signal);
      const events = await readEvents(wp.events);
      const found = transcriptOf(meta, interpretEvents(events), provider);
      let final = meta;
      if (found.path !== meta.transcriptPath || found.sessionId !== meta.sessionId) {
        final = { ...meta, transcriptPath: found.path, sessionId: found.sessionId };
        await writeMeta(wp.meta, final);
      }
      // Alive: startup just saw its ready screen (and would have seen an exit record).
      return await statusFrom(final, { exists: true, dead: false });
    } catch (error) {
      if (launched) await substrate.kill(session).catch(() => undefined);
      for (const path of written) await rm(path, { force: true }).catch(() => undefined);
      await rm(wp.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }).catch(() => undefined);
      throw error;
    }
  }

  async function awaitReady(name: string, provider: Provider, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    const wp = paths.worker(name);
    const session = sessionName(name);
    const deadline = Date.now() + timeoutMs;
    const tries = new Map<string, number>();
    let lastScreen = '';
    const watcher = await watchDir(wp.events);
    const failed = async (pane: PaneState): Promise<never> => {
      const events = await readEvents(wp.events);
      const history = interpretEvents(events);
      const screen = pane.exists ? await substrate.capture(session, { lines: 40 }).catch(() => lastScreen) : lastScreen;
      const startup = screen ? safeDetect(provider, screen, events) : undefined;
      if (startup?.state === 'sign-in') throw new NotSignedInError(provider.displayName, startup.line);
      if (startup?.state === 'fatal') throw new SpawnFailedError(startup.message, { paneTail: tailLines(screen, 20) });
      const how = deathFacts(history, pane).cause;
      throw new SpawnFailedError(`${provider.displayName} exited during startup (${how})`, { paneTail: tailLines(screen, 20) });
    };
    let lastInspect = 0;
    let lookedSinceSession = 0;
    try {
      for (;;) {
        if (signal?.aborted) throw new UsageError('spawn cancelled', { code: 'UMBEL_ABORTED' });
        const events = await readEvents(wp.events);
        // Liveness from the host every so often, and at once when the launch wrapper recorded an exit.
        if (Date.now() - lastInspect >= READY_INSPECT_EVERY_MS || events.some((e) => e.kind === 'exit')) {
          lastInspect = Date.now();
          const pane = await substrate.inspect(session);
          if (!pane.exists || pane.dead) await failed(pane);
        }
        let screen: string;
        try {
          screen = await substrate.capture(session, { lines: 60 });
        } catch (error) {
          const pane = await substrate.inspect(session);
          if (!pane.exists || pane.dead) await failed(pane);
          throw error;
        }
        lastScreen = screen;
        const startup = safeDetect(provider, screen, events);
        switch (startup.state) {
          case 'ready':
            return;
          case 'sign-in':
            throw new NotSignedInError(provider.displayName, startup.line);
          case 'fatal':
            throw new SpawnFailedError(startup.message, { paneTail: tailLines(screen, 20) });
          case 'dialog': {
            const n = (tries.get(startup.id) ?? 0) + 1;
            if (n > DIALOG_MAX_TRIES)
              throw new SpawnFailedError(`the startup dialog '${startup.id}' did not go away after ${DIALOG_MAX_TRIES} tries`, {
                paneTail: tailLines(screen, 20),
              });
            await sleep(DIALOG_SETTLE_MS);
            const settled = await substrate.capture(session, { lines: 60 });
            if (settled !== screen) continue;
            tries.set(startup.id, n);
            for (const key of startup.keys) await substrate.sendKeys(session, [key]);
            await waitScreenChange(session, screen, 1500);
            continue;
          }
          default:
            break;
        }
        if (Date.now() > deadline) {
          throw new SpawnFailedError(`${provider.displayName} did not reach its ready prompt within ${Math.round(timeoutMs / 1000)}s`, {
            paneTail: tailLines(screen, 20),
          });
        }
        // Once the CLI announced its session, the ready screen follows within moments: look often at
        // first, then back off (20, 40, 80, 100 ms), so many workers starting at once stay cheap.
        const sessionSeen = events.some((e) => e.kind === 'session');
        if (sessionSeen) lookedSinceSession += 1;
        await watcher.next(sessionSeen ? Math.min(READY_POLL_MS, READY_POLL_AFTER_SESSION_MS * 2 ** (lookedSinceSession - 1)) : READY_POLL_MS);
      }
    } finally {
      await watcher.close();
    }
  }

  function safeDetect(provider: Provider, screen: string, events: readonly HookEvent[]) {
    return provider.doDetectStartup({ screen, events });
  }

  async function waitScreenChange(session: string, before: string, maxMs: number): Promise<void> {
    const until = Date.now() + maxMs;
    while (Date.now() < until) {
      await sleep(50);
      const now = await substrate.capture(session, { lines: 60 }).catch(() => before);
      if (now !== before) {
        await sleep(150);
        return;
      }
    }
  }

  // --- send ---

  async function acquireLock(path: string): Promise<() => Promise<void>> {
    const until = Date.now() + 30_000;
    for (;;) {
      try {
        await mkdir(path);
        return () => rm(path, { recursive: true, force: true });
      } catch (error) {
        if ((error as { code?: string }).code !== 'EEXIST') throw error;
        try {
          const info = await stat(path);
          if (Date.now() - info.mtimeMs > 120_000) await rm(path, { recursive: true, force: true });
        } catch {
          // gone already
        }
        if (Date.now() > until) throw new UmbelError({ code: 'UMBEL_INTERNAL', message: `another send to this worker holds ${path}` });
        await sleep(25);
      }
    }
  }

  async function send(input: Parameters<Umbel['send']>[0], context: CallContext = {}): Promise<SendResult> {
    const options = parse(SendOptionsSchema, input, 'send options');
    const { meta, provider } = await loadWorker(options.name);
    const session = meta.substrateSession;
    const pane = await substrate.inspect(session);
    if (!pane.exists || pane.dead) throw new WorkerDeadError(meta.name, await deathCause(meta.name, pane));
    const text = provider.doPreparePrompt ? provider.doPreparePrompt(options.prompt) : options.prompt;
    const wp = paths.worker(meta.name);
    const release = await acquireLock(wp.sendLock);
    try {
      const history = interpretEvents(await readEvents(wp.events));
      const turn = (history.turns[history.turns.length - 1]?.turn ?? 0) + 1;
      const sentAt = await writeEvent(wp.events, 'sent', { turn, prompt: options.prompt });
      const input = provider.input ?? {};
      const watcher = await watchDir(wp.events);
      try {
        if ((input.alwaysPaste ?? true) || text.includes('\n') || text.length > 1000) await substrate.pasteText(session, text);
        else await substrate.typeText(session, text);
        if (input.submitDelayMs) await sleep(input.submitDelayMs, context.signal);
        await substrate.sendKeys(session, ['Enter']);
        const confirmMs = input.confirmTimeoutMs ?? 1500;
        const retries = input.maxSubmitRetries ?? 3;
        let presses = 1;
        for (;;) {
          const until = Date.now() + confirmMs;
          while (Date.now() < until) {
            if (await confirmed(wp.events, sentAt)) return { worker: meta.name, turn };
            await watcher.next(Math.min(100, Math.max(1, until - Date.now())));
          }
          if (await confirmed(wp.events, sentAt)) return { worker: meta.name, turn };
          const now = await substrate.inspect(session);
          if (!now.exists || now.dead) throw new WorkerDeadError(meta.name, await deathCause(meta.name, now));
          if (presses > retries) {
            const tail = await substrate.capture(session, { lines: 20 }).catch(() => undefined);
            throw new SendNotSubmittedError(meta.name, presses, tail);
          }
          await substrate.sendKeys(session, ['Enter']);
          presses++;
        }
      } finally {
        await watcher.close();
      }
    } finally {
      await release();
    }
  }

  async function confirmed(eventsDir: string, sentAt: bigint): Promise<boolean> {
    const events = await readEvents(eventsDir);
    return events.some((e) => e.at > sentAt && (e.kind === 'prompt' || e.kind === 'stop' || e.kind === 'stop-failure' || e.kind === 'permission'));
  }

  async function deathCause(name: string, pane: PaneState): Promise<string> {
    return deathFacts(interpretEvents(await readEvents(paths.worker(name).events)), pane).cause;
  }

  async function keys(input: Parameters<Umbel['keys']>[0]): Promise<KeysResult> {
    const options = parse(KeysOptionsSchema, input, 'keys options');
    const meta = await readMeta(paths.worker(options.name).meta, options.name);
    const pane = await substrate.inspect(meta.substrateSession);
    if (!pane.exists || pane.dead) throw new WorkerDeadError(meta.name, await deathCause(meta.name, pane));
    await writeEvent(paths.worker(meta.name).events, 'keys', { keys: options.keys });
    await substrate.sendKeys(meta.substrateSession, options.keys);
    return { worker: meta.name, keys: options.keys };
  }

  // --- wait / read ---

  async function wait(input: Parameters<Umbel['wait']>[0], context: WaitContext = {}) {
    const options = parse(WaitOptionsSchema, input, 'wait options');
    if (options.check || options.schema) return runGuarded(internals, options, { ...context, send: (name, prompt) => send({ name, prompt }, context) });
    return waitForTurn(internals, options, context);
  }

  async function read(input: Parameters<Umbel['read']>[0]): Promise<ReadResult> {
    const options = parse(ReadOptionsSchema, input, 'read options');
    const whole = await readWhole(options);
    if (options.section === undefined && options.head === undefined && options.tail === undefined) return whole;
    const shaped = shapeAnswer(whole.result, { section: options.section, head: options.head, tail: options.tail });
    return { ...whole, result: shaped.text, ...(shaped.elidedTokens ? { elidedTokens: shaped.elidedTokens } : {}) };
  }

  async function readWhole(options: { name: string; turn?: number }): Promise<ReadResult> {
    const { meta, provider, history } = await loadWorker(options.name);
    const latest = history.turns.length;
    const ended = [...history.turns].reverse().find((t) => t.endEvent);
    const turnNo = options.turn ?? ended?.turn ?? latest;
    if (turnNo === 0 || turnNo > latest) throw new TurnNotFoundError(meta.name, options.turn ?? 0, latest);
    const turn = history.turns[turnNo - 1];
    if (!turn) throw new TurnNotFoundError(meta.name, turnNo, latest);
    const found = transcriptOf(meta, history, provider);
    const turnKey = turn.promptEvent ? parseEvent(provider, turn.promptEvent).turnKey : undefined;
    const stopInfo = turn.endEvent ? parseEvent(provider, turn.endEvent) : {};
    const answer = (result: string, complete: boolean): ReadResult => ({
      worker: meta.name,
      provider: meta.provider,
      turn: turnNo,
      result,
      complete,
      sessionId: found.sessionId,
      transcriptPath: found.path,
    });
    let content: string | undefined;
    if (found.path) content = await readFile(found.path, 'utf8').catch(() => undefined);
    if (content !== undefined && found.path) {
      const result = provider.doReadTurn({
        content,
        transcriptPath: found.path,
        turnKey: turnKey ?? stopInfo.turnKey,
        prompt: turn.prompt,
        ordinal: turnNo,
        ...stopFacts(provider, turn),
      });
      if (result.status === 'completed') return answer(result.answer, true);
      if (result.status === 'failed') return answer(result.message, true);
    }
    if (stopInfo.lastMessage !== undefined) return answer(stopInfo.lastMessage, false);
    throw new TranscriptUnavailableError(
      found.path ? `the transcript of '${meta.name}' has no answer for turn ${turnNo} yet (${found.path})` : `no transcript is known for '${meta.name}' yet`,
    );
  }

  async function messages(name: string, turnNo?: number): Promise<readonly ProviderV1Message[]> {
    const { meta, provider, history } = await loadWorker(name);
    const n = turnNo ?? history.turns.length;
    const turn = history.turns[n - 1];
    const found = transcriptOf(meta, history, provider);
    if (!turn || !found.path || !provider.doReadMessages) return [];
    const content = await readFile(found.path, 'utf8').catch(() => undefined);
    if (content === undefined) return [];
    const turnKey = turn.promptEvent ? parseEvent(provider, turn.promptEvent).turnKey : undefined;
    return provider.doReadMessages({ content, transcriptPath: found.path, turnKey, prompt: turn.prompt, ordinal: n, ...stopFacts(provider, turn) });
  }

  // --- status / list ---

  async function statusFrom(meta: WorkerMeta, pane: PaneState | undefined): Promise<WorkerStatus> {
    const provider = providers.get(meta.provider);
    const events = await readEvents(paths.worker(meta.name).events);
    const history = interpretEvents(events);
    const exitPayload = (history.exit?.payload ?? undefined) as { status?: number; signal?: string } | undefined;
    const deadPayload = (history.dead?.payload ?? undefined) as { by?: string; at?: string; status?: number; signal?: string } | undefined;
    const alive = !!pane && pane.exists && !pane.dead;
    const lastTurn = history.turns[history.turns.length - 1];
    const completed = [...history.turns].reverse().find((t) => t.endEvent);
    let state: WorkerState;
    let needsInput: WorkerStatus['needsInput'];
    if (!alive) {
      state = deadPayload?.by === 'kill' ? 'killed' : exitPayload?.status === 0 ? 'exited' : 'dead';
    } else if (history.sessionEvents.length === 0 && history.turns.length === 0 && provider) {
      state = 'starting';
    } else if (lastTurn && !lastTurn.endEvent) {
      const pending = pendingInputEvent(lastTurn, events);
      const info = provider && pending ? provider.doParseEvent(pending) : undefined;
      if (info?.needsInput) {
        state = 'needs-input';
        needsInput = { kind: info.needsInput.kind, message: info.needsInput.message, tool: info.needsInput.tool };
      } else state = 'busy';
    } else state = 'ready';
    if (alive && history.sessionEvents.length === 0 && history.turns.length === 0) state = 'ready';
    const found = provider ? transcriptOf(meta, history, provider) : { path: meta.transcriptPath, sessionId: meta.sessionId };
    const exitInfo = !alive
      ? {
          status: exitPayload?.status ?? deadPayload?.status ?? pane?.exitStatus,
          signal: exitPayload?.signal ?? deadPayload?.signal ?? pane?.signal,
          at: history.exit ? isoOf(history.exit.at) : history.dead ? isoOf(history.dead.at) : undefined,
          by: deadPayload?.by,
        }
      : undefined;
    return {
      name: meta.name,
      provider: meta.provider,
      state,
      alive,
      cwd: meta.cwd,
      model: meta.model,
      createdAt: meta.createdAt,
      lastActivityAt: history.last ? isoOf(history.last.at) : undefined,
      turn: lastTurn?.turn ?? 0,
      completedTurn: completed?.turn ?? 0,
      sessionId: found.sessionId,
      transcriptPath: found.path,
      needsInput,
      exit: exitInfo && Object.values(exitInfo).some((v) => v !== undefined) ? exitInfo : undefined,
      anonymous: meta.anonymous,
    };
  }

  async function status(name: string): Promise<WorkerStatus> {
    const meta = await tryReadMeta(paths.worker(name).meta);
    if (!meta) throw new WorkerNotFoundError(name);
    const pane = await substrate.inspect(meta.substrateSession);
    return statusFrom(meta, pane);
  }

  async function workerNames(): Promise<string[]> {
    try {
      return (await readdir(paths.workersDir)).filter((n) => !n.startsWith('.')).sort();
    } catch {
      return [];
    }
  }

  /** The sessions on the host and each one's liveness: one host call when the substrate can, else one per live session. */
  async function panes(): Promise<{ live: ReadonlySet<string>; paneOf: (session: string) => Promise<PaneState> }> {
    const gone: PaneState = { exists: false, dead: true };
    if (substrate.inspectAll) {
      const all = await substrate.inspectAll();
      return { live: new Set(all.keys()), paneOf: async (session) => all.get(session) ?? gone };
    }
    const live = new Set(await substrate.list());
    return { live, paneOf: async (session) => (live.has(session) ? substrate.inspect(session) : gone) };
  }

  async function list(): Promise<WorkerStatus[]> {
    const names = await workerNames();
    const [metas, { paneOf }] = await Promise.all([
      Promise.all(names.map((n) => tryReadMeta(paths.worker(n).meta))).then((all) => all.filter((m): m is WorkerMeta => !!m)),
      panes(),
    ]);
    return mapLimit(metas, 8, async (meta) => statusFrom(meta, await paneOf(meta.substrateSession)));
  }

  // --- kill / prune ---

  async function kill(input: Parameters<Umbel['kill']>[0]): Promise<KillResult> {
    const options = parse(KillOptionsSchema, input, 'kill options');
    const wp = paths.worker(options.name);
    const meta = await tryReadMeta(wp.meta);
    const session = meta?.substrateSession ?? sessionName(options.name);
    const pane = await substrate.inspect(session);
    let dirExists = true;
    try {
      await stat(wp.dir);
    } catch {
      dirExists = false;
    }
    if (!meta && !pane.exists && !dirExists) throw new WorkerNotFoundError(options.name);
    let killed = false;
    if (pane.exists) {
      // The screen and a tombstone are evidence for later; a purge keeps nothing, so skips them.
      const screen = options.purge ? undefined : await substrate.capture(session, { lines: 40 }).catch(() => undefined);
      if (dirExists && !options.purge) {
        const history = interpretEvents(await readEvents(wp.events));
        if (!history.dead || (history.dead.payload as { by?: string } | undefined)?.by !== 'kill') {
          await writeEvent(wp.events, 'dead', {
            by: 'kill',
            at: new Date().toISOString(),
            alive: !pane.dead,
            status: pane.exitStatus,
            signal: pane.signal,
            paneTail: screen ? tailLines(screen, 40) : undefined,
          }).catch(() => undefined);
        }
      }
      await substrate.kill(session);
      killed = !pane.dead;
    }
    for (const file of meta?.providerFiles ?? []) await rm(file, { force: true }).catch(() => undefined);
    // substrate.kill returns once every process of the session is gone, the launch wrapper (which
    // records the exit) included: nothing writes into the dir after this.
    // A hook that fired just before the kill may still be renaming its event in: retry a non-empty dir.
    if (options.purge) await rm(wp.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
    return { worker: options.name, killed, purged: options.purge };
  }

  async function prune(input: Parameters<Umbel['prune']>[0] = {}): Promise<PruneResult> {
    const options = parse(PruneOptionsSchema, input ?? {}, 'prune options');
    const removed: string[] = [];
    let kept = 0;
    const { live, paneOf } = await panes();
    const names = await workerNames();
    for (const name of names) {
      const meta = await tryReadMeta(paths.worker(name).meta);
      const session = meta?.substrateSession ?? sessionName(name);
      const pane = await paneOf(session);
      if (pane.exists && !pane.dead) {
        kept++;
        continue;
      }
      if (options.olderThan !== undefined) {
        const history = interpretEvents(await readEvents(paths.worker(name).events));
        const diedAt = history.dead
          ? Number(history.dead.at / 1_000_000n)
          : history.exit
            ? Number(history.exit.at / 1_000_000n)
            : meta
              ? Date.parse(meta.createdAt)
              : 0;
        if (Date.now() - diedAt < options.olderThan) {
          kept++;
          continue;
        }
      }
      await kill({ name, purge: true }).catch(async () => rm(paths.worker(name).dir, { recursive: true, force: true }));
      removed.push(name);
    }
    // Sessions on umbel's socket whose state dir is gone (a crash between launch and meta, or a
    // hand-deleted dir): visible here, so they are never orphans.
    const known = new Set(names.map((n) => sessionName(n)));
    for (const session of live) {
      if (!session.startsWith('umbel-') || known.has(session)) continue;
      const name = session.slice('umbel-'.length);
      const pane = await paneOf(session);
      if (pane.exists && !pane.dead && options.olderThan !== undefined) {
        kept++;
        continue;
      }
      await substrate.kill(session);
      removed.push(name);
    }
    return { removed, kept };
  }

  // --- capture / logs / attach ---

  async function capture(input: Parameters<Umbel['capture']>[0]): Promise<CaptureResult> {
    const options = parse(CaptureOptionsSchema, input, 'capture options');
    const wp = paths.worker(options.name);
    const meta = await tryReadMeta(wp.meta);
    const session = meta?.substrateSession ?? sessionName(options.name);
    const pane = await substrate.inspect(session);
    if (pane.exists) return { worker: options.name, text: await substrate.capture(session, { lines: options.lines }), live: !pane.dead };
    if (!meta) throw new WorkerNotFoundError(options.name);
    const history = interpretEvents(await readEvents(wp.events));
    const tail = (history.dead?.payload as { paneTail?: string } | undefined)?.paneTail;
    if (tail === undefined) throw new WorkerDeadError(options.name, 'no screen was saved');
    return { worker: options.name, text: tailLines(tail, options.lines), live: false };
  }

  async function logs(name: string): Promise<LogEntry[]> {
    const { provider, events } = await loadWorker(name);
    return events.map((event) => ({ at: isoOf(event.at), kind: event.kind, summary: summarize(provider, event) }));
  }

  function summarize(provider: Provider, event: StoredEvent): string {
    const payload = (event.payload ?? {}) as Record<string, unknown>;
    switch (event.kind) {
      case 'sent': {
        const prompt = String(payload.prompt ?? '');
        return `turn ${String(payload.turn)}: ${JSON.stringify(prompt.length > 60 ? `${prompt.slice(0, 60)}…` : prompt)} (${prompt.length} chars)`;
      }
      case 'exit':
        return payload.signal ? `killed by ${String(payload.signal)}` : `exited with status ${String(payload.status)}`;
      case 'dead':
        return payload.by === 'kill' ? 'killed by umbel kill' : 'found dead';
      default: {
        const info = parseEvent(provider, event);
        return info.needsInput
          ? `needs ${info.needsInput.kind}${info.needsInput.tool ? ` (${info.needsInput.tool})` : ''}${info.needsInput.message ? `: ${info.needsInput.message}` : ''}`
          : (info.error ?? info.activity ?? (info.lastMessage !== undefined ? `answer: ${info.lastMessage.slice(0, 60)}` : ''));
      }
    }
  }

  async function attachCommand(name: string) {
    const meta = await readMeta(paths.worker(name).meta, name);
    return substrate.attachCommand(meta.substrateSession);
  }

  return {
    home,
    providerIds: [...providers.keys()],
    provider: getProvider,
    spawn,
    send,
    keys,
    wait,
    read,
    status,
    list,
    kill,
    prune,
    capture,
    logs,
    messages,
    attachCommand,
  };
}
