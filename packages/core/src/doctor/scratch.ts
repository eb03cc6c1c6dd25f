/**
 * The live part of `doctor`: one scratch worker per provider, under a private temp dir (its own
 * cwd and its own state root, hence its own tmux server), started through the normal engine with
 * the engine answering its startup dialogs (default permission mode: no tool is ever approved). It proves the CLI signs in, reaches its prompt and
 * runs umbel's session hook with a payload the provider can read; with `turn`, one tiny turn end
 * to end. Torn down whatever happens (kill --purge, the host disposed, the temp dir removed).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { AbortedError, NotSignedInError, SendNotSubmittedError, SpawnFailedError, UmbelError } from '../contract/errors.js';
import type { EnvMap } from '../contract/schemas.js';
import { guarded, guardedAsync } from '../engine/provider-guard.js';
import { lastNonBlankLines } from '../engine/util.js';
import type { Provider, ProviderV1EventInfo } from '@umbel/provider';
import type { Substrate } from '../contract/substrate.js';
import type { Umbel } from '../contract/umbel.js';
import type { ScratchHost, ScratchHostFactory } from './host.js';
import type { DoctorCheck } from './schema.js';

export type { ScratchHost, ScratchHostFactory } from './host.js';

/**
 * A scratch engine: the engine, and what its ledger holds of a worker's hook events (of one kind,
 * or all), oldest first — each as its provider read it there, once and behind the guard (a reading
 * that threw is `{}` and a problem of the ledger's).
 */
export interface ScratchEngine {
  readonly umbel: Umbel;
  hookEvents(worker: string, kind?: string): readonly ProviderV1EventInfo[];
}

/** Makes an engine over `substrate` bound to `home`, with this provider only. */
export type ScratchEngineFactory = (substrate: Substrate, home: string, provider: Provider) => ScratchEngine;

/** What a scratch run needs. */
export interface ScratchRun {
  readonly provider: Provider;
  readonly scratch: ScratchHostFactory;
  readonly engine: ScratchEngineFactory;
  readonly env?: EnvMap;
  readonly startupTimeoutMs: number;
  readonly turn: boolean;
  readonly signal?: AbortSignal;
  /** Where the private scratch dir is made (umbel's own `TMPDIR`, else the system's). */
  readonly tempDir: string;
  /** The env the worker gets (where the provider finds the CLI's own state to forget the session in). */
  readonly workerEnv?: Readonly<Record<string, string | undefined>>;
}

/** The scratch worker's cwd and TMPDIR, inside the private scratch dir. */
interface ScratchDirs {
  readonly cwd: string;
  readonly tmp: string;
}

/** The prompt of `--turn`: tiny, and answered in one word. */
export const DOCTOR_TURN_PROMPT = 'Reply with the single word: pong';
/** How long a ready worker's session event may lag behind the ready screen. */
const SESSION_EVENT_GRACE_MS = 5_000;
/** Bound of the `--turn` wait. */
const TURN_TIMEOUT = '120s';

const check = (id: DoctorCheck['id'], title: string, status: DoctorCheck['status'], detail?: string, hint?: string): DoctorCheck => ({
  id,
  title,
  status,
  ...(detail !== undefined ? { detail } : {}),
  ...(hint !== undefined ? { hint } : {}),
});
const skipped = (ids: readonly [DoctorCheck['id'], string][], why: string) => ids.map(([id, title]) => check(id, title, 'skip', why));

const LOGIN: [DoctorCheck['id'], string] = ['login', 'signed in'];
const LAUNCH: [DoctorCheck['id'], string] = ['launch', 'starts to its ready prompt'];
const HOOK: [DoctorCheck['id'], string] = ['session-hook', 'session hook fires'];
const PAYLOAD: [DoctorCheck['id'], string] = ['payload', 'session payload readable'];
const TURN: [DoctorCheck['id'], string] = ['turn', 'one turn end to end'];

