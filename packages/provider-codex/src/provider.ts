/** The codex provider: its facts compiled by the provider kit. */
import type { ProviderV1 } from '@umbel/provider';
import { defineProvider } from '@umbel/provider';
import { installCodexHome } from './codex-home.js';
import {
  CODEX_APPROVAL,
  CODEX_COMPOSER,
  CODEX_DIALOGS,
  CODEX_FATAL,
  CODEX_HOOK_EVENTS,
  CODEX_API_BILLING_ENV,
  CODEX_INHERIT_ENV,
  CODEX_PAYLOAD,
  CODEX_PERMISSION_MODES,
  CODEX_PROMPT,
  CODEX_SIGN_IN,
} from './facts.js';
import { codexMessages, codexTurn, parseCodexRollout } from './rollout.js';
import { CODEX_TOOLS } from './tools.js';

/** Codex CLI releases these facts were verified on (oldest first; the last is the pinned real CLI). */
export const CODEX_VERIFIED_VERSIONS = ['0.169.0', '0.171.0'] as const;

/** Settings of `createCodex`. */
export interface CodexSettings {
  /** Executable to run (a path or a name on PATH). `UMBEL_CODEX_BIN` wins over it. */
  readonly bin?: string;
  /** The user's own CODEX_HOME to derive the managed one from. Default: `$CODEX_HOME`, else `~/.codex`. */
  readonly userHome?: string;
  /** Extra arguments appended to every launch (never env values). */
  readonly extraArgs?: readonly string[];
}

/** Create the codex provider. */
export function createCodex(settings: CodexSettings = {}): ProviderV1 {
  return defineProvider({
    id: 'codex',
    displayName: 'OpenAI Codex',
    description: "OpenAI's Codex CLI (`codex`), on your ChatGPT login",
    verifiedVersions: CODEX_VERIFIED_VERSIONS,
    binary: { name: 'codex', install: 'npm install -g @openai/codex', ...(settings.bin ? { configured: settings.bin } : {}) },
    env: { inherit: CODEX_INHERIT_ENV },
    billing: { apiEnv: CODEX_API_BILLING_ENV },
    // A confined worker: the API and ChatGPT-login hosts (its CODEX_HOME is umbel's, under the provider's shared dir).
    sandbox: { hosts: ['api.openai.com', 'chatgpt.com', 'auth.openai.com'] },
    flags: {
      // The TUI's `resume <id>` subcommand, umbel's options after it, in the same managed CODEX_HOME,
      // continues thread <id> in its rollout (appended, same path) and sends the earlier turns again
      // (verified on the pinned 0.171.0: test-fixtures/real/REVIVE-FACTS.md §1).
      resume: (sessionId) => ['resume', sessionId],
      model: '--model',
      permissionModes: CODEX_PERMISSION_MODES,
      unattended: 'bypassPermissions',
      extraArgs: settings.extraArgs ?? [],
    },
    // SessionStart fires at the first submit, not at launch (reference codex.md §6.3)
    hooks: { events: CODEX_HOOK_EVENTS, sessionAt: 'first-prompt', install: (context) => installCodexHome(context, settings.userHome) },
    screens: {
      fatal: CODEX_FATAL,
      signIn: CODEX_SIGN_IN,
      dialogs: CODEX_DIALOGS,
      // The composer over the status line: keys sent before the status line is drawn are unreliable (§5.3).
      ready: { inputBox: true },
      inputPrompt: CODEX_APPROVAL,
      inputBox: CODEX_COMPOSER,
    },
    // Bracketed paste + Enter submits at once, even for 20,000 characters (§8; on the real 0.171.0,
    // 75 of 75 sends with no delay, the first right after the ready screen, needed no second Enter).
    // UserPromptSubmit runs through `$SHELL -lc`, so confirmation can take a moment.
    input: { confirmTimeoutMs: 3000, maxSubmitRetries: 3, alwaysPaste: true },
    prompt: CODEX_PROMPT,
    payload: CODEX_PAYLOAD,
    transcript: { parse: parseCodexRollout, turn: codexTurn, messages: codexMessages },
    tools: CODEX_TOOLS,
  });
}

/** The default codex provider. */
export const codex: ProviderV1 = createCodex();
