/**
 * Typed errors. Thrown anywhere below the faces, mapped once at each face (exit code + message on
 * the CLI, an `isError` result on MCP, a failed step in workflows). Recognised by a `Symbol.for`
 * marker rather than `instanceof`, so two copies of `@umbel/core` in one tree still agree.
 */

import { OptionUnsupportedError, ProviderErrorCode, SpawnFailedError, StateUnwritableError, UmbelError, UsageError } from '@umbel/provider';

export { OptionUnsupportedError, ProviderErrorCode, SpawnFailedError, StateUnwritableError, UmbelError, UsageError };

/** Stable string codes (the provider specification's and the engine's); part of the public contract. */
export const UmbelErrorCode = {
  ...ProviderErrorCode,
  InvalidName: 'UMBEL_INVALID_NAME',
  InvalidDuration: 'UMBEL_INVALID_DURATION',
  EnvUnresolved: 'UMBEL_ENV_UNRESOLVED',
  ProviderUnknown: 'UMBEL_PROVIDER_UNKNOWN',
  CwdMissing: 'UMBEL_CWD_MISSING',
  HomeMismatch: 'UMBEL_HOME_MISMATCH',
  WorkerExists: 'UMBEL_WORKER_EXISTS',
  WorkerNotFound: 'UMBEL_WORKER_NOT_FOUND',
  WorkerDead: 'UMBEL_WORKER_DEAD',
  NotSignedIn: 'UMBEL_NOT_SIGNED_IN',
  BillingRefused: 'UMBEL_BILLING_REFUSED',
  SendNotSubmitted: 'UMBEL_SEND_NOT_SUBMITTED',
  SendBusy: 'UMBEL_SEND_BUSY',
  AccountDialog: 'UMBEL_ACCOUNT_DIALOG',
  TurnNotSubmitted: 'UMBEL_TURN_NOT_SUBMITTED',
  TranscriptUnavailable: 'UMBEL_TRANSCRIPT_UNAVAILABLE',
  WorkerCorrupt: 'UMBEL_WORKER_CORRUPT',
  WorkerVanished: 'UMBEL_WORKER_VANISHED',
  ProviderFailed: 'UMBEL_PROVIDER_FAILED',
  TurnNotFound: 'UMBEL_TURN_NOT_FOUND',
  TmuxUnavailable: 'UMBEL_TMUX_UNAVAILABLE',
  TmuxTimeout: 'UMBEL_TMUX_TIMEOUT',
  TmuxFailed: 'UMBEL_TMUX_FAILED',
  WorkflowInvalid: 'UMBEL_WORKFLOW_INVALID',
  WorkflowFailed: 'UMBEL_WORKFLOW_FAILED',
  CheckInvalid: 'UMBEL_CHECK_INVALID',
  Aborted: 'UMBEL_ABORTED',
  HostUnknown: 'UMBEL_HOST_UNKNOWN',
  HostUnreachable: 'UMBEL_HOST_UNREACHABLE',
  HostCommandMissing: 'UMBEL_HOST_COMMAND_MISSING',
  HostIncompatible: 'UMBEL_HOST_INCOMPATIBLE',
  PoolNotFound: 'UMBEL_POOL_NOT_FOUND',
  PoolExists: 'UMBEL_POOL_EXISTS',
  PoolMismatch: 'UMBEL_POOL_MISMATCH',
  PoolCorrupt: 'UMBEL_POOL_CORRUPT',
  FleetLimit: 'UMBEL_FLEET_LIMIT',
  WorktreeInvalid: 'UMBEL_WORKTREE_INVALID',
  WorktreeFailed: 'UMBEL_WORKTREE_FAILED',
  WorktreeHasWork: 'UMBEL_WORKTREE_HAS_WORK',
  StateInvalid: 'UMBEL_STATE_INVALID',
  ResumeUnsupported: 'UMBEL_RESUME_UNSUPPORTED',
  ReviveRefused: 'UMBEL_REVIVE_REFUSED',
  SandboxUnavailable: 'UMBEL_SANDBOX_UNAVAILABLE',
} as const;
export type UmbelErrorCode = (typeof UmbelErrorCode)[keyof typeof UmbelErrorCode];

