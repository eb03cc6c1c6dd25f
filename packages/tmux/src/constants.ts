/** Shared constants of the tmux substrate. */

/** Upper bound of one tmux client call, in milliseconds (upstream incident #98: unbounded calls). */
export const TMUX_CALL_TIMEOUT_MS = 5000;

/** Scrollback kept per pane (`history-limit`). */
export const TMUX_HISTORY_LIMIT = 10_000;

/** Default terminal size of a worker pane. */
export const DEFAULT_WIDTH = 200;
export const DEFAULT_HEIGHT = 50;

/** Separator of the fields `inspect()` asks tmux for (U+241E, never part of a number or signal name). */
export const FIELD_SEPARATOR = '\u241e';

/** Variables the launch wrapper keeps from the pane; tmux sets them for the terminal. */
export const PANE_TERMINAL_VARIABLES = ['TERM', 'TERM_PROGRAM', 'TERM_PROGRAM_VERSION', 'COLORTERM', 'TMUX', 'TMUX_PANE'] as const;

/** Default of `maxConcurrentCalls`: the most tmux clients one substrate runs at once. */
export const TMUX_MAX_CONCURRENT_CALLS = 8;

/** Default of `timeoutRetries`: how many more times an unanswered read or idempotent call is tried. */
export const TMUX_TIMEOUT_RETRIES = 2;
