/** What echo-agent's screens mean (texts from agent/screen.js, as capture-pane shows them). */
import type { ProviderV1StartupState } from '@umbel/core';

export const TRUST_QUESTION = 'Do you trust the files in this folder?';
export const SIGNED_OUT = 'Signed out. Run `echo-agent login`';
/** The input line: ` ❯ text` (capture-pane drops the trailing space of an empty one). */
const INPUT_LINE = /^ ❯(?: (.*))?$/m;
const FOOTER = /^ (enter send|working…) · /m;
const PERMISSION = /^ Allow echo-agent to write \S+\? \[y\] yes {2}\[n\] no$/m;
const FATAL = /^fatal: (.*)$/m;

/** The startup state of a screen: sign-in, fatal, the trust dialog (answered with `y`), ready. */
export function detectStartup(screen: string): ProviderV1StartupState {
  const signIn = detectSignIn(screen);
  if (signIn) return { state: 'sign-in', line: signIn };
  const fatal = FATAL.exec(screen);
  if (fatal) return { state: 'fatal', message: `echo-agent failed to start: ${fatal[1]}` };
  if (screen.includes(TRUST_QUESTION)) return { state: 'dialog', id: 'trust', keys: ['y'] };
  if (INPUT_LINE.test(screen) && FOOTER.test(screen)) return { state: 'ready' };
  return { state: 'starting' };
}

/** The sign-in line, when the screen asks for one. */
export function detectSignIn(screen: string): string | undefined {
  return screen
    .split('\n')
    .find((line) => line.includes(SIGNED_OUT))
    ?.trim();
}

/** Whether the permission question is on the screen (and takes y/n). */
export function detectInputPrompt(screen: string): boolean {
  return PERMISSION.test(screen);
}

/** The text of the input line (`''` when empty), or undefined when there is none. */
export function readInputBox(screen: string): string | undefined {
  const match = INPUT_LINE.exec(screen);
  return match ? (match[1] ?? '').trimEnd() : undefined;
}