/** A `--env NAME` or `{fromEnv: NAME}` whose variable is not set. Exit 2. */
export class EnvUnresolvedError extends UsageError {
  readonly variable: string;
  constructor(variable: string) {
    super(`environment variable ${variable} is not set (needed by --env ${variable})`, {
      code: UmbelErrorCode.EnvUnresolved,
      hint: `export ${variable} before running umbel, or pass --env ${variable}=VALUE`,
    });
    this.name = 'EnvUnresolvedError';
    this.variable = variable;
  }
}

/**
 * The engine was given one state root and a substrate bound to another: its workers would run on
 * a host the engine never looks at (orphans). Exit 2.
 */
export class HomeMismatchError extends UsageError {
  readonly home: string;
  readonly substrateHome: string;
  constructor(home: string, substrateHome: string) {
    super(`the engine's home ${home} is not the state root its substrate serves (${substrateHome})`, {
      code: UmbelErrorCode.HomeMismatch,
      hint: "give createTmuxSubstrate and createUmbel the same home, or leave createUmbel's home out: it takes the substrate's",
    });
    this.name = 'HomeMismatchError';
    this.home = home;
    this.substrateHome = substrateHome;
  }
}

/** Provider packages that failed to load, as the tail of a sentence about a missing provider. */
export function unloadedText(unloaded: readonly { package: string; reason: string }[]): string {
  if (unloaded.length === 0) return '';
  return `; provider packages that failed to load: ${unloaded.map((u) => `${u.package}: ${u.reason}`).join('; ')}`;
}

/** The named provider is not registered. Exit 2. */
export class ProviderUnknownError extends UsageError {
  readonly provider: string;
  /** `unloaded`: provider packages that failed to load, named as the reason it may be missing. */
  constructor(provider: string, known: readonly string[], unloaded: readonly { package: string; reason: string }[] = []) {
    super(`unknown provider '${provider}' (known: ${known.join(', ') || 'none'})${unloadedText(unloaded)}`, {
      code: UmbelErrorCode.ProviderUnknown,
      ...(unloaded.length > 0 ? { hint: "fix or remove the package; 'umbel providers' shows what is loaded and what failed" } : {}),
    });
    this.name = 'ProviderUnknownError';
    this.provider = provider;
  }
}

/** The worker's cwd does not exist or is not a directory. Exit 2. */
export class CwdMissingError extends UsageError {
  constructor(cwd: string) {
    super(`working directory does not exist: ${cwd}`, { code: UmbelErrorCode.CwdMissing });
    this.name = 'CwdMissingError';
  }
}

/** A worker of that name already exists (alive or tombstoned). Exit 1. */
export class WorkerExistsError extends UmbelError {
  readonly worker: string;
  constructor(worker: string) {
    super({
      name: 'WorkerExistsError',
      code: UmbelErrorCode.WorkerExists,
      message: `worker '${worker}' already exists`,
      hint: `pick another name, or run 'umbel kill ${worker} --purge' first`,
    });
    this.worker = worker;
  }
}

/** No worker of that name. Exit 1. */
export class WorkerNotFoundError extends UmbelError {
  readonly worker: string;
  constructor(worker: string) {
    super({
      name: 'WorkerNotFoundError',
      code: UmbelErrorCode.WorkerNotFound,
      message: `no worker named '${worker}'`,
      hint: "run 'umbel ls' to see the workers",
    });
    this.worker = worker;
  }
}

/** The worker's process has exited (or its session is gone). Exit 125. */
export class WorkerDeadError extends UmbelError {
  readonly worker: string;
  readonly cause_: string;
  constructor(worker: string, cause: string) {
    super({ name: 'WorkerDeadError', code: UmbelErrorCode.WorkerDead, message: `worker '${worker}' is dead (${cause})` });
    this.worker = worker;
    this.cause_ = cause;
  }
}

