import type { HookEvent, ProviderV1StartupState } from '@umbel/core';

/** Ids of the startup dialogs umbel answers for Claude Code. */
export const CLAUDE_DIALOGS = {
  trust: 'workspace-trust',
  apiKey: 'api-key-approval',
  bypass: 'bypass-consent',
  externalImports: 'external-imports',
  autoModeBilling: 'auto-mode-billing-notice',
} as const;

/** Whether the `❯` selection cursor sits on a line (optionally inside a `│` box) whose label starts with `label`. */
function highlighted(lines: readonly string[], label: string): boolean {
  return lines.some((line) => {
    const match = /^[\s│]*❯\s*(.*)$/.exec(line);
    return match?.[1]?.startsWith(label) === true;
  });
}

function findLine(lines: readonly string[], needle: string | RegExp): string | undefined {
  return lines.find((line) => (typeof needle === 'string' ? line.includes(needle) : needle.test(line)));
}

const SIGN_IN_MARKERS = ['Select login method:', 'Choose the text style that looks best with your terminal'] as const;

/** The sign-in (or first-run theme picker) line on the screen, or undefined. Pure. */
export function detectClaudeSignIn(screen: string): string | undefined {
  const lines = screen.split('\n');
  for (const marker of SIGN_IN_MARKERS) {
    const line = findLine(lines, marker);
    if (line !== undefined) return line.trim();
  }
  return undefined;
}

/** A fatal startup message on the screen (the CLI has exited or will), or undefined. Pure. */
export function detectClaudeFatal(screen: string): string | undefined {
  const lines = screen.split('\n');
  const root = findLine(lines, 'cannot be used with root/sudo privileges');
  if (root !== undefined) {
    return (
      `Claude Code refused to start: "${root.trim()}". It refuses bypass mode as root unless IS_SANDBOX=1; ` +
      'if this machine is a disposable sandbox pass --env IS_SANDBOX=1, otherwise run as a non-root user or choose another --permission-mode'
    );
  }
  const untrusted = findLine(lines, "didn't start because this folder isn't trusted");
  if (untrusted !== undefined) {
    return `Claude Code refused to start: "${untrusted.trim()}" (the workspace trust dialog was declined)`;
  }
  const offline = findLine(lines, 'Unable to connect to Anthropic services');
  if (offline !== undefined) {
    return (
      `Claude Code exited: "${offline.trim()}". Its onboarding is not completed in this config dir, and the onboarding ` +
      'connectivity check ignores ANTHROPIC_BASE_URL. Run `claude` once by hand with the same CLAUDE_CONFIG_DIR, ' +
      'or seed "hasCompletedOnboarding": true in <config>/.claude.json'
    );
  }
  const inUse = findLine(lines, /Error: Session ID .* is already in use/);
  if (inUse !== undefined) {
    return `Claude Code refused to start: "${inUse.trim()}" (another session uses this id)`;
  }
  return undefined;
}

/** The startup dialog on the screen and the keys that answer it, or undefined. Pure. */
export function detectClaudeDialog(screen: string): { readonly id: string; readonly keys: readonly string[] } | undefined {
  const lines = screen.split('\n');
  if (screen.includes('Bypass Permissions mode')) {
    if (highlighted(lines, 'No, exit')) return { id: CLAUDE_DIALOGS.bypass, keys: ['Down'] };
    if (highlighted(lines, 'Yes, I accept')) return { id: CLAUDE_DIALOGS.bypass, keys: ['Enter'] };
  }
  if (screen.includes('Do you want to use this API key?')) {
    if (highlighted(lines, 'No (recommended)')) return { id: CLAUDE_DIALOGS.apiKey, keys: ['Up'] };
    if (highlighted(lines, 'Yes')) return { id: CLAUDE_DIALOGS.apiKey, keys: ['Enter'] };
  }
  if (highlighted(lines, 'Yes, I trust this folder')) return { id: CLAUDE_DIALOGS.trust, keys: ['Enter'] };
  if (highlighted(lines, 'No, exit') && (screen.includes('trust this folder') || screen.includes('Accessing workspace'))) {
    return { id: CLAUDE_DIALOGS.trust, keys: ['Down'] };
  }
  // Upstream U2: the default ("No, disable external imports") is the safe answer.
  if (highlighted(lines, 'No, disable external imports')) return { id: CLAUDE_DIALOGS.externalImports, keys: ['Enter'] };
  if (lines.some((line) => /^\s*Enter to continue\b/.test(line))) return { id: CLAUDE_DIALOGS.autoModeBilling, keys: ['Enter'] };
  return undefined;
}

/** A line made only of box-drawing rule characters (`─`), at least 3 long. */
function isRule(line: string | undefined): boolean {
  return line !== undefined && /^\s*─{3,}\s*$/.test(line);
}

/**
 * Whether a permission dialog is drawn and takes keys (claude-code.md §6: "Do you want to proceed?"
 * over the options, `❯ 1. Yes` first). Pure.
 */
export function hasClaudePermissionDialog(screen: string): boolean {
  return /^\s*Do you want to /m.test(screen) && /^\s*❯ 1\. Yes\b/m.test(screen);
}

/**
 * Whether Claude Code's input box is on screen: a line starting with `❯` right below a `─` rule,
 * with another rule further down (the box may hold several lines). Pure.
 */
export function hasClaudeInputBox(screen: string): boolean {
  const lines = screen.split('\n');
  for (let i = 1; i < lines.length; i += 1) {
    if (!isRule(lines[i - 1]) || !/^\s*❯/.test(lines[i] ?? '')) continue;
    for (let j = i + 1; j < lines.length; j += 1) if (isRule(lines[j])) return true;
  }
  return false;
}

/** Texts Claude Code draws in an empty input box. */
const EMPTY_BOX_HINTS = [/^Press up to edit queued messages/, /^Try "/];

/**
 * The text in Claude Code's input box (the `❯` line below a `─` rule and the lines up to the next
 * rule), `''` when it is empty (or shows only a hint), undefined when no input box is drawn. Pure.
 */
export function readClaudeInputBox(screen: string): string | undefined {
  const lines = screen.split('\n');
  for (let i = 1; i < lines.length; i += 1) {
    const first = /^\s*❯ ?(.*)$/.exec(lines[i] ?? '');
    if (!isRule(lines[i - 1]) || !first) continue;
    const body = [first[1] ?? ''];
    for (let j = i + 1; j < lines.length && !isRule(lines[j]); j += 1) body.push((lines[j] ?? '').trim());
    const text = body.join('\n').trim();
    return EMPTY_BOX_HINTS.some((hint) => hint.test(text)) ? '' : text;
  }
  return undefined;
}

/**
 * Classify Claude Code's startup screen. Order: fatal messages, sign-in, dialogs, then ready (a
 * `session` event seen and the input box drawn), else starting. Pure.
 */
export function detectClaudeStartup(input: { readonly screen: string; readonly events: readonly HookEvent[] }): ProviderV1StartupState {
  const fatal = detectClaudeFatal(input.screen);
  if (fatal !== undefined) return { state: 'fatal', message: fatal };
  const signIn = detectClaudeSignIn(input.screen);
  if (signIn !== undefined) return { state: 'sign-in', line: signIn };
  const dialog = detectClaudeDialog(input.screen);
  if (dialog !== undefined) return { state: 'dialog', id: dialog.id, keys: dialog.keys };
  if (input.events.some((event) => event.kind === 'session') && hasClaudeInputBox(input.screen)) return { state: 'ready' };
  return { state: 'starting' };
}
