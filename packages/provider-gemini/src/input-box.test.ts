import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { gemini } from './provider.js';

// Screens captured through umbel's tmux substrate (200x50): the real gemini 0.61.0 against the
// Gemini API mock, and the fake gemini of test-fixtures, with drafts pasted into the input box.
const real = (name: string) => readFileSync(new URL(`./__fixtures__/real-0.61.0-screen-box-${name}.txt`, import.meta.url), 'utf8');
const fake = (name: string) => readFileSync(new URL(`./__fixtures__/fake-screen-box-${name}.txt`, import.meta.url), 'utf8');
const box = (screen: string) => gemini.doReadInputBox?.(screen);

describe('the input box (doReadInputBox) on recorded screens', () => {
  it.each([
    ['the real 0.61.0', real, '[Pasted Text: 1200 chars]'],
    ['the fake gemini', fake, 'x'.repeat(1200)],
  ])('%s: reads a draft, a multi-line draft and a long paste; empty after Ctrl-C and after a turn', (_, screen, long) => {
    expect(box(screen('draft'))).toBe('draft one');
    expect(box(screen('draft-multiline'))).toBe('line one\nline two');
    expect(box(screen('draft-long'))).toBe(long);
    expect(box(screen('empty'))).toBe('');
    expect(box(screen('after-clear'))).toBe('');
    // after a turn the history echoes " > ECHO recorded answer" above the box: the box counts
    expect(screen('after-turn')).toContain(' > ECHO recorded answer');
    expect(box(screen('after-turn'))).toBe('');
  });

  it('reads the yolo and shell-mode boxes, and sees no box on the auth dialog or a blank screen', () => {
    const yolo = real('draft').replace(' > draft one', ' * draft one');
    expect(box(yolo)).toBe('draft one');
    // a continuation line that starts like a prompt (a quote) is still part of the box
    expect(box(real('draft-multiline').replace('   line two', '   > quoted'))).toBe('line one\n> quoted');
    expect(box(real('empty').replace(' >   Type your message or @path/to/file', ' !   Type your shell command'))).toBe('');
    expect(box('│   How would you like to authenticate for this project? │\n│   ● 2. Use Gemini API Key │')).toBeUndefined();
    expect(box('')).toBeUndefined();
  });

  it('clears with Ctrl-C, pressed only while the box holds text (on an empty box it arms the exit; Esc Esc would open rewind)', () => {
    expect(gemini.input?.clearKeys).toEqual(['C-c']);
  });
});

describe('usage', () => {
  it('comes out in the neutral names, and the legacy record in Claude names (never input_tokens 0 beside input 7)', () => {
    const content = readFileSync(new URL('./__fixtures__/real-0.61.0-session.jsonl', import.meta.url), 'utf8');
    const read = gemini.doReadTurn({
      content,
      transcriptPath: '/c.jsonl',
      prompt: 'ECHO see @existing.txt now',
      turnKey: '2026-11-29T21:54:22.393Z',
      ordinal: 7,
      stopSeen: true,
    });
    expect(read).toMatchObject({ status: 'completed', tokenUsage: { inputTokens: 7, outputTokens: 6 } });
    expect(read.status === 'completed' && read.usage).toEqual({ input_tokens: 7, output_tokens: 6, cache_read_input_tokens: 0, reasoningTokens: 0 });
  });
});
