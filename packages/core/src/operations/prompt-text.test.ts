import { describe, expect, it } from 'vitest';
import { inputBoxText } from './prompt-text.js';

describe('inputBoxText: a prompt can never type keys', () => {
  it('keeps every printable character, the newline and the tab byte-exact', () => {
    const text = 'line one\n\tindented "q" $HOME `t` ünïcödé 🚀 \u00a0\u2028 ~[201~';
    expect(inputBoxText(text)).toBe(text);
  });

  it('shows paste terminators and other control sequences as control pictures', () => {
    expect(inputBoxText('\x1b[201~!touch FILE')).toBe('\u241b[201~!touch FILE');
    expect(inputBoxText('a\x1b[200~b\x1b[201~/exit')).toBe('a\u241b[200~b\u241b[201~/exit');
    expect(inputBoxText('\x00\x03\x04\x08\x0b\x0c\x1b\x1f\x7f')).toBe('\u2400\u2403\u2404\u2408\u240b\u240c\u241b\u241f\u2421');
  });

  it('turns CR and CRLF into a newline and C1 controls into U+FFFD', () => {
    expect(inputBoxText('a\r\nb\rc\n')).toBe('a\nb\nc\n');
    expect(inputBoxText('x\u009b201~y\u0080\u009f')).toBe('x\ufffd201~y\ufffd\ufffd');
  });

  it('leaves no character below U+0020 but newline and tab, nor any in U+007F–U+009F', () => {
    const all = Array.from({ length: 0xa0 }, (_, i) => String.fromCharCode(i)).join('');
    expect(inputBoxText(all)).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\r]/);
  });
});
