/**
 * @umbel/provider-claude: the umbel provider for Anthropic Claude Code (`claude`), written on
 * `@umbel/provider`: its CLI's facts and its transcript reader.
 */
export { CLAUDE_VERIFIED_VERSIONS, type ClaudeSettings, claude, createClaude } from './provider.js';
export { CLAUDE_CHILD_MARKERS, CLAUDE_HOOK_EVENTS, CLAUDE_INHERIT_ENV, CLAUDE_PERMISSION_MODES, CLAUDE_RESERVED_ENV, CLAUDE_SETTINGS_FILE } from './facts.js';
export { encodeClaudeProjectDir } from './launch.js';
export { splitToolRules as splitAllowedTools } from '@umbel/provider';
export { CLAUDE_DIALOGS } from './screens.js';
export { findClaudeTurn, parseClaudeTranscript, readClaudeMessages, readClaudeTurn, type ClaudeTranscriptEntry, type ClaudeTurnSlice } from './transcript.js';
/** Version of @umbel/provider-claude (kept equal to package.json by a unit test). */
export const VERSION = '0.1.0';