/** The CLI opened on its sign-in screen. Exit 126. */
export class NotSignedInError extends UmbelError {
  /** The screen line that identified the sign-in screen. */
  readonly screenLine: string;
  /**
   * @param apiEnv the variables that bill the API instead (named in the hint: passing one is how a
   *   caller chooses API billing on purpose; umbel never inherits them).
   */
  /** @param signInHint the provider's own (ProviderV1's `signInHint`): used instead of the generic one */
  constructor(provider: string, screenLine: string, apiEnv: readonly string[] = [], signInHint?: string) {
    const api = apiEnv.length
      ? `, or pass ${apiEnv.map((name) => `--env ${name}`).join(' or ')} to bill the API on purpose`
      : ', or pass an API key with --env';
    super({
      name: 'NotSignedInError',
      code: UmbelErrorCode.NotSignedIn,
      message: `${provider} is not signed in: the CLI shows its sign-in screen ("${screenLine.trim()}")`,
      hint: signInHint ?? `sign in to your subscription by running the CLI once by hand${api} (keys in your environment are never inherited)`,
    });
    this.screenLine = screenLine;
  }
}

/** `billing: subscription` and the worker would bill the API: refused before its first prompt, nothing left. Exit 3. */
export class BillingRefusedError extends UmbelError {
  readonly worker: string;
  readonly evidence: string | undefined;
  /**
   * @param removed false for a worker the call did not start (it is left as it was)
   * @param verdict `unknown`: the billing could not be told, so the guard cannot guarantee it is not the API
   */
  constructor(worker: string, evidence: string | undefined, removed = true, verdict: 'api' | 'unknown' = 'api') {
    const what =
      verdict === 'api'
        ? `would bill the API, not your subscription${evidence ? ` (${evidence})` : ''}`
        : `— its billing is unknown${evidence ? ` (${evidence})` : ''}, so umbel cannot guarantee it does not bill the API`;
    super({
      name: 'BillingRefusedError',
      code: UmbelErrorCode.BillingRefused,
      message: `worker '${worker}' ${what}: refused by --billing subscription${removed ? '; it was removed' : ', before any prompt'}`,
      hint:
        verdict === 'api'
          ? 'drop the API key / cloud variable from --env (umbel never inherits them) and sign in to the CLI, or use --billing any to allow API billing'
          : "use --billing any when you accept that risk (umbel status shows the worker's billing once ready)",
    });
    this.worker = worker;
    this.evidence = evidence;
  }
}

/** What the CLI's input box showed when a send gave up: `holds` text (never taken), `empty` (taken or lost; no turn started), unread. */
export type InputBoxAtFailure = 'holds' | 'empty' | undefined;

const BOX_SAYS: Record<'holds' | 'empty', string> = {
  holds: 'its input box still held the prompt',
  empty: 'its input box is empty: the CLI took the text, or never got it, and started no turn',
};

/** What a send that gave up saw in the CLI's input box, in words (undefined when unread). */
export function inputBoxSays(box: InputBoxAtFailure): string | undefined {
  return box ? BOX_SAYS[box] : undefined;
}

/** The prompt was typed but the CLI never confirmed it. The worker stays alive. Exit 1. */
export class SendNotSubmittedError extends UmbelError {
  readonly worker: string;
  readonly enterPresses: number;
  readonly paneTail: string | undefined;
  readonly inputBox: InputBoxAtFailure;
  constructor(worker: string, enterPresses: number, paneTail?: string, inputBox?: InputBoxAtFailure) {
    super({
      name: 'SendNotSubmittedError',
      code: UmbelErrorCode.SendNotSubmitted,
      message: `the prompt to '${worker}' was not submitted after ${enterPresses} Enter presses${inputBox ? ` (${inputBoxSays(inputBox)})` : ''}; the worker is still alive`,
      hint: `inspect it with 'umbel capture ${worker}'`,
    });
    this.worker = worker;
    this.enterPresses = enterPresses;
    this.paneTail = paneTail;
    this.inputBox = inputBox;
  }
}

