/** Rules every provider's environment facts follow. */

/** Markers host CLIs (and tmux, and umbel) set for their children; a provider must never inherit them. */
export const FORBIDDEN_INHERITED_ENV: readonly string[] = [
  'CLAUDECODE',
  'CLAUDE_CODE_CHILD_SESSION',
  'CLAUDE_CODE_ENTRYPOINT',
  'CLAUDE_CODE_SESSION_ID',
  'CLAUDE_PID',
  'GEMINI_CLI',
  'CODEX_SANDBOX',
  'CODEX_THREAD_ID',
  'TMUX',
  'TMUX_PANE',
  'UMBEL_EVENTS_DIR',
];

/** A variable name (never a prefix or a wildcard). */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
