/**
 * Environment facts for Claude Code (reference: claude-code.md §8, upstream.md §2.5 and §7.3).
 */

/**
 * Configuration variables a Claude Code worker inherits from the caller, named one by one.
 * Never a prefix: `CLAUDE_*` also holds the markers a parent Claude Code exports to its children
 * (see {@link CLAUDE_CHILD_MARKERS}), and inheriting `CLAUDE_CODE_CHILD_SESSION` silently turns the
 * worker's transcript off.
 */
export const CLAUDE_INHERIT_ENV = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'ANTHROPIC_BASE_URL',
  'ANTHROPIC_MODEL',
  'ANTHROPIC_SMALL_FAST_MODEL',
  'ANTHROPIC_DEFAULT_OPUS_MODEL',
  'ANTHROPIC_DEFAULT_SONNET_MODEL',
  'ANTHROPIC_DEFAULT_HAIKU_MODEL',
  'ANTHROPIC_CUSTOM_HEADERS',
  'CLAUDE_CONFIG_DIR',
  'CLAUDE_CODE_OAUTH_TOKEN',
  'CLAUDE_CODE_USE_BEDROCK',
  'CLAUDE_CODE_USE_VERTEX',
  'API_TIMEOUT_MS',
  'CLAUDE_CODE_MAX_RETRIES',
  'AWS_REGION',
  'AWS_PROFILE',
  'CLOUD_ML_REGION',
  'ANTHROPIC_VERTEX_PROJECT_ID',
  'DISABLE_TELEMETRY',
] as const;

/**
 * Markers a running Claude Code exports to its hooks and Bash-tool children (claude-code.md §3, §8).
 * A worker started from inside Claude Code would otherwise inherit them; they are never inherited
 * and are removed from the final worker env.
 */
export const CLAUDE_CHILD_MARKERS = [
  'CLAUDECODE',
  'CLAUDE_CODE_CHILD_SESSION',
  'CLAUDE_CODE_ENTRYPOINT',
  'CLAUDE_CODE_SESSION_ID',
  'CLAUDE_PID',
  'CLAUDE_CODE_SESSION_ATTENDED',
  'CLAUDE_CODE_EXECPATH',
  'CLAUDE_CODE_MESSAGING_SOCKET',
  'CLAUDE_CODE_MESSAGING_TOKEN',
  'CLAUDE_CODE_CHILD_NOTES_DIR',
  'CLAUDE_EFFORT',
  'CLAUDE_PROJECT_DIR',
  'CLAUDE_ENV_FILE',
] as const;

/** Variables the provider always sets on a worker: an auto-update must never replace the binary under a fleet. */
export const CLAUDE_RESERVED_ENV: Readonly<Record<string, string>> = Object.freeze({ DISABLE_AUTOUPDATER: '1' });

/**
 * Drop `ANTHROPIC_API_KEY` when `ANTHROPIC_AUTH_TOKEN` is set: with both, Claude Code sends both
 * headers and stops on its "Detected a custom API key" dialog (upstream.md §2.5). Pure.
 */
export function reconcileClaudeEnv(env: Readonly<Record<string, string>>): Record<string, string> {
  const result: Record<string, string> = { ...env };
  if (result.ANTHROPIC_AUTH_TOKEN !== undefined && result.ANTHROPIC_AUTH_TOKEN !== '') delete result.ANTHROPIC_API_KEY;
  return result;
}