/** Another send to the worker holds its send lock for too long. The worker is untouched. Exit 1. */
export class SendBusyError extends UmbelError {
  readonly worker: string;
  /** `runningTurn`: the worker is running this turn and its CLI drops input typed meanwhile, or merges it into that turn (nothing was typed). */
  constructor(worker: string, waitedMs: number, runningTurn?: number, whileBusy: 'drop' | 'merge' = 'drop') {
    super({
      name: 'SendBusyError',
      code: UmbelErrorCode.SendBusy,
      message:
        runningTurn === undefined
          ? `another send to '${worker}' held its send lock for ${Math.round(waitedMs / 1000)}s; nothing was typed`
          : `'${worker}' is still running turn ${runningTurn} and its CLI ${whileBusy === 'drop' ? 'drops input typed while it works' : 'may take input typed while it works into that turn'}; nothing was typed and no turn was opened`,
      hint:
        runningTurn === undefined
          ? `sends to one worker run one at a time: wait for the other one, then send again`
          : `wait for turn ${runningTurn} to end (umbel wait ${worker}), then send again`,
    });
    this.worker = worker;
  }
}

/**
 * The CLI shows a blocking account dialog (Claude Code's /rate-limit-options after a plan limit):
 * a prompt pasted now would land in the dialog, so nothing was typed. umbel never answers it (one
 * option may be a purchase); the caller does, with `umbel keys`. Exit 126 (needs input).
 */
export class AccountDialogError extends UmbelError {
  readonly worker: string;
  readonly dialog: string;
  constructor(worker: string, dialog: string, answer?: string) {
    super({
      name: 'AccountDialogError',
      code: UmbelErrorCode.AccountDialog,
      message: `worker '${worker}' shows a blocking account dialog: ${dialog}; nothing was typed`,
      hint: `answer it first with 'umbel keys ${worker} …'${answer ? ` (${answer})` : ''}, see it with 'umbel capture ${worker}', then send again`,
    });
    this.worker = worker;
    this.dialog = dialog;
  }
}

/** The turn asked for was closed as never submitted (its send failed). Exit 1. */
export class TurnNotSubmittedError extends UmbelError {
  readonly worker: string;
  readonly turn: number;
  constructor(worker: string, turn: number, why: string) {
    super({
      name: 'TurnNotSubmittedError',
      code: UmbelErrorCode.TurnNotSubmitted,
      message: `turn ${turn} of '${worker}' was not submitted (${why}); it has no answer`,
      hint: `send the prompt again: it gets a turn of its own`,
    });
    this.worker = worker;
    this.turn = turn;
  }
}

/** A worker's state files cannot be trusted (unreadable meta.json, or one naming another worker). Exit 1. */
export class WorkerCorruptError extends UmbelError {
  readonly worker: string;
  readonly path: string;
  readonly reason: string;
  constructor(worker: string, reason: string, path: string) {
    super({
      name: 'WorkerCorruptError',
      code: UmbelErrorCode.WorkerCorrupt,
      message: `worker '${worker}' cannot be used: ${reason} (${path})`,
      hint: `'umbel kill ${worker} --purge' ends its session and removes its state`,
    });
    this.worker = worker;
    this.path = path;
    this.reason = reason;
  }
}

/** The worker's state directory disappeared while an operation was using it. Exit 1. */
export class WorkerVanishedError extends UmbelError {
  readonly worker: string;
  constructor(worker: string, what: string) {
    super({
      name: 'WorkerVanishedError',
      code: UmbelErrorCode.WorkerVanished,
      message: `the state of worker '${worker}' was removed ${what} (by kill --purge, prune or by hand)`,
      hint: "run 'umbel ls' to see the workers",
    });
    this.worker = worker;
  }
}

