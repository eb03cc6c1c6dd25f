/** Claude Code's screens (claude-code.md §2.3, §5, §6): fatal messages, sign-in, startup dialogs, the input box. */
import { allOf, anyOf, cursorOn, type DialogFact, type FatalFact, type InputBoxFacts, type Matcher } from '@umbel/provider';

/** Ids of the startup dialogs umbel answers. */
export const CLAUDE_DIALOGS = {
  trust: 'workspace-trust',
  apiKey: 'api-key-approval',
  bypass: 'bypass-consent',
  externalImports: 'external-imports',
  autoModeBilling: 'auto-mode-billing-notice',
} as const;

const on = (label: string) => cursorOn('❯', label);

/**
 * Dialogs: only the move key while the default is highlighted (the real 2.1.328 drops keys sent the
 * moment a dialog is drawn, and a lost Down followed by Enter would pick the default), Enter once the
 * safe option is highlighted.
 */
export const CLAUDE_DIALOG_FACTS: readonly DialogFact[] = [
  { id: CLAUDE_DIALOGS.bypass, match: allOf('Bypass Permissions mode', on('No, exit')), keys: ['Down'] },
  { id: CLAUDE_DIALOGS.bypass, match: allOf('Bypass Permissions mode', on('Yes, I accept')), keys: ['Enter'] },
  // The key is used only when the caller passed it (it is never inherited); otherwise the dialog's own default, No.
  { id: CLAUDE_DIALOGS.apiKey, match: allOf('Do you want to use this API key?', on('No (recommended)')), keys: ['Up'], ifEnv: ['ANTHROPIC_API_KEY'] },
  { id: CLAUDE_DIALOGS.apiKey, match: allOf('Do you want to use this API key?', on('Yes')), keys: ['Enter'], ifEnv: ['ANTHROPIC_API_KEY'] },
  { id: CLAUDE_DIALOGS.apiKey, match: allOf('Do you want to use this API key?', on('Yes')), keys: ['Down'], unlessEnv: ['ANTHROPIC_API_KEY'] },
  { id: CLAUDE_DIALOGS.apiKey, match: allOf('Do you want to use this API key?', on('No (recommended)')), keys: ['Enter'], unlessEnv: ['ANTHROPIC_API_KEY'] },
  { id: CLAUDE_DIALOGS.trust, match: on('Yes, I trust this folder'), keys: ['Enter'] },
  { id: CLAUDE_DIALOGS.trust, match: allOf(on('No, exit'), anyOf('trust this folder', 'Accessing workspace')), keys: ['Down'] },
  // Upstream U2: the default ("No, disable external imports") is the safe answer.
  { id: CLAUDE_DIALOGS.externalImports, match: on('No, disable external imports'), keys: ['Enter'] },
  { id: CLAUDE_DIALOGS.autoModeBilling, match: /^\s*Enter to continue\b/m, keys: ['Enter'] },
];

/** Messages that mean Claude Code will not reach its prompt. */
export const CLAUDE_FATAL_FACTS: readonly FatalFact[] = [
  {
    match: 'cannot be used with root/sudo privileges',
    message: (line) =>
      `Claude Code refused to start: "${line}". It refuses bypass mode as root unless IS_SANDBOX=1; ` +
      'if this machine is a disposable sandbox pass --env IS_SANDBOX=1, otherwise run as a non-root user or choose another --permission-mode',
  },
  {
    match: "didn't start because this folder isn't trusted",
    message: (line) => `Claude Code refused to start: "${line}" (the workspace trust dialog was declined)`,
  },
  {
    match: 'Unable to connect to Anthropic services',
    message: (line) =>
      `Claude Code exited: "${line}". Its onboarding is not completed in this config dir, and the onboarding ` +
      'connectivity check ignores ANTHROPIC_BASE_URL. Run `claude` once by hand with the same CLAUDE_CONFIG_DIR, ' +
      'or seed "hasCompletedOnboarding": true in <config>/.claude.json',
  },
  { match: /Error: Session ID .* is already in use/, message: (line) => `Claude Code refused to start: "${line}" (another session uses this id)` },
];

/**
 * The sign-in screen, the first-run theme picker (which also draws boxes, so it must not read as
 * ready), and the input box of a CLI with no credentials at all: 2.1.328 with onboarding done but no
 * key draws its prompt with "Not logged in · run /login" in the status line.
 */
export const CLAUDE_SIGN_IN: readonly Matcher[] = [
  'Select login method:',
  'Choose the text style that looks best with your terminal',
  /Not logged in · run \/login/,
];

/** A permission dialog drawn and taking keys: "Do you want to proceed?" over the options, `❯ 1. Yes` first (§6). */
export const CLAUDE_PERMISSION_PROMPT = allOf(/^\s*Do you want to /m, /^\s*❯ 1\. Yes\b/m);

const RULE = /^\s*─{3,}\s*$/;

/**
 * The input box: a `❯` line right below a `─` rule, up to the next rule. Escape, Escape clears a
 * non-empty box (§5); on an empty one it opens Rewind, so each is pressed only while text remains.
 */
export const CLAUDE_INPUT_BOX: InputBoxFacts = {
  start: /^\s*❯ ?(.*)$/,
  above: RULE,
  end: RULE,
  empty: [/^Press up to edit queued messages/, /^Try "/],
  clearKeys: ['Escape', 'Escape'],
};

/**
 * After a plan limit that resets more than 24 h away, Claude Code opens `/rate-limit-options`
 * (ACCOUNT-FACTS §1.3) and takes no prompt until it is answered: "1. Stop and wait for limit to
 * reset / 2. Wait here, then continue automatically at … / 3. Upgrade your plan". Its second option
 * is drawn only while the dialog is open. umbel never answers it: 3 is a purchase, 2 the user's call.
 */
export const CLAUDE_ACCOUNT_SCREENS = [
  {
    match: /^\s*(?:❯\s*)?2\. Wait here, then continue automatically at \S/,
    kind: 'rate-limited' as const,
    answer: 'Enter picks 1. Stop and wait for limit to reset; Down Enter picks 2. Wait here, then continue automatically at the reset',
    message: (line: string) =>
      `Claude Code asks what to do about the usage limit (/rate-limit-options: 1. Stop and wait for limit to reset · ${line.replace(/^❯\s*/, '').replace(/^2\.\s*/, '2. ')} · 3. Upgrade your plan)`,
  },
];
