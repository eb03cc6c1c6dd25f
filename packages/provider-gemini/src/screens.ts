/**
 * What Gemini CLI's screens mean (reference gemini.md §3). Pure functions over a captured screen.
 */
import type { HookEvent, ProviderV1StartupState } from '@umbel/core';

/** The input box's placeholder: the TUI is up (it stays visible while busy, too). */
export const READY_TEXT = 'Type your message';
/** The first-launch auth question (also the sign-in screen of a signed-out CLI). */
export const SIGN_IN_TEXT = 'How would you like to authenticate for this project?';
/** The API-key entry box shown after choosing "Use Gemini API Key" without a key. */
export const API_KEY_ENTRY_TEXT = 'Enter Gemini API Key';
/** The folder-trust dialog (umbel pre-trusts the worker cwd, so this is a fallback). */
export const TRUST_TEXT = 'Do you trust the files in this folder?';
/** Busy: the spinner line `⠧ Thinking... (esc to cancel, 1s)`. */
export const BUSY_RE = /\(esc to cancel, \d+/;

/** Messages that mean the CLI will never reach its prompt. */
const FATAL: readonly { readonly re: RegExp; readonly message: string }[] = [
  {
    re: /No input provided via stdin/,
    message: 'gemini started in headless mode (CI=true or GITHUB_ACTIONS=true reached it) and exited',
  },
  { re: /Invalid auth method selected/, message: 'gemini rejected its auth method (set security.auth.selectedType, or pass GEMINI_API_KEY)' },
  { re: /must specify the GEMINI_API_KEY environment variable/, message: 'gemini needs GEMINI_API_KEY (pass it with --env GEMINI_API_KEY)' },
  { re: /is not running in a trusted directory/, message: 'gemini refused an untrusted directory' },
  { re: /Please fix the configuration file/, message: 'gemini refused its configuration file' },
];

function lineWith(screen: string, text: string): string {
  const line = screen.split('\n').find((l) => l.includes(text)) ?? text;
  return line.replace(/^[\s│|]+|[\s│|]+$/g, '');
}

/** The first option of a tool approval box (gemini.md §7), drawn once the box takes keys. */
export const APPROVAL_RE = /● 1\. Allow once/;

/** Whether a tool approval box is drawn. Pure. */
export function detectGeminiApproval(screen: string): boolean {
  return APPROVAL_RE.test(screen);
}

/** The sign-in line when the screen is Gemini's auth dialog or API-key entry box. */
export function detectGeminiSignIn(screen: string): string | undefined {
  if (screen.includes(SIGN_IN_TEXT)) return lineWith(screen, SIGN_IN_TEXT);
  if (screen.includes(API_KEY_ENTRY_TEXT)) return lineWith(screen, API_KEY_ENTRY_TEXT);
  return undefined;
}

/** Classify the startup screen. */
export function detectGeminiStartup(input: { readonly screen: string; readonly events: readonly HookEvent[] }): ProviderV1StartupState {
  const { screen } = input;
  for (const f of FATAL) {
    const line = screen.split('\n').find((l) => f.re.test(l));
    if (line !== undefined) return { state: 'fatal', message: `${f.message}: ${line.trim()}` };
  }
  const signIn = detectGeminiSignIn(screen);
  if (signIn !== undefined) return { state: 'sign-in', line: signIn };
  // "● 1. Trust folder" is preselected; Enter trusts the worker's folder.
  if (screen.includes(TRUST_TEXT)) return { state: 'dialog', id: 'trust-folder', keys: ['Enter'] };
  // The input box is drawn before the CLI's config is initialized; a prompt submitted then is
  // queued ("Initializing... Prompts will be queued.") and, on the real 0.61.0, keys pasted that
  // early were mangled (a `?` lost, a `!…` run as a shell command). SessionStart fires right after
  // the config is initialized, so only that event means ready.
  if (input.events.some((e) => e.kind === 'session')) return { state: 'ready' };
  return { state: 'starting' };
}