/** A provider method threw: a defect of the provider (or its CLI changed), never a stack trace. Exit 1. */
export class ProviderFailedError extends UmbelError {
  readonly provider: string;
  readonly method: string;
  constructor(provider: string, method: string, cause: unknown) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    super({
      name: 'ProviderFailedError',
      code: UmbelErrorCode.ProviderFailed,
      message: `provider '${provider}' failed in ${method}: ${detail}`,
      hint: `this is a defect of the provider package (or its CLI changed); 'umbel doctor --provider ${provider}' checks the installation`,
      cause,
    });
    this.provider = provider;
    this.method = method;
  }
}

/** No transcript could be found or read for a turn. Exit 1. */
export class TranscriptUnavailableError extends UmbelError {
  constructor(message: string) {
    super({ name: 'TranscriptUnavailableError', code: UmbelErrorCode.TranscriptUnavailable, message });
  }
}

/** The requested turn does not exist. Exit 2. */
export class TurnNotFoundError extends UsageError {
  constructor(worker: string, turn: number, latest: number) {
    super(`worker '${worker}' has no turn ${turn} (latest: ${latest === 0 ? 'none sent yet' : latest})`, { code: UmbelErrorCode.TurnNotFound });
    this.name = 'TurnNotFoundError';
  }
}

/** tmux (or another substrate) is missing, did not answer in time, or failed. Exit 1. */
export class SubstrateError extends UmbelError {
  readonly timedOut: boolean;
  readonly stderr: string | undefined;
  /** A launch refused because the host already has a session of that name (nothing was started). */
  readonly sessionExists: boolean;
  constructor(options: {
    code: typeof UmbelErrorCode.TmuxUnavailable | typeof UmbelErrorCode.TmuxTimeout | typeof UmbelErrorCode.TmuxFailed;
    message: string;
    stderr?: string;
    sessionExists?: boolean;
    cause?: unknown;
  }) {
    super({ name: 'SubstrateError', code: options.code, message: options.message, cause: options.cause });
    this.timedOut = options.code === UmbelErrorCode.TmuxTimeout;
    this.stderr = options.stderr;
    this.sessionExists = options.sessionExists === true;
  }

  /** Whether `error` is a launch refused because a session of that name exists. */
  static isSessionExists(error: unknown): boolean {
    return UmbelError.isInstance(error) && (error as { sessionExists?: unknown }).sessionExists === true;
  }
}

/** A workflow file is invalid (schema, template, cycle). Exit 2. */
export class WorkflowInvalidError extends UsageError {
  constructor(message: string, issues: readonly { path: string; message: string }[] = []) {
    super(message, { code: UmbelErrorCode.WorkflowInvalid, issues });
    this.name = 'WorkflowInvalidError';
  }
}

/** The operation was cancelled by its caller. Exit 130. */
export class AbortedError extends UmbelError {
  constructor(message = 'aborted') {
    super({ name: 'AbortedError', code: UmbelErrorCode.Aborted, message });
  }
}

/** A host that is not in the config file's `hosts`. Exit 2. */
export class HostUnknownError extends UsageError {
  readonly host: string;
  constructor(host: string, known: readonly string[], what = `unknown host '${host}'`) {
    super(`${what} (configured: ${known.join(', ') || 'none'})`, {
      code: UmbelErrorCode.HostUnknown,
      hint: 'hosts are named in the config file under "hosts" (see docs/remote.md)',
    });
    this.name = 'HostUnknownError';
    this.host = host;
  }
}

/** The host could not be reached over SSH (or stopped answering). Exit 120. */
export class HostUnreachableError extends UmbelError {
  readonly host: string;
  readonly reason: string;
  constructor(host: string, reason: string) {
    super({
      name: 'HostUnreachableError',
      code: UmbelErrorCode.HostUnreachable,
      message: `host '${host}' is unreachable: ${reason}`,
      hint: `check the connection with 'ssh' to the host's destination; its workers keep their state there`,
    });
    this.host = host;
    this.reason = reason;
  }
}