/** The checks of a scratch run, in order: login, launch, session hook, payload, and turn when asked. */
export async function scratchChecks(run: ScratchRun): Promise<DoctorCheck[]> {
  const root = await mkdtemp(join(run.tempDir, 'umbel-doctor-'));
  const home = join(root, 'state');
  const dirs: ScratchDirs = { cwd: join(root, 'work'), tmp: join(root, 'tmp') };
  const name = `doctor-${run.provider.providerId}`.replace(/[^a-z0-9-]/g, '-').slice(0, 63);
  let host: ScratchHost | undefined;
  let engine: ScratchEngine | undefined;
  let transcript: string | undefined;
  const sessionIds = new Set<string>();
  try {
    await mkdir(dirs.cwd, { mode: 0o700 });
    await mkdir(dirs.tmp, { mode: 0o700 });
    host = run.scratch(home);
    engine = run.engine(host.substrate, home, run.provider);
    const scratchEngine = engine;
    return await probe(run, scratchEngine, name, dirs, (path) => {
      transcript = path;
    });
  } finally {
    // every session id any of its hook events names
    for (const info of engine?.hookEvents(name) ?? []) if (info.sessionId) sessionIds.add(info.sessionId);
    await engine?.umbel.kill({ name, purge: true }).catch(() => undefined);
    await host?.dispose().catch(() => undefined);
    await rm(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
    if (transcript) await removeTranscript(transcript, basename(root));
    await forgetScratch(run, dirs.cwd, [...sessionIds]);
  }
}

/** The provider forgets the scratch session in the CLI's own state; a failure of it leaves the report as it is. */
async function forgetScratch(run: ScratchRun, folder: string, sessionIds: string[]): Promise<void> {
  const { provider } = run;
  if (!provider.doForgetScratch) return;
  await guardedAsync(provider, 'doForgetScratch', async () => provider.doForgetScratch?.({ folder, sessionIds, env: run.workerEnv ?? {} })).catch(
    () => undefined,
  );
}

/**
 * The scratch session's own transcript (the CLI writes it under its config dir), and its folder
 * when that folder is named after the scratch dir (so it can only be the scratch session's).
 */
async function removeTranscript(path: string, tag: string): Promise<void> {
  await rm(path, { force: true }).catch(() => undefined);
  // the folder is named after the scratch cwd (its unique mkdtemp name): only this session wrote there
  if (basename(dirname(path)).includes(tag)) await rm(dirname(path), { recursive: true, force: true }).catch(() => undefined);
}

async function probe(run: ScratchRun, engine: ScratchEngine, name: string, dirs: ScratchDirs, onTranscript: (path: string) => void): Promise<DoctorCheck[]> {
  const { provider } = run;
  const spawned = await spawnScratch(run, engine, name, dirs);
  if (spawned.length > 0) return [...spawned, ...(run.turn ? skipped([TURN], 'not tried: the worker did not start') : [])];
  const checks = [check(...LOGIN, 'pass', 'no sign-in screen'), check(...LAUNCH, 'pass', 'reached its ready prompt (startup dialogs answered)')];
  if (provider.sessionHook === 'first-prompt') {
    // Its hooks are trusted (no trust dialog stopped the start); the session hook waits for a prompt.
    if (!run.turn) return [...checks, ...skipped([HOOK, PAYLOAD], `${provider.displayName} fires it at the first prompt: --turn checks it`)];
    const turn = await turnCheck(engine, name, run.signal);
    return [...checks, ...(await sessionChecks(run, engine, name, onTranscript)).checks, turn];
  }
  const session = await sessionChecks(run, engine, name, onTranscript);
  checks.push(...session.checks);
  if (run.turn) checks.push(session.ok ? await turnCheck(engine, name, run.signal) : check(...TURN, 'skip', 'not tried: the session hook is not usable'));
  return checks;
}

/** The session hook fired, with a payload naming the session id and the transcript. */
async function sessionChecks(
  run: ScratchRun,
  engine: ScratchEngine,
  name: string,
  onTranscript: (path: string) => void,
): Promise<{ ok: boolean; checks: DoctorCheck[] }> {
  const { provider } = run;
  const sessions = await sessionEvents(engine, name, run.signal);
  if (sessions.length === 0) {
    return {
      ok: false,
      checks: [check(...HOOK, 'fail', "the CLI never ran umbel's session hook", hookHint(provider)), ...skipped([PAYLOAD], 'no session payload')],
    };
  }
  // the first that names the session (opencode's plugin fires one at load, and one naming the session at the first prompt)
  const info = sessions.find((r) => r.transcriptPath && r.sessionId) ?? (sessions[0] as ProviderV1EventInfo);
  if (info.transcriptPath) onTranscript(info.transcriptPath);
  const missing = [info.transcriptPath ? undefined : 'transcript path', info.sessionId ? undefined : 'session id'].filter((m) => m !== undefined);
  if (missing.length === 0) {
    return { ok: true, checks: [check(...HOOK, 'pass', 'fired'), check(...PAYLOAD, 'pass', `session ${info.sessionId}, transcript ${info.transcriptPath}`)] };
  }
  const payload = check(
    ...PAYLOAD,
    'fail',
    `no session payload names a ${missing.join(' or a ')} in a form umbel reads for ${provider.displayName}`,
    `this ${provider.displayName} release changed its hook payload: use a verified version (umbel providers), or update the provider package`,
  );
  return { ok: false, checks: [check(...HOOK, 'pass', 'fired'), payload] };
}

/** Spawn the scratch worker: [] when it is ready, else the checks that say why not. */
async function spawnScratch(run: ScratchRun, engine: ScratchEngine, name: string, dirs: ScratchDirs): Promise<DoctorCheck[]> {
  const { provider } = run;
  try {
    await engine.umbel.spawn(
      // its own TMPDIR, so the CLI's temp files go with the scratch dir (unless --env names one)
      { name, provider: provider.providerId, cwd: dirs.cwd, startupTimeout: run.startupTimeoutMs, env: { TMPDIR: dirs.tmp, ...run.env } },
      { ...(run.signal ? { signal: run.signal } : {}) },
    );
    return [];
  } catch (error) {
    if (error instanceof AbortedError || run.signal?.aborted) throw error instanceof AbortedError ? error : new AbortedError('doctor cancelled');
    if (error instanceof NotSignedInError) {
      const hint = provider.signInHint ?? `run \`${provider.providerId}\` once in a terminal and sign in (or give the worker an API key with --env)`;
      return [check(...LOGIN, 'fail', error.message, hint), ...skipped([LAUNCH, HOOK, PAYLOAD], 'not tried: not signed in')];
    }
    const tail = error instanceof SpawnFailedError ? error.paneTail : undefined;
    if (
      tail !== undefined &&
      /did not reach its ready prompt/.test(error instanceof Error ? error.message : '') &&
      guarded(provider, 'doReadInputBox', () => provider.doReadInputBox?.(tail)) !== undefined
    ) {
      // The input box was drawn but the engine never saw the session hook it waits for.
      return [
        check(...LOGIN, 'pass', 'no sign-in screen'),
        check(...LAUNCH, 'pass', 'drew its input box'),
        check(...HOOK, 'fail', "the CLI reached its prompt but never ran umbel's session hook", hookHint(provider)),
        ...skipped([PAYLOAD], 'no session payload'),
      ];
    }
    const message = error instanceof Error ? error.message : String(error);
    const hint = UmbelError.isInstance(error) && error.hint ? error.hint : `start \`${provider.providerId}\` by hand in a terminal to see what it shows`;
    return [check(...LOGIN, 'skip', 'not known: the CLI did not start'), check(...LAUNCH, 'fail', message, hint), ...skipped([HOOK, PAYLOAD], 'not tried')];
  }
}

function hookHint(provider: Provider): string {
  return `${provider.displayName} did not run the hooks umbel installs: check that hooks are not disabled (managed settings, a policy) and that the version is verified (umbel providers)`;
}

/** The `session` events of the worker, oldest first, waiting a little for the first after the ready screen. */
function sessionEvents(engine: ScratchEngine, name: string, signal?: AbortSignal) {
  return eventsOfKind(engine, name, 'session', signal);
}

/**
 * The worker's events of one kind, oldest first, waiting a little for the first: a hook may fire
 * after what it reports is visible (a CLI that writes its transcript before its stop hook).
 */
async function eventsOfKind(engine: ScratchEngine, name: string, kind: string, signal?: AbortSignal): Promise<readonly ProviderV1EventInfo[]> {
  const deadline = Date.now() + SESSION_EVENT_GRACE_MS;
  for (;;) {
    const found = engine.hookEvents(name, kind);
    if (found.length) return found;
    if (Date.now() > deadline || signal?.aborted) return [];
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `--turn`: the prompt hook confirms the submission, the stop hook fires, the answer is read from the transcript. */
async function turnCheck(engine: ScratchEngine, name: string, signal?: AbortSignal): Promise<DoctorCheck> {
  const context = signal ? { signal } : {};
  let turn: number;
  try {
    turn = (await engine.umbel.send({ name, prompt: DOCTOR_TURN_PROMPT }, context)).turn;
  } catch (error) {
    if (error instanceof AbortedError) throw error;
    const hint =
      error instanceof SendNotSubmittedError ? 'the prompt hook never confirmed the submission: use a verified version (umbel providers)' : undefined;
    // the scratch worker is removed after the checks: the screen it left is the only evidence
    const tail = error instanceof SendNotSubmittedError && error.paneTail ? `\nthe screen's last lines:\n${lastNonBlankLines(error.paneTail, 8)}` : '';
    return check(
      ...TURN,
      'fail',
      `send: ${error instanceof Error ? error.message : String(error)}${tail}`,
      hint ?? (UmbelError.isInstance(error) ? error.hint : undefined),
    );
  }
  const outcome = await engine.umbel.wait({ name, turn, timeout: TURN_TIMEOUT }, context);
  if (outcome.reason === 'aborted') throw new AbortedError('doctor cancelled');
  if (outcome.reason !== 'completed') {
    return check(
      ...TURN,
      'fail',
      `the turn ended ${outcome.reason}${outcome.message ? `: ${outcome.message}` : ''}`,
      `inspect it by hand: umbel spawn, send, wait, capture`,
    );
  }
  // The transcript may hold the answer before the stop hook fires: give the hook its grace.
  const stopped = (await eventsOfKind(engine, name, 'stop', signal)).length > 0;
  if (!stopped) {
    return check(
      ...TURN,
      'fail',
      `the turn completed in the transcript, but the stop hook did not fire within ${SESSION_EVENT_GRACE_MS / 1000} s after it`,
      'umbel installs a stop hook in the worker: check that hooks are not disabled (managed settings, a policy) and that the version is verified (umbel providers)',
    );
  }
  const read = await engine.umbel.read({ name, turn });
  if (!read.complete || read.result.trim() === '') {
    return check(...TURN, 'fail', 'the stop hook fired but the transcript holds no answer', 'use a verified version (umbel providers)');
  }
  return check(...TURN, 'pass', `prompt confirmed, stop fired, answer from the transcript: ${JSON.stringify(read.result.trim().slice(0, 60))}`);
}
