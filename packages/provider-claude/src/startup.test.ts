import { readFileSync } from 'node:fs';
import type { HookEvent } from '@umbel/core';
import { describe, expect, it } from 'vitest';
import { claude } from './provider.js';
import { CLAUDE_DIALOGS } from './screens.js';

const detectClaudeStartup = (input: { screen: string; events: readonly HookEvent[]; envNames?: readonly string[] }) => claude.doDetectStartup(input);
const detectClaudeSignIn = (text: string) => claude.doDetectSignIn?.(text);
const readClaudeInputBox = (text: string) => claude.doReadInputBox?.(text);
/** The input box is drawn: the rule above, the ❯ line, a rule below. */
const hasClaudeInputBox = (text: string) => readClaudeInputBox(text) !== undefined;

const screen = (name: string): string => readFileSync(new URL(`./__fixtures__/screens/${name}.txt`, import.meta.url), 'utf8');
const session: HookEvent = { kind: 'session', at: 1n, payload: { session_id: 's', source: 'startup' } };
const sent: HookEvent = { kind: 'sent', at: 1n, payload: undefined };
/** Most dialogs are answered the same either way; the API-key one is answered Yes only for a key the caller passed. */
const KEY_PASSED = ['HOME', 'ANTHROPIC_API_KEY'];
const detect = (name: string, events: readonly HookEvent[] = [session], envNames: readonly string[] = KEY_PASSED) =>
  detectClaudeStartup({ screen: screen(name), events, envNames });

describe('detectClaudeStartup: dialogs (§2.3)', () => {
  it.each([
    // Only the move key while the default is highlighted: the real 2.1.328 drops keys sent the moment
    // the dialog is drawn, and a lost Down followed by Enter picks the default ("No, exit").
    ['trust-no-exit', CLAUDE_DIALOGS.trust, ['Down']],
    ['trust-yes', CLAUDE_DIALOGS.trust, ['Enter']],
    ['api-key-no', CLAUDE_DIALOGS.apiKey, ['Up']],
    ['api-key-yes', CLAUDE_DIALOGS.apiKey, ['Enter']],
    ['bypass-consent', CLAUDE_DIALOGS.bypass, ['Down']],
    ['external-imports', CLAUDE_DIALOGS.externalImports, ['Enter']],
    ['auto-mode-billing', CLAUDE_DIALOGS.autoModeBilling, ['Enter']],
  ])('%s → %s %j', (name, id, keys) => {
    expect(detect(name)).toEqual({ state: 'dialog', id, keys });
    expect(detect(name, [])).toEqual({ state: 'dialog', id, keys });
  });

  it('the API-key dialog without the key passed explicitly: the default No is kept (Enter on No, back to No from Yes), never Yes', () => {
    // The key can reach Claude Code without umbel passing it (the user's own settings env): umbel never approves it.
    for (const envNames of [[], ['HOME'], ['ANTHROPIC_AUTH_TOKEN']]) {
      expect(detect('api-key-no', [session], envNames)).toEqual({ state: 'dialog', id: CLAUDE_DIALOGS.apiKey, keys: ['Enter'] });
      expect(detect('api-key-yes', [session], envNames)).toEqual({ state: 'dialog', id: CLAUDE_DIALOGS.apiKey, keys: ['Down'] });
    }
    expect(detectClaudeStartup({ screen: screen('api-key-no'), events: [session] })).toMatchObject({ keys: ['Enter'] });
  });

  it('a dialog wins over an input box drawn behind it', () => {
    const behind = `${screen('ready')}\n${screen('api-key-no')}`;
    expect(detectClaudeStartup({ screen: behind, events: [session] })).toMatchObject({ state: 'dialog', id: CLAUDE_DIALOGS.apiKey });
  });
});

describe('detectClaudeStartup: sign-in', () => {
  it('reports the login-method screen with its line', () => {
    expect(detect('sign-in-login')).toEqual({ state: 'sign-in', line: 'Select login method:' });
  });

  it('reports the first-run theme picker (which also draws boxes) as sign-in, not ready', () => {
    const withBox = `${screen('sign-in-theme')}\n${screen('early-input')}`;
    expect(detectClaudeStartup({ screen: withBox, events: [session] })).toEqual({
      state: 'sign-in',
      line: 'Choose the text style that looks best with your terminal',
    });
  });

  it('reports the input box of a CLI that is not logged in (status line "Not logged in · run /login", real 2.1.328) as sign-in, not ready', () => {
    const state = detect('sign-in-not-logged-in');
    expect(state.state).toBe('sign-in');
    expect(state.state === 'sign-in' && state.line).toContain('Not logged in · run /login');
  });

  it('doDetectSignIn finds the same lines and nothing on a ready screen', () => {
    expect(detectClaudeSignIn(screen('sign-in-login'))).toBe('Select login method:');
    expect(detectClaudeSignIn(screen('ready'))).toBeUndefined();
  });
});