/** The host answered, but the command that runs umbel there (or a program it needs) is missing. Exit 1. */
export class HostCommandMissingError extends UmbelError {
  readonly host: string;
  readonly command: string;
  constructor(host: string, command: string, detail: string) {
    super({
      name: 'HostCommandMissingError',
      code: UmbelErrorCode.HostCommandMissing,
      message: `host '${host}' cannot run '${command}': ${detail}`,
      hint: `install umbel on the host (npm install -g umbel), or set hosts.${host}.umbel in the config file to the command that runs it there`,
    });
    this.host = host;
    this.command = command;
  }
}

/** The umbel on the host does not speak this umbel's protocol (too old, or too new). Exit 1. */
export class HostIncompatibleError extends UmbelError {
  readonly host: string;
  constructor(host: string, detail: string) {
    super({
      name: 'HostIncompatibleError',
      code: UmbelErrorCode.HostIncompatible,
      message: `the umbel on host '${host}' cannot serve this umbel: ${detail}`,
      hint: 'install the same umbel version on both machines',
    });
    this.host = host;
  }
}

/** No pool of that name. Exit 1. */
export class PoolNotFoundError extends UmbelError {
  readonly pool: string;
  constructor(pool: string) {
    super({ name: 'PoolNotFoundError', code: UmbelErrorCode.PoolNotFound, message: `no pool '${pool}'`, hint: "list them with 'umbel pool status'" });
    this.pool = pool;
  }
}

/** A pool of that name exists with other options. Exit 1. */
export class PoolExistsError extends UmbelError {
  readonly pool: string;
  constructor(pool: string, differences: readonly string[]) {
    super({
      name: 'PoolExistsError',
      code: UmbelErrorCode.PoolExists,
      message: `pool '${pool}' already exists with other options (${differences.join('; ')})`,
      hint: `stop it first ('umbel pool stop ${pool}'), or pick another --name`,
    });
    this.pool = pool;
  }
}

/** The pool asked for was started with other options than the call's. Exit 2. */
export class PoolMismatchError extends UsageError {
  readonly pool: string;
  constructor(pool: string, differences: readonly string[]) {
    super(`pool '${pool}' does not match these options (${differences.join('; ')})`, {
      code: UmbelErrorCode.PoolMismatch,
      hint: "use the pool's options, another pool, or --pool none for a cold start",
    });
    this.name = 'PoolMismatchError';
    this.pool = pool;
  }
}

/** A pool's state files cannot be used. Exit 1. */
export class PoolCorruptError extends UmbelError {
  constructor(path: string, reason: string) {
    super({
      name: 'PoolCorruptError',
      code: UmbelErrorCode.PoolCorrupt,
      message: `pool state ${path} cannot be used (${reason})`,
      hint: "remove it with 'umbel pool stop NAME'",
    });
  }
}

/** A new worker would pass a fleet limit (`limits.maxWorkers`, `--max-workers`, `limits.minFreeMemoryMB`). Exit 117. */
export class FleetLimitError extends UmbelError {
  readonly limit: 'maxWorkers' | 'minFreeMemoryMB';
  readonly live: number;
  constructor(limit: 'maxWorkers' | 'minFreeMemoryMB', value: number, live: number, freeMB?: number) {
    const why =
      limit === 'maxWorkers'
        ? `the fleet limit maxWorkers ${value} is reached: ${live} workers live`
        : `the fleet limit minFreeMemoryMB ${value} is not met: ${freeMB ?? 0} MB free, ${live} workers live`;
    super({
      name: 'FleetLimitError',
      code: UmbelErrorCode.FleetLimit,
      message: `cannot start another worker: ${why}`,
      hint: "kill or prune workers ('umbel ls', 'umbel kill NAME'), raise the limit (config limits, --max-workers), or set limits.queue for workflows to wait",
    });
    this.limit = limit;
    this.live = live;
  }
}

