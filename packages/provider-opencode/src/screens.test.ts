import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { opencode, PERMISSION_PROMPT } from './provider.js';
import { readOpencodeInputBox } from './screens.js';

// Screens captured through umbel's tmux substrate (capture, 200x50): the real opencode 1.18.33 against
// the chat mock and the fake opencode of test-fixtures, with drafts pasted into the input box.
const real = (name: string) => readFileSync(new URL(`./__fixtures__/real-1.18.33-screen-${name}.txt`, import.meta.url), 'utf8');
const fake = (name: string) => readFileSync(new URL(`./__fixtures__/fake-screen-${name}.txt`, import.meta.url), 'utf8');

describe('the input box (doReadInputBox) on recorded screens', () => {
  it.each([
    ['the real 1.18.33', real],
    ['the fake opencode', fake],
  ])('%s: the placeholder is empty, a draft and a multi-line draft read as text, empty after Ctrl-C and after a turn', (_, screen) => {
    expect(readOpencodeInputBox(screen('ready'))).toBe('');
    expect(readOpencodeInputBox(screen('draft'))).toBe('draft one');
    expect(readOpencodeInputBox(screen('draft-multiline'))).toBe('line one\nline two\n\n  indented');
    expect(readOpencodeInputBox(screen('after-clear'))).toBe('');
    // after a turn the history shows the prompt in a ┃ box above: the input box at the bottom counts
    expect(screen('after-turn')).toMatch(/┃ {2}ECHO recorded `code` \*\*bold\*\*|recorded code bold/);
    expect(readOpencodeInputBox(screen('after-turn'))).toBe('');
    expect(readOpencodeInputBox(screen('after-reject'))).toBe('');
    // the permission dialog takes the box's place: no box
    expect(readOpencodeInputBox(screen('permission'))).toBeUndefined();
    expect(PERMISSION_PROMPT.test(screen('permission'))).toBe(true);
    expect(PERMISSION_PROMPT.test(screen('after-turn'))).toBe(false);
  });

  it('no box on a blank or loading screen; the provider clears a draft with Ctrl-C (pressed only while text remains)', () => {
    expect(readOpencodeInputBox('')).toBeUndefined();
    expect(readOpencodeInputBox('  (loading…)')).toBeUndefined();
    expect(opencode.doReadInputBox?.(real('draft'))).toBe('draft one');
    expect(opencode.input?.clearKeys).toEqual(['C-c']);
    expect(opencode.doDetectInputPrompt?.(real('permission'))).toBe(true);
    expect(opencode.doDetectInputPrompt?.(real('ready'))).toBe(false);
  });
});
