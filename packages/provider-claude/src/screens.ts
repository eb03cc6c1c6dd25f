/** Claude Code's screens (claude-code.md §2.3, §5, §6): fatal messages, sign-in, startup dialogs, the input box, the billing banner. */
import type { ProviderV1BillingInput, ProviderV1BillingReport, ScreenFacts } from '@umbel/provider';
import { allOf, anyOf, cursorOn } from '@umbel/provider';
import { CLAUDE_API_BILLING_ENV } from './facts.js';

/** Ids of the startup dialogs umbel answers. */
export const CLAUDE_DIALOGS = {
  trust: 'workspace-trust',
  apiKey: 'api-key-approval',
  bypass: 'bypass-consent',
  externalImports: 'external-imports',
  autoModeBilling: 'auto-mode-billing-notice',
} as const;

const on = (label: string) => cursorOn('❯', label);

const RULE = /^\s*─{3,}\s*$/;

/** The screens, classified in the kit's order (fatal, sign-in, dialogs, ready); CLAUDE-FACTS.md "Screens" says what each is. */
export const CLAUDE_SCREENS: ScreenFacts = {
  fatal: [
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
  ],
  signIn: ['Select login method:', 'Choose the text style that looks best with your terminal', /Not logged in · run \/login/],
  account: [
    {
      match: /^\s*(?:❯\s*)?2\. Wait here, then continue automatically at \S/,
      kind: 'rate-limited',
      answer: 'Enter picks 1. Stop and wait for limit to reset; Down Enter picks 2. Wait here, then continue automatically at the reset',
      message: (line: string) =>
        `Claude Code asks what to do about the usage limit (/rate-limit-options: 1. Stop and wait for limit to reset · ${line.replace(/^❯\s*/, '').replace(/^2\.\s*/, '2. ')} · 3. Upgrade your plan)`,
    },
  ],
  // the move key while the default is highlighted, Enter once the safe option is (CLAUDE-FACTS.md "Dialogs" says which is safe)
  dialogs: [
    { id: CLAUDE_DIALOGS.bypass, match: allOf('Bypass Permissions mode', on('No, exit')), keys: ['Down'] },
    { id: CLAUDE_DIALOGS.bypass, match: allOf('Bypass Permissions mode', on('Yes, I accept')), keys: ['Enter'] },
    { id: CLAUDE_DIALOGS.apiKey, match: allOf('Do you want to use this API key?', on('No (recommended)')), keys: ['Up'], ifEnv: ['ANTHROPIC_API_KEY'] },
    { id: CLAUDE_DIALOGS.apiKey, match: allOf('Do you want to use this API key?', on('Yes')), keys: ['Enter'], ifEnv: ['ANTHROPIC_API_KEY'] },
    { id: CLAUDE_DIALOGS.apiKey, match: allOf('Do you want to use this API key?', on('Yes')), keys: ['Down'], unlessEnv: ['ANTHROPIC_API_KEY'] },
    { id: CLAUDE_DIALOGS.apiKey, match: allOf('Do you want to use this API key?', on('No (recommended)')), keys: ['Enter'], unlessEnv: ['ANTHROPIC_API_KEY'] },
    { id: CLAUDE_DIALOGS.trust, match: on('Yes, I trust this folder'), keys: ['Enter'] },
    { id: CLAUDE_DIALOGS.trust, match: allOf(on('No, exit'), anyOf('trust this folder', 'Accessing workspace')), keys: ['Down'] },
    { id: CLAUDE_DIALOGS.externalImports, match: on('No, disable external imports'), keys: ['Enter'] },
    { id: CLAUDE_DIALOGS.autoModeBilling, match: /^\s*Enter to continue\b/m, keys: ['Enter'] },
  ],
  ready: { hook: 'session', inputBox: true },
  inputPrompt: allOf(/^\s*Do you want to /m, /^\s*❯ 1\. Yes\b/m),
  inputBox: { start: /^\s*❯ ?(.*)$/, above: RULE, end: RULE, empty: [/^Press up to edit queued messages/, /^Try "/], clearKeys: ['Escape', 'Escape'] },
};

/** The banner's billing label after a `·` (ACCOUNT-FACTS.md §1.1), and the cloud switches (no banner verified for them). */
const BANNER_LABEL = /·\s*(API Usage Billing|Claude API|Claude (?:Max|Pro|Team|Enterprise)\b[^\n│]*?)\s*│?\s*$/m;
const CLOUD_ENV = CLAUDE_API_BILLING_ENV.filter((name) => name.startsWith('CLAUDE_CODE_USE_'));

export function detectClaudeBilling({ screen, envNames }: ProviderV1BillingInput): ProviderV1BillingReport {
  const passed = CLAUDE_API_BILLING_ENV.filter((name) => envNames.includes(name));
  const cloud = CLOUD_ENV.filter((name) => envNames.includes(name));
  if (cloud.length) return { billing: 'api', evidence: `${cloud.join(', ')} set (cloud provider billing)` };
  const label = BANNER_LABEL.exec(screen)?.[1]?.trim();
  const via = passed.length ? ` with ${passed.join(', ')} passed` : '';
  if (label === 'API Usage Billing') return { billing: 'api', evidence: `banner "API Usage Billing"${via}` };
  if (label === 'Claude API') return { billing: 'subscription', evidence: 'banner "Claude API" (CLAUDE_CODE_OAUTH_TOKEN)' };
  if (label) return { billing: 'subscription', evidence: `banner "${label}"` };
  return { billing: 'unknown' };
}
