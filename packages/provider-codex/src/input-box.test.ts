import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CODEX_PLACEHOLDERS } from './provider.js';
import { codex } from './provider.js';

// Screens captured through umbel's tmux substrate (200x50): the real codex 0.169.0 against the
// Responses mock, and the fake codex of test-fixtures, with drafts pasted into the composer.
const real = (name: string) => readFileSync(new URL(`./__fixtures__/screen-composer-${name}.txt`, import.meta.url), 'utf8');
const fake = (name: string) => readFileSync(new URL(`./__fixtures__/fake-screen-composer-${name}.txt`, import.meta.url), 'utf8');
const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
const box = (screen: string) => codex.doReadInputBox?.(screen);

describe('the composer (doReadInputBox) on recorded screens', () => {
  it.each([
    ['the real 0.169.0', real],
    ['the fake codex', fake],
  ])('%s: reads a draft, a multi-line draft and a collapsed paste; empty after Ctrl-C and after a turn', (_, screen) => {
    expect(box(screen('draft'))).toBe('draft one');
    expect(box(screen('draft-multiline'))).toBe('line one\nline two');
    expect(box(screen('draft-long'))).toBe('[Pasted Content 1200 chars]');
    expect(box(screen('empty'))).toBe('');
    expect(box(screen('after-clear'))).toBe('');
    // after a turn the history echoes "› ECHO recorded answer" above the composer: the composer counts
    expect(screen('after-turn')).toContain('› ECHO recorded answer');
    expect(box(screen('after-turn'))).toBe('');
  });

  it('reads every rotating placeholder as empty, and a draft that merely starts like one as text', () => {
    for (const placeholder of CODEX_PLACEHOLDERS) {
      expect(box(real('empty').replace('Ask Codex to do anything', placeholder))).toBe('');
    }
    expect(box(real('empty').replace('Ask Codex to do anything', 'Explain this codebase to me'))).toBe('Explain this codebase to me');
  });

  it('sees no composer on a dialog, the approval prompt, the sign-in screen or before the status line', () => {
    for (const name of ['screen-approval.txt', 'screen-trust.txt', 'screen-hooks-review.txt', 'screen-sign-in.txt', 'screen-composer-only.txt']) {
      expect(box(fixture(name)), name).toBeUndefined();
    }
    expect(box('')).toBeUndefined();
    // the approval options are not a composer, even with a status line drawn under them
    expect(box(`${fixture('screen-approval.txt')}\n\n  mock-model default · /w`)).toBeUndefined();
  });

  it('clears with Ctrl-C, which the engine presses only while the composer holds text (on an empty one it quits codex)', () => {
    expect(codex.input?.clearKeys).toEqual(['C-c']);
  });

  it('is ready on the recorded composer screens, once the status line is drawn', () => {
    expect(codex.doDetectStartup({ screen: real('empty'), events: [] })).toEqual({ state: 'ready' });
    expect(codex.doDetectStartup({ screen: fake('empty'), events: [] })).toEqual({ state: 'ready' });
  });
});
