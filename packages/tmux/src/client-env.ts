/**
 * The minimal environment of every tmux client. The first client starts the server and the server keeps
 * that client's environment for its whole life (and hands it to every pane), so nothing of the caller's
 * environment beyond these names may reach tmux (upstream #93).
 */

const ALLOWED = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'LANG',
  'LANGUAGE',
  'TMPDIR',
  'TMUX_TMPDIR',
  'TERM',
  'COLORTERM',
  // The knobs of the test suite's fault-injection tmux (test-fixtures/bin/tmux-stall); inert otherwise.
  'UMBEL_TMUX_STALL',
  'UMBEL_TMUX_STALL_DIR',
  'UMBEL_TMUX_STALL_SECONDS',
  'UMBEL_TMUX_STALL_REAL',
]);

/** PATH used when the caller's environment has none. */
export const FALLBACK_PATH = '/usr/local/bin:/usr/bin:/bin';

/** Default TERM of tmux clients when the caller has none. */
export const DEFAULT_TERM = 'xterm-256color';

/**
 * Reduce `env` to PATH, HOME, USER, LOGNAME, LANG, LANGUAGE, LC_*, TMPDIR, TMUX_TMPDIR, TERM, COLORTERM
 * and the four UMBEL_TMUX_STALL* knobs of the test suite's stalling tmux.
 * TERM defaults to `xterm-256color`, PATH to {@link FALLBACK_PATH}.
 */
export function tmuxClientEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (ALLOWED.has(name) || name.startsWith('LC_')) out[name] = value;
  }
  if (!out['TERM']) out['TERM'] = DEFAULT_TERM;
  if (!out['PATH']) out['PATH'] = FALLBACK_PATH;
  return out;
}