/** `revive` of a worker whose provider cannot resume its CLI's conversation (never a silent fresh one). Exit 2. */
export class ResumeUnsupportedError extends UsageError {
  readonly worker: string;
  readonly provider: string;
  constructor(worker: string, provider: string, displayName: string) {
    super(`cannot revive '${worker}': the ${provider} provider (${displayName}) declares no way to resume its conversation`, {
      code: UmbelErrorCode.ResumeUnsupported,
      hint: `spawn a new worker instead (its conversation starts empty): 'umbel kill ${worker} --purge', then 'umbel spawn'`,
    });
    this.name = 'ResumeUnsupportedError';
    this.worker = worker;
    this.provider = provider;
  }
}

/** `revive` of a worker that is not dead (alive, starting, corrupt) or whose CLI never recorded a conversation. Exit 1. */
export class ReviveRefusedError extends UmbelError {
  readonly worker: string;
  constructor(worker: string, reason: string) {
    super({ name: 'ReviveRefusedError', code: UmbelErrorCode.ReviveRefused, message: `cannot revive '${worker}': ${reason}` });
    this.worker = worker;
  }
}

/**
 * `--sandbox` cannot be had on this machine (no bubblewrap or socat, no user namespaces, an
 * unsupported OS, the sandbox runtime missing). Exit 116; refused before anything is created — never
 * a silently unconfined worker.
 */
export class SandboxUnavailableError extends UmbelError {
  readonly reason: string;
  constructor(reason: string, hint: string) {
    super({ name: 'SandboxUnavailableError', code: UmbelErrorCode.SandboxUnavailable, message: `--sandbox: the sandbox cannot be had here: ${reason}`, hint });
    this.reason = reason;
  }
}

/** `--worktree` asked for something git cannot give (outside a repository, a bare one, a bad branch or base). Exit 2; nothing was made. */
export class WorktreeInvalidError extends UsageError {
  constructor(message: string, hint?: string) {
    super(`--worktree: ${message}`, { code: UmbelErrorCode.WorktreeInvalid, ...(hint ? { hint } : {}) });
    this.name = 'WorktreeInvalidError';
  }
}

/** git failed to make or remove a worker's worktree (no git on PATH, a locked or corrupt worktree list). Exit 1; what was made is undone. */
export class WorktreeFailedError extends UmbelError {
  constructor(message: string, hint?: string) {
    super({ name: 'WorktreeFailedError', code: UmbelErrorCode.WorktreeFailed, message: `worktree: ${message}`, ...(hint ? { hint } : {}) });
  }
}

/** `kill --purge` of a worker whose worktree holds work (uncommitted changes or commits beyond its base). Exit 1; nothing was removed. */
export class WorktreeHasWorkError extends UmbelError {
  readonly path: string;
  constructor(worker: string, path: string, work: string) {
    super({
      name: 'WorktreeHasWorkError',
      code: UmbelErrorCode.WorktreeHasWork,
      message: `worker '${worker}': its worktree ${path} has ${work}; nothing was removed`,
      hint: `keep it: umbel kill ${worker} (the worktree and its branch stay); throw the work away: umbel kill ${worker} --discard-worktree`,
    });
    this.path = path;
  }
}

/**
 * A state file or directory umbel will not use as it is: a named pipe, a device, a socket, a file
 * over its size bound, a state root that is a dangling symlink, a loop or a regular file. Names the
 * path. Exit 1.
 */
export class StateInvalidError extends UmbelError {
  readonly path: string;
  readonly reason: string;
  constructor(path: string, reason: string, cause?: unknown) {
    super({
      name: 'StateInvalidError',
      code: UmbelErrorCode.StateInvalid,
      message: `${path}: ${reason}`,
      hint: 'remove it (or point UMBEL_HOME at a directory umbel owns)',
      cause,
    });
    this.path = path;
    this.reason = reason;
  }
}

/** Wrap a zod error into a UsageError without leaking zod's raw shape. */
export function usageFromZod(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }, what: string): UsageError {
  const issues = error.issues.map((issue) => ({
    path: issue.path.map((p) => String(p)).join('.'),
    message: issue.message,
  }));
  const first = issues[0];
  const where = first?.path ? `${first.path}: ` : '';
  return new UsageError(`invalid ${what}: ${where}${first?.message ?? 'invalid input'}`, { issues });
}
