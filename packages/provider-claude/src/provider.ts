import type { ProviderV1 } from '@umbel/core';
import { CLAUDE_INHERIT_ENV, reconcileClaudeEnv } from './env.js';
import { parseClaudeEvent } from './events.js';
import { buildClaudeLaunch, type ClaudeSettings } from './launch.js';
import { prepareClaudePrompt } from './prompt.js';
import { detectClaudeSignIn, detectClaudeStartup, hasClaudePermissionDialog, readClaudeInputBox } from './startup.js';
import { readClaudeMessages, readClaudeTurn } from './transcript.js';
import { CLAUDE_TOOLS } from './tools.js';
import { CLAUDE_PERMISSION_MODES, validateClaudeOptions } from './validate.js';

/**
 * Create the Claude Code provider (spec v1). Pure except `doBuildLaunch`, which looks the binary up
 * on disk (it never launches anything).
 *
 * @example
 * ```ts
 * import { createUmbel } from '@umbel/core';
 * import { createClaude } from '@umbel/provider-claude';
 * const umbel = createUmbel({ providers: [createClaude()] });
 * ```
 */
export function createClaude(settings: ClaudeSettings = {}): ProviderV1 {
  return {
    specificationVersion: 'umbel-provider-v1',
    providerId: 'claude',
    displayName: 'Claude Code',
    capabilities: {
      unattended: true,
      allowedTools: true,
      appendSystemPrompt: true,
      permissionModes: CLAUDE_PERMISSION_MODES,
    },
    inheritEnv: CLAUDE_INHERIT_ENV,
    // Escape, Escape clears a non-empty box (claude-code.md §5); on an empty box it opens Rewind,
    // so the engine presses each only while readClaudeInputBox still reads text.
    input: { alwaysPaste: true, confirmTimeoutMs: 1500, maxSubmitRetries: 3, submitDelayMs: 0, clearKeys: ['Escape', 'Escape'] },
    doValidate: (options) => validateClaudeOptions(options),
    doReconcileEnv: (env) => reconcileClaudeEnv(env),
    doBuildLaunch: (options) => buildClaudeLaunch(options, settings),
    doDetectStartup: (input) => detectClaudeStartup(input),
    doPreparePrompt: (prompt) => prepareClaudePrompt(prompt),
    doParseEvent: (event) => parseClaudeEvent(event),
    doReadTurn: (options) => readClaudeTurn(options),
    doReadMessages: (options) => readClaudeMessages(options),
    doDetectSignIn: (screen) => detectClaudeSignIn(screen),
    doDetectInputPrompt: (screen) => hasClaudePermissionDialog(screen),
    doReadInputBox: (screen) => readClaudeInputBox(screen),
    ...CLAUDE_TOOLS,
  };
}

/** The default Claude Code provider instance (`createClaude()`). */
export const claude: ProviderV1 = createClaude();
