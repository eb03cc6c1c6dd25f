/**
 * The GitHub Copilot CLI provider: its facts compiled by the provider kit, on `@umbel/provider`
 * alone (as any third-party provider would be written).
 *
 * Launch: `copilot --plugin-dir <workerDir>/copilot-plugin --session-id <uuid> [--model m] [mode
 * flags]` with `COPILOT_AUTO_UPDATE=false`. Completion comes from Copilot's own session events
 * (./events.ts), the hooks (./plugin-dir.ts) only say when to look.
 */
import { defineProvider, type ProviderV1 } from '@umbel/provider';
import {
  COPILOT_API_BILLING_ENV,
  COPILOT_CHILD_MARKERS,
  COPILOT_DIALOGS,
  COPILOT_ENDPOINT_ENV,
  COPILOT_HOOK_EVENTS,
  COPILOT_INHERIT_ENV,
  COPILOT_INPUT_BOX,
  COPILOT_PAYLOAD,
  COPILOT_PERMISSION_MODES,
  COPILOT_PROMPT,
  COPILOT_SET_ENV,
  COPILOT_SIGN_IN,
  COPILOT_SIGN_IN_HINT,
  COPILOT_UNSET_ENV,
  copilotBilling,
  PERMISSION_PROMPT,
} from './facts.js';
import { readCopilotMessages, readCopilotTurn } from './events.js';
import { installPluginDir } from './plugin-dir.js';
import { COPILOT_TOOLS } from './tools.js';

/** The Copilot CLI releases these facts were verified on. */
export const COPILOT_VERIFIED_VERSIONS = ['1.0.102'] as const;

/** Settings of {@link createCopilot}. */
export interface CopilotSettings {
  /** The `copilot` executable (a path or a name on PATH). `UMBEL_COPILOT_BIN` wins over it. */
  readonly bin?: string;
  /** Extra arguments appended to every launch (never env values). */
  readonly extraArgs?: readonly string[];
  /** Provider id (default `copilot`), to register a second configuration. */
  readonly providerId?: string;
}

/**
 * Create the GitHub Copilot CLI provider.
 * @example
 * const engine = createUmbel({ substrate, providers: [createCopilot()] });
 */
export function createCopilot(settings: CopilotSettings = {}): ProviderV1 {
  return defineProvider({
    id: settings.providerId ?? 'copilot',
    displayName: 'GitHub Copilot CLI',
    description: 'GitHub Copilot CLI (`copilot`), on your GitHub sign-in (Copilot plan) or a BYOK model provider',
    verifiedVersions: COPILOT_VERIFIED_VERSIONS,
    binary: { name: 'copilot', install: 'npm install -g @github/copilot', ...(settings.bin ? { configured: settings.bin } : {}) },
    env: { inherit: COPILOT_INHERIT_ENV, hostMarkers: COPILOT_CHILD_MARKERS, unset: COPILOT_UNSET_ENV, set: COPILOT_SET_ENV },
    billing: { apiEnv: COPILOT_API_BILLING_ENV, endpointEnv: COPILOT_ENDPOINT_ENV, detect: copilotBilling },
    sandbox: { hosts: ['api.github.com', 'github.com', 'api.githubcopilot.com'], writePaths: [{ path: '~/.copilot' }] },
    flags: {
      sessionId: '--session-id',
      model: '--model',
      permissionModes: COPILOT_PERMISSION_MODES,
      unattended: 'allow',
      allowedTools: '--allow-tool',
      extraArgs: settings.extraArgs ?? [],
    },
    // sessionStart fires at the first prompt (it carries the prompt as `initialPrompt`)
    hooks: { events: COPILOT_HOOK_EVENTS, sessionAt: 'first-prompt', install: installPluginDir },
    screens: {
      signIn: COPILOT_SIGN_IN,
      signInHint: COPILOT_SIGN_IN_HINT,
      dialogs: COPILOT_DIALOGS,
      ready: { inputBox: true },
      inputPrompt: PERMISSION_PROMPT,
      inputBox: COPILOT_INPUT_BOX,
    },
    // Pasted (bracketed), never typed; userPromptSubmitted confirms the submit. Escape stops a turn.
    input: { submitDelayMs: 150, confirmTimeoutMs: 3000, maxSubmitRetries: 3, alwaysPaste: true, cancelKeys: ['Escape'] },
    prompt: COPILOT_PROMPT,
    payload: COPILOT_PAYLOAD,
    transcript: { read: readCopilotTurn, messages: readCopilotMessages },
    tools: COPILOT_TOOLS,
  });
}

/** The default GitHub Copilot CLI provider. */
export const copilot: ProviderV1 = createCopilot();
