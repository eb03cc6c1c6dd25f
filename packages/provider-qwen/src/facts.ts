/**
 * Qwen Code's facts (test-fixtures/real/QWEN-FACTS.md; verified on 0.15.10): env, billing, approval
 * modes, hook events, screens, prompt rules and hook payload fields. The worker settings that
 * install the hooks are ./settings.ts; the chat-recording reader is ./chat.ts.
 */
import type { HookEvent, HookKind, ProviderV1BillingInput, ProviderV1BillingReport, ProviderV1EventInfo } from '@umbel/provider';
import { commandPrompt, type InputBoxFacts, type Matcher, type PayloadFacts, type PromptFacts, stringField, payloadActivity } from '@umbel/provider';

/** `--approval-mode` values of Qwen Code. */
export const QWEN_APPROVAL_MODES = ['default', 'auto-edit', 'yolo', 'plan'] as const;

/** Configuration variables a worker inherits, named one by one (no key among them). */
export const QWEN_INHERIT_ENV = [
  'OPENAI_BASE_URL',
  'OPENAI_MODEL',
  'ANTHROPIC_BASE_URL',
  'ANTHROPIC_MODEL',
  'GEMINI_MODEL',
  'QWEN_HOME',
  'QWEN_RUNTIME_DIR',
  'QWEN_CODE_TRUSTED_FOLDERS_PATH',
  'QWEN_DEFAULT_AUTH_TYPE',
  'NO_BROWSER',
] as const;

/**
 * Variables that bill an API key instead of the Qwen OAuth login (QWEN-FACTS §4): never inherited;
 * a worker gets one only when the caller passes it. BAILIAN_CODING_PLAN_API_KEY is Alibaba Cloud's
 * Coding Plan, a monthly plan reached with a key: umbel counts every key as API billing.
 */
export const QWEN_API_BILLING_ENV = [
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'GEMINI_API_KEY',
  'DASHSCOPE_API_KEY',
  'BAILIAN_CODING_PLAN_API_KEY',
  'OPENROUTER_API_KEY',
] as const;

/** Variables naming the endpoint Qwen Code calls (status shows it, credentials removed). */
export const QWEN_ENDPOINT_ENV = ['OPENAI_BASE_URL', 'ANTHROPIC_BASE_URL'] as const;

/** The system settings file umbel points every worker at (./settings.ts). */
export const SYSTEM_SETTINGS_ENV = 'QWEN_CODE_SYSTEM_SETTINGS_PATH';

/** Why billing cannot be told from the env alone: Qwen Code loads keys from .env files and settings too. */
export const QWEN_BILLING_UNKNOWABLE =
  'Qwen Code also reads keys from .qwen/.env or .env files (cwd upward, then home) and from settings.json `env`; the ready screen names the auth';

/** Qwen hook events umbel listens to, and the neutral kind each becomes (QWEN-FACTS §5). */
export const QWEN_HOOK_EVENTS = {
  SessionStart: 'session',
  UserPromptSubmit: 'prompt',
  Stop: 'stop',
  StopFailure: 'stop-failure',
  PermissionRequest: 'permission',
  Notification: 'notify',
  PreToolUse: 'tool',
  SessionEnd: 'session-end',
} as const satisfies Record<string, HookKind>;

/** The first-launch auth dialog (also what a signed-out CLI shows). */
export const SIGN_IN_TEXT = 'Select Authentication Method';
export const QWEN_SIGN_IN: readonly Matcher[] = [SIGN_IN_TEXT];

/** The first option of a tool approval box, drawn once the box takes keys. */
export const APPROVAL_RE = /› 1\. Yes, allow once/;

/** The cursor Qwen Code draws in its input box (a zero-width space). */
export const CURSOR = '\u200b';

/**
 * The input box: `> text` (`*   text` in YOLO mode) right below a `────` rule, down to the next rule; continuation lines are
 * indented. The placeholder reads as empty. Ctrl-C with text clears it; on an empty box it arms the
 * exit ("Press Ctrl+C again to exit."), so it is pressed only while the box holds text.
 */
export const QWEN_INPUT_BOX: InputBoxFacts = {
  start: /^(?:> |\* {3})(.*)$/, // `*   ` in YOLO mode (--unattended)
  above: /^─{20,}$/,
  end: /^─{20,}$/,
  empty: [/^Type your message or @path\/to\/file$/],
  clearKeys: ['C-c'],
};

/** Prompts: pasted byte-exact; a first word naming a command (`/name`) runs as a slash command. */
export const QWEN_PROMPT: PromptFacts = {
  refuse: [commandPrompt({ cli: 'Qwen Code', as: 'a slash command' })],
  trailing: [{ endsWith: '\\', append: '\n' }],
};

/** The banner's auth label: `│ <label> | <model> (/model to change) │` (QWEN-FACTS §3). */
const AUTH_LABEL = /│ +([^│\n]+?) \| \S[^│\n]*│[ \t]*$/m;

/**
 * How a worker bills, from the banner's auth label: `Qwen OAuth` is the login tier; `API Key` or a
 * provider's label (Coding Plan, OpenRouter, …) is a key; `Unknown`: no auth selected yet.
 */
export function qwenBilling({ screen }: ProviderV1BillingInput): ProviderV1BillingReport {
  const label = AUTH_LABEL.exec(screen)?.[1]?.trim();
  if (label === undefined || label === 'Unknown') return { billing: 'unknown', ...(label ? { evidence: 'the banner says Unknown' } : {}) };
  const evidence = `the banner says "${label}"`;
  return label === 'Qwen OAuth' ? { billing: 'subscription', evidence } : { billing: 'api', evidence };
}

/** PermissionRequest, and a `permission_prompt` notification, mean the approval box is (about to be) up. */
function needsInput(event: HookEvent, p: Record<string, unknown>): ProviderV1EventInfo['needsInput'] {
  const type = stringField(p, 'notification_type');
  if (event.kind === 'notify' && type !== 'permission_prompt') return undefined;
  // the notification names the tool only in its message ("… needs your permission to use run_shell_command")
  const tool = stringField(p, 'tool_name') ?? /permission to use (\S+)$/.exec(stringField(p, 'message') ?? '')?.[1];
  const command = stringField(p, 'tool_input.command');
  const message = stringField(p, 'message') ?? `Qwen Code asks to use ${tool ?? 'a tool'}`;
  return { kind: 'permission', message: command ? `${message}: ${command}` : message, ...(tool ? { tool } : {}) };
}

/** StopFailure's `error`: the account's ones. */
function account(p: Record<string, unknown>): ProviderV1EventInfo['account'] {
  const error = stringField(p, 'error');
  if (error === 'rate_limit') return { kind: 'rate-limited' };
  if (error === 'authentication_failed') return { kind: 'auth-failed' };
  return undefined;
}

/** Hook payloads (QWEN-FACTS §5): every one carries `session_id` and `transcript_path`. */
export const QWEN_PAYLOAD: PayloadFacts = {
  sessionId: 'session_id',
  transcriptPath: 'transcript_path',
  lastMessage: { stop: 'last_assistant_message' },
  error: { fields: ['error_details', 'error'], fallback: 'Qwen Code reported an API error' },
  account,
  needsInput,
  activity: payloadActivity({ tool: 'tool_name', input: 'tool_input', fields: ['command', 'file_path', 'absolute_path', 'path', 'pattern'] }),
};
