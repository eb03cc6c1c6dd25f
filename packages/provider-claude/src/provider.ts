/** The Claude Code provider: its facts compiled by the provider kit. */
import { activityDirsOf, type CliSettings, defineProvider, envPrecedence, modeFlags, type ProviderV1, refuseModeAsRoot } from '@umbel/provider';
import * as facts from './facts.js';
import { CLAUDE_ACTIVITY_DIRS, installClaudeHooks, predictClaudeTranscript } from './launch.js';
import { CLAUDE_PAYLOAD } from './payload.js';
import { claudeScratch } from './scratch.js';
import { CLAUDE_SCREENS, detectClaudeBilling } from './screens.js';
import { CLAUDE_TRANSCRIPT } from './transcript.js';

/** Claude Code releases these facts were verified on (oldest first; the last is the pinned real CLI). */
export const CLAUDE_VERIFIED_VERSIONS = ['2.1.328', '2.1.332'] as const;

/** Options of a Claude provider instance. */
export interface ClaudeSettings extends Pick<CliSettings, 'extraArgs'> {
  /** Binary to launch (a path, or a name looked up on PATH). `UMBEL_CLAUDE_BIN` wins over it. */
  readonly binary?: string;
  /** Extra env for every worker (e.g. `{ CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' }`); the reserved env wins. */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * Create the Claude Code provider (spec v1), pure but for the members docs/providers/authoring.md names (the engine writes the files doBuildLaunch returns).
 * @example const umbel = createUmbel({ substrate, providers: [createClaude()] });
 */
export function createClaude(settings: ClaudeSettings = {}): ProviderV1 {
  return defineProvider({
    id: 'claude',
    displayName: 'Claude Code',
    description: "Anthropic's Claude Code (`claude`), on your Claude subscription login",
    verifiedVersions: CLAUDE_VERIFIED_VERSIONS,
    binary: { name: 'claude', install: 'npm install -g @anthropic-ai/claude-code', ...(settings.binary ? { configured: settings.binary } : {}) },
    billing: { apiEnv: facts.CLAUDE_API_BILLING_ENV, endpointEnv: facts.CLAUDE_ENDPOINT_ENV, detect: detectClaudeBilling },
    sandbox: facts.CLAUDE_SANDBOX,
    env: {
      inherit: facts.CLAUDE_INHERIT_ENV,
      hostMarkers: facts.CLAUDE_CHILD_MARKERS,
      set: { ...settings.env, ...facts.CLAUDE_RESERVED_ENV },
      reconcile: envPrecedence(facts.CLAUDE_ENV_PRECEDENCE),
    },
    flags: {
      sessionId: '--session-id',
      // claude-code.md §3: `--resume U` keeps session U and its file, and sends the old conversation
      resume: (sessionId) => ['--resume', sessionId],
      model: '--model',
      permissionModes: modeFlags('--permission-mode', facts.CLAUDE_PERMISSION_MODES),
      unattended: 'bypassPermissions',
      allowedTools: '--allowedTools',
      appendSystemPrompt: '--append-system-prompt',
      extraArgs: settings.extraArgs ?? [],
      prompt: (text) => ['--', text], // claude-code.md §2.6: submitted at once; `--`: --allowedTools takes many
    },
    hooks: { events: facts.CLAUDE_HOOK_EVENTS, install: installClaudeHooks },
    screens: CLAUDE_SCREENS,
    input: { alwaysPaste: true, confirmTimeoutMs: 1500, maxSubmitRetries: 3, submitDelayMs: 0 },
    prompt: facts.CLAUDE_PROMPT,
    payload: CLAUDE_PAYLOAD,
    transcript: { ...CLAUDE_TRANSCRIPT, predict: predictClaudeTranscript },
    validate: refuseModeAsRoot(facts.CLAUDE_ROOT_MODE),
    tools: facts.CLAUDE_TOOLS,
    scratch: claudeScratch,
    activityDirs: activityDirsOf(CLAUDE_ACTIVITY_DIRS),
  });
}

/** The default Claude Code provider instance (`createClaude()`). */
export const claude: ProviderV1 = createClaude();
