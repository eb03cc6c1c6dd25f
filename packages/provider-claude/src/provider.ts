/** The Claude Code provider: its facts compiled by the provider kit. */
import type { ProviderV1 } from '@umbel/provider';
import { defineProvider, modeFlags } from '@umbel/provider';
import { detectClaudeBilling } from './billing.js';
import { CLAUDE_SANDBOX } from './facts.js';
import { forgetClaudeScratch } from './scratch.js';
import {
  CLAUDE_API_BILLING_ENV,
  CLAUDE_CHILD_MARKERS,
  CLAUDE_ENDPOINT_ENV,
  CLAUDE_HOOK_EVENTS,
  CLAUDE_INHERIT_ENV,
  CLAUDE_PERMISSION_MODES,
  CLAUDE_RESERVED_ENV,
  installClaudeHooks,
  predictClaudeTranscript,
  reconcileClaudeEnv,
  validateClaudeOptions,
} from './facts.js';
import { CLAUDE_PAYLOAD } from './payload.js';
import { CLAUDE_ACCOUNT_SCREENS, CLAUDE_DIALOG_FACTS, CLAUDE_FATAL_FACTS, CLAUDE_INPUT_BOX, CLAUDE_PERMISSION_PROMPT, CLAUDE_SIGN_IN } from './screens.js';
import { CLAUDE_PROMPT, claudeActivityDirs, claudeMessages, claudeTurn, parseClaudeTranscript } from './transcript.js';
import { CLAUDE_TOOLS } from './tools.js';

/** Claude Code releases these facts were verified on (oldest first; the last is the pinned real CLI). */
export const CLAUDE_VERIFIED_VERSIONS = ['2.1.328', '2.1.332'] as const;

/** Options of a Claude provider instance. */
export interface ClaudeSettings {
  /** Binary to launch (a path, or a name looked up on PATH). `UMBEL_CLAUDE_BIN` wins over it. */
  readonly binary?: string;
  /** Extra arguments appended after umbel's own (never put secrets here: argv is visible). */
  readonly extraArgs?: readonly string[];
  /** Extra env for every worker (e.g. `{ CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' }`); the reserved env wins. */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * Create the Claude Code provider (spec v1). Pure except `doBuildLaunch`, which looks the binary up
 * and writes nothing itself (the engine writes the settings file it returns).
 *
 * @example
 * ```ts
 * import { createUmbel } from '@umbel/provider';
 * import { createClaude } from '@umbel/provider-claude';
 * const umbel = createUmbel({ substrate, providers: [createClaude()] });
 * ```
 */
export function createClaude(settings: ClaudeSettings = {}): ProviderV1 {
  return defineProvider({
    id: 'claude',
    displayName: 'Claude Code',
    description: "Anthropic's Claude Code (`claude`), on your Claude subscription login",
    verifiedVersions: CLAUDE_VERIFIED_VERSIONS,
    binary: { name: 'claude', install: 'npm install -g @anthropic-ai/claude-code', ...(settings.binary ? { configured: settings.binary } : {}) },
    billing: { apiEnv: CLAUDE_API_BILLING_ENV, endpointEnv: CLAUDE_ENDPOINT_ENV, detect: detectClaudeBilling },
    sandbox: CLAUDE_SANDBOX,
    env: { inherit: CLAUDE_INHERIT_ENV, hostMarkers: CLAUDE_CHILD_MARKERS, set: { ...settings.env, ...CLAUDE_RESERVED_ENV }, reconcile: reconcileClaudeEnv },
    flags: {
      sessionId: '--session-id',
      // claude-code.md §3: `--resume U` keeps session U and its file, and sends the old conversation
      resume: (sessionId) => ['--resume', sessionId],
      model: '--model',
      permissionModes: modeFlags('--permission-mode', CLAUDE_PERMISSION_MODES),
      unattended: 'bypassPermissions',
      allowedTools: '--allowedTools',
      appendSystemPrompt: '--append-system-prompt',
      extraArgs: settings.extraArgs ?? [],
    },
    hooks: { events: CLAUDE_HOOK_EVENTS, install: installClaudeHooks },
    screens: {
      fatal: CLAUDE_FATAL_FACTS,
      signIn: CLAUDE_SIGN_IN,
      account: CLAUDE_ACCOUNT_SCREENS,
      dialogs: CLAUDE_DIALOG_FACTS,
      ready: { hook: 'session', inputBox: true },
      inputPrompt: CLAUDE_PERMISSION_PROMPT,
      inputBox: CLAUDE_INPUT_BOX,
    },
    input: { alwaysPaste: true, confirmTimeoutMs: 1500, maxSubmitRetries: 3, submitDelayMs: 0 },
    prompt: CLAUDE_PROMPT,
    payload: CLAUDE_PAYLOAD,
    transcript: { parse: parseClaudeTranscript, turn: claudeTurn, messages: claudeMessages, predict: predictClaudeTranscript },
    validate: validateClaudeOptions,
    tools: CLAUDE_TOOLS,
    forgetScratch: forgetClaudeScratch,
    activityDirs: claudeActivityDirs,
  });
}

/** The default Claude Code provider instance (`createClaude()`). */
export const claude: ProviderV1 = createClaude();
