/**
 * @umbel/tmux — the tmux implementation of umbel's `Substrate` port. The only package that runs tmux.
 * @packageDocumentation
 */
export { createTmuxSubstrate, escapeTmuxArgument, type TmuxSubstrate, type TmuxSubstrateSettings } from './tmux-substrate.js';
export { socketNameFor, resolveSocketName, canonicalPath } from './socket.js';
export { TMUX_CALL_TIMEOUT_MS, TMUX_HISTORY_LIMIT, TMUX_MAX_CONCURRENT_CALLS, TMUX_TIMEOUT_RETRIES, DEFAULT_WIDTH, DEFAULT_HEIGHT } from './constants.js';
export { SESSION_MARK_VARIABLE } from './session-mark.js';
export { tmuxClientEnv } from './client-env.js';
export { renderEnvExports, shellQuote, isShellIdentifier } from './env-exports.js';
export { LAUNCH_SCRIPT, launchScriptPath, ensureLaunchScript } from './launch-script.js';
export { normalizeSignal } from './signals.js';