describe('detectClaudeStartup: fatal', () => {
  it('root refusal tells the user to pass --env IS_SANDBOX=1', () => {
    const state = detect('fatal-root');
    expect(state.state).toBe('fatal');
    expect(state.state === 'fatal' && state.message).toContain('--env IS_SANDBOX=1');
  });

  it('untrusted folder', () => {
    expect(detect('fatal-untrusted')).toMatchObject({ state: 'fatal', message: expect.stringContaining("isn't trusted") });
  });

  it('onboarding not completed says to run claude once by hand or seed hasCompletedOnboarding', () => {
    const state = detect('fatal-onboarding');
    expect(state.state).toBe('fatal');
    const message = state.state === 'fatal' ? state.message : '';
    expect(message).toContain('Unable to connect to Anthropic services');
    expect(message).toContain('hasCompletedOnboarding');
    expect(message).toMatch(/run `claude` once by hand/i);
  });

  it('session id already in use', () => {
    expect(detect('fatal-session-in-use')).toMatchObject({ state: 'fatal', message: expect.stringContaining('is already in use') });
  });
});

describe('detectClaudeStartup: ready', () => {
  it('is ready with a session event and the input box between rules', () => {
    expect(detect('ready')).toEqual({ state: 'ready' });
    expect(detect('early-input')).toEqual({ state: 'ready' });
  });

  it('is starting without a session event, even with the box drawn', () => {
    expect(detect('ready', [])).toEqual({ state: 'starting' });
    expect(detect('ready', [sent])).toEqual({ state: 'starting' });
  });

  it('is starting on a blank screen, and a permission dialog is not an input box', () => {
    expect(detectClaudeStartup({ screen: '\n\n', events: [session] })).toEqual({ state: 'starting' });
    expect(hasClaudeInputBox(screen('permission-dialog'))).toBe(false);
    expect(detect('permission-dialog')).toEqual({ state: 'starting' });
  });

  it('needs the rule above and a rule below the ❯ line', () => {
    expect(hasClaudeInputBox(screen('ready'))).toBe(true);
    expect(hasClaudeInputBox('────────\n❯ \n')).toBe(false);
    expect(hasClaudeInputBox('❯ \n────────\n')).toBe(false);
    expect(hasClaudeInputBox('Welcome\n❯ \n────────\n')).toBe(false);
    expect(hasClaudeInputBox('────────\n❯ first line\n  second line\n────────\n')).toBe(true);
  });
});

describe('the permission prompt on screen (doDetectInputPrompt)', () => {
  it('is seen on the permission dialog, not on the ready or early-input screens', () => {
    expect(claude.doDetectInputPrompt?.(screen('permission-dialog'))).toBe(true);
    expect(claude.doDetectInputPrompt?.(screen('ready'))).toBe(false);
    expect(claude.doDetectInputPrompt?.(screen('early-input'))).toBe(false);
    expect(claude.doDetectInputPrompt?.('● Bash(touch created-by-bash.txt)\n  ⎿  Waiting…\n')).toBe(false);
  });
});

describe('readClaudeInputBox', () => {
  const box = (...body: string[]) => ['● done', '', '─'.repeat(40), ...body, '─'.repeat(40), '  ⏵⏵ auto mode on'].join('\n');
  it('reads the text of the box, one or more lines', () => {
    expect(readClaudeInputBox(box('❯ ECHO never'))).toBe('ECHO never');
    expect(readClaudeInputBox(box('❯ first line', '  second line'))).toBe('first line\nsecond line');
    expect(readClaudeInputBox(box('❯ [Pasted text #1 +3 lines]'))).toBe('[Pasted text #1 +3 lines]');
  });
  it('is empty for an empty box or one that shows only a hint, undefined without a box', () => {
    expect(readClaudeInputBox(box('❯ '))).toBe('');
    expect(readClaudeInputBox(box('❯ Press up to edit queued messages'))).toBe('');
    expect(readClaudeInputBox(screen('ready'))).toBe('');
    expect(readClaudeInputBox(screen('permission-dialog'))).toBeUndefined();
    expect(readClaudeInputBox('')).toBeUndefined();
  });
});
