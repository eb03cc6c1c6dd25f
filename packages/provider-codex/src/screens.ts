/**
 * Codex's startup and sign-in screens (reference codex.md §5.2, §5.3). Pure classifiers over the
 * visible pane (never scrollback: an old dialog must not be answered twice).
 */
import type { ProviderV1StartupState } from '@umbel/core';

/** Startup dialogs: how to recognise each and the tmux keys that dismiss it safely. */
export const CODEX_DIALOGS = [
  // "Update now" (the default) runs npm -g; the second option is "Skip".
  { id: 'update', match: /Update available!/, keys: ['Down', 'Enter'] },
  // "› 1. Trust and continue" is highlighted by default.
  { id: 'trust', match: /Trust this folder\?|trust the contents of this directory/i, keys: ['Enter'] },
  // "2. Trust all and continue": umbel pre-trusts its own hooks, so this only shows for hooks the
  // user added to their config; they chose to have them.
  { id: 'hooks-review', match: /Hooks need review/i, keys: ['Down', 'Enter'] },
  // "Meet GPT-…" model migration: keep the configured model ("2. Use existing model").
  { id: 'model-migration', match: /Meet GPT-|Try new model/, keys: ['Down', 'Enter'] },
] as const;

/** Lines that mean codex wants a sign-in (0.169.0 shows the first; older builds the others). */
export const CODEX_SIGN_IN = [
  /Welcome to Codex, OpenAI's command-line coding agent/,
  /Sign in with ChatGPT to use Codex/,
  /or connect an API key for usage-based billing/,
  /^\s*[›>] 1\. Sign in with ChatGPT/m,
] as const;

/** The composer line shown when the TUI takes input. */
export const CODEX_COMPOSER = /^› /m;
/** The status line under the composer: `  <model> <effort> · <cwd>[ · <title>]`. */
export const CODEX_STATUS_LINE = /^ {2}\S+(?: \S+)* · [~/]/m;

/**
 * Whether the approval prompt is drawn (codex.md §9: "Would you like to run the following
 * command?" … "Press enter to confirm or esc to cancel"). The PermissionRequest hook fires before
 * it is: keys sent in between go to the composer, not to the prompt. Pure.
 */
export function detectCodexApproval(screen: string): boolean {
  return /^\s*Press enter to confirm or esc to cancel\s*$/m.test(screen);
}

/** The sign-in line on screen, if any. */
export function detectCodexSignIn(screen: string): string | undefined {
  for (const re of CODEX_SIGN_IN) {
    const m = re.exec(screen);
    if (m) {
      const start = screen.lastIndexOf('\n', m.index) + 1;
      const end = screen.indexOf('\n', m.index);
      return screen.slice(start, end < 0 ? undefined : end).trim();
    }
  }
  return undefined;
}

/**
 * Classify the startup screen. Ready means the composer and the status line are both drawn:
 * keys sent before the status line are unreliable (§5.3: Enter turned into a newline).
 */
export function detectCodexStartup(screen: string): ProviderV1StartupState {
  const fatal =
    /^Error: loading config\.toml: .*$/m.exec(screen) ??
    /^Error: CODEX_HOME .*$/m.exec(screen) ??
    /Missing optional dependency @openai\/codex.*$/m.exec(screen);
  if (fatal) return { state: 'fatal', message: fatal[0].trim() };
  const signIn = detectCodexSignIn(screen);
  if (signIn) return { state: 'sign-in', line: signIn };
  for (const d of CODEX_DIALOGS) if (d.match.test(screen)) return { state: 'dialog', id: d.id, keys: d.keys };
  if (CODEX_COMPOSER.test(screen) && CODEX_STATUS_LINE.test(screen)) return { state: 'ready' };
  return { state: 'starting' };
}
