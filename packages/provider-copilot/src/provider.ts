/**
 * The GitHub Copilot CLI provider: its facts compiled by the provider kit, on `@umbel/provider`
 * alone (as any third-party provider would be written).
 *
 * Launch: `copilot --plugin-dir <workerDir>/copilot-plugin --session-id <uuid> [--model m] [mode
 * flags]` with `COPILOT_AUTO_UPDATE=false`. Completion comes from Copilot's own session events
 * (./events.ts), the hooks (./plugin-dir.ts) only say when to look.
 */
import { type CliSettings, cliBinary, defineProvider, type ProviderV1 } from '@umbel/provider';
import * as facts from './facts.js';
import { copilotMessages, copilotTurn, parseEvents } from './events.js';
import { installPluginDir } from './plugin-dir.js';

/** The Copilot CLI releases these facts were verified on. */
export const COPILOT_VERIFIED_VERSIONS = ['1.0.102'] as const;

/** Settings of {@link createCopilot}. */
export type CopilotSettings = CliSettings;

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
    binary: cliBinary('copilot', 'npm install -g @github/copilot', settings),
    env: { inherit: facts.COPILOT_INHERIT_ENV, hostMarkers: facts.COPILOT_CHILD_MARKERS, unset: facts.COPILOT_UNSET_ENV, set: facts.COPILOT_SET_ENV },
    billing: { apiEnv: facts.COPILOT_API_BILLING_ENV, endpointEnv: facts.COPILOT_ENDPOINT_ENV, detect: facts.copilotBilling },
    sandbox: { hosts: ['api.github.com', 'github.com', 'api.githubcopilot.com'], writePaths: [{ path: '~/.copilot' }] },
    flags: {
      sessionId: '--session-id',
      model: '--model',
      permissionModes: facts.COPILOT_PERMISSION_MODES,
      unattended: 'allow',
      allowedTools: '--allow-tool',
      extraArgs: settings.extraArgs ?? [],
    },
    // sessionStart fires at the first prompt (it carries the prompt as `initialPrompt`)
    hooks: { events: facts.COPILOT_HOOK_EVENTS, sessionAt: 'first-prompt', install: installPluginDir },
    screens: {
      signIn: facts.COPILOT_SIGN_IN,
      signInHint: facts.COPILOT_SIGN_IN_HINT,
      dialogs: facts.COPILOT_DIALOGS,
      ready: { inputBox: true },
      inputPrompt: facts.PERMISSION_PROMPT,
      inputBox: facts.COPILOT_INPUT_BOX,
    },
    // Pasted (bracketed), never typed; userPromptSubmitted confirms the submit. Escape stops a turn.
    input: { submitDelayMs: 150, confirmTimeoutMs: 3000, maxSubmitRetries: 3, alwaysPaste: true, cancelKeys: ['Escape'] },
    prompt: facts.COPILOT_PROMPT,
    payload: facts.COPILOT_PAYLOAD,
    transcript: { parse: parseEvents, turn: copilotTurn, messages: copilotMessages },
    tools: facts.COPILOT_TOOLS,
  });
}

/** The default GitHub Copilot CLI provider. */
export const copilot: ProviderV1 = createCopilot();
