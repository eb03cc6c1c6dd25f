// Session context shared by the TUI and print mode: settings, permission mode, session id,
// transcript, hook runner and the env markers the real CLI hands to hooks and Bash children (§3, §8).
import { existsSync, readFileSync } from 'node:fs';
import { authWorld, defaultModelFor } from './account.mjs';
import {
  envMs,
  FakeExit,
  findTranscript,
  isUuid,
  loadSettings,
  mergeSettings,
  newestSession,
  readJson,
  resolveModel,
  transcriptPathFor,
  uuid,
} from './config.mjs';
import { HookRunner } from './hooks.mjs';
import { Transcript } from './transcript.mjs';

/** Root without IS_SANDBOX=1 may not bypass permissions (§2.3). */
export function checkRootBypass(opts, env) {
  const bypass = opts.dangerouslySkipPermissions || opts.permissionMode === 'bypassPermissions';
  if (bypass && process.getuid?.() === 0 && env.IS_SANDBOX !== '1') {
    throw new FakeExit(1, '--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons');
  }
}

/** Last `uuid` of an existing transcript (to continue the parentUuid chain on resume). */
function lastUuid(file) {
  try {
    const lines = readFileSync(file, 'utf8').trim().split('\n').reverse();
    for (const l of lines) {
      try {
        const e = JSON.parse(l);
        if (e.uuid) return e.uuid;
      } catch {
        // partial line
      }
    }
  } catch {
    // no file
  }
  return null;
}

/**
 * Build the session context.
 * @param {{opts: any, env: NodeJS.ProcessEnv, cwd: string, paths: any, tui: boolean}} o
 */
export function createContext({ opts, env, cwd, paths, tui }) {
  const settings = mergeSettings(loadSettings(paths, cwd, opts.settings));
  let mode = opts.dangerouslySkipPermissions ? 'bypassPermissions' : (opts.permissionMode ?? settings.defaultMode ?? (tui ? 'auto' : 'default'));
  if (mode === 'manual') mode = 'default';

  // Session id (§3 "Session id / transcript file", §7).
  let sessionId;
  let source = 'startup';
  let resumed = false;
  if (opts.sessionId !== undefined) {
    if (!isUuid(opts.sessionId)) throw new FakeExit(1, 'Error: Invalid session ID. Must be a valid UUID.');
    if (findTranscript(paths, cwd, opts.sessionId)) throw new FakeExit(1, `Error: Session ID ${opts.sessionId} is already in use.`);
    sessionId = opts.sessionId;
  }
  if (typeof opts.resume === 'string' || opts.continue) {
    const id = typeof opts.resume === 'string' ? opts.resume : newestSession(paths, cwd);
    if (!id || !findTranscript(paths, cwd, id)) {
      if (opts.continue && !id) throw new FakeExit(1, 'No conversation found to continue');
      throw new FakeExit(1, `No conversation found with session ID: ${id}`);
    }
    if (opts.forkSession) sessionId ??= uuid();
    else {
      sessionId = id;
      resumed = true;
    }
    source = 'resume';
  } else if (opts.resume === true) {
    throw new FakeExit(1, 'Error: --resume without a session id needs the interactive picker, which the fake does not emulate');
  }
  sessionId ??= uuid();

  // Transcript saving (§8): an inherited CLAUDE_CODE_CHILD_SESSION turns it off in the TUI.
  let transcriptOff;
  if (tui && env.CLAUDE_CODE_CHILD_SESSION && env.CLAUDE_CODE_FORCE_SESSION_PERSISTENCE !== '1') {
    transcriptOff =
      '⚠ Transcript saving is off — inherited CLAUDE_CODE_CHILD_SESSION marker · restart with CLAUDE_CODE_FORCE_SESSION_PERSISTENCE=1 to keep future transcripts';
  } else if (tui && env.CLAUDE_CODE_SKIP_PROMPT_HISTORY === '1') {
    transcriptOff = '⚠ Transcript saving is off — CLAUDE_CODE_SKIP_PROMPT_HISTORY is set · --resume will not find this session';
  }
  if (!tui && opts.noSessionPersistence) transcriptOff = 'off';

  const entrypoint = env.CLAUDE_CODE_ENTRYPOINT || (tui ? 'cli' : 'sdk-cli');
  const path = resumed ? (findTranscript(paths, cwd, sessionId) ?? transcriptPathFor(paths, cwd, sessionId)) : transcriptPathFor(paths, cwd, sessionId);
  const transcript = new Transcript({ path, enabled: !transcriptOff, sessionId, cwd, entrypoint });
  if (resumed) transcript.parent = lastUuid(path);

  // Which credential bills the session (account.mjs); the TUI recomputes it after the key dialog.
  const world = authWorld({ env, paths, global: readJson(paths.globalFile, {}) ?? {}, print: !tui });
  const ctx = {
    opts,
    env,
    cwd,
    paths,
    tui,
    settings,
    world,
    planUsage: {},
    permissionMode: mode,
    sessionId,
    source,
    transcript,
    transcriptOff,
    entrypoint,
    model: resolveModel(opts.model ?? defaultModelFor(world, opts, env), env),
    allowRules: [...settings.allow, ...opts.allowedTools],
    denyRules: [...opts.disallowedTools],
    maxRetries: /^\d+$/.test(env.CLAUDE_CODE_MAX_RETRIES ?? '') ? Number(env.CLAUDE_CODE_MAX_RETRIES) : 10,
    lateFinalMs: envMs(env, 'FAKE_CLAUDE_LATE_FINAL_MS', 60),
    promptIndex: 0,
    turnsInFile: resumed && existsSync(path) ? 1 : 0,
    markers() {
      return {
        CLAUDECODE: '1',
        CLAUDE_CODE_CHILD_SESSION: '1',
        CLAUDE_CODE_ENTRYPOINT: entrypoint,
        CLAUDE_CODE_SESSION_ID: ctx.sessionId,
        CLAUDE_PID: String(process.pid),
        CLAUDE_CODE_SESSION_ATTENDED: tui ? '1' : '0',
      };
    },
    bashMarkers() {
      return { ...ctx.markers(), CLAUDE_CODE_EXECPATH: process.argv[1] ?? '', CLAUDE_EFFORT: 'medium' };
    },
  };
  ctx.hooks = new HookRunner({ hooks: settings.hooks, cwd, env, markers: () => ctx.markers() });
  return ctx;
}
