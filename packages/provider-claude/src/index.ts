/**
 * @umbel/provider-claude: the umbel provider for Anthropic Claude Code (`claude`).
 */
export { createClaude, claude } from './provider.js';
export { buildClaudeLaunch, CLAUDE_SETTINGS_FILE, type ClaudeSettings } from './launch.js';
export { CLAUDE_CHILD_MARKERS, CLAUDE_INHERIT_ENV, CLAUDE_RESERVED_ENV, reconcileClaudeEnv } from './env.js';
export { parseClaudeEvent } from './events.js';
export {
  ClaudeNotFoundError,
  claudeConfigDir,
  claudeTranscriptPath,
  encodeClaudeProjectDir,
  findOnPath,
  resolveClaudeBinary,
} from './paths.js';
export { prepareClaudePrompt } from './prompt.js';
export { buildClaudeSettings, CLAUDE_HOOK_EVENTS, splitAllowedTools, type ClaudeSettingsFileOptions } from './settings.js';
export {
  CLAUDE_DIALOGS,
  detectClaudeDialog,
  detectClaudeFatal,
  detectClaudeSignIn,
  detectClaudeStartup,
  hasClaudeInputBox,
  hasClaudePermissionDialog,
} from './startup.js';
export {
  findClaudeTurn,
  parseClaudeTranscript,
  readClaudeMessages,
  readClaudeTurn,
  type ClaudeTranscriptEntry,
  type ClaudeTurnSlice,
} from './transcript.js';
export {
  CLAUDE_PERMISSION_MODES,
  effectivePermissionMode,
  isClaudePermissionMode,
  validateClaudeOptions,
  type ClaudePermissionMode,
  type ClaudeValidateOptions,
} from './validate.js';
export { VERSION } from './version.js';
