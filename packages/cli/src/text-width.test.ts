import { afterEach, describe, expect, it, vi } from 'vitest';

afterEach(() => {
  vi.resetModules();
});

describe('textWidth (the bundled yargs lays out help with it)', () => {
  it('counts terminal columns: escapes and zero-width marks none, wide characters and emoji two', async () => {
    const { default: textWidth } = await import('./text-width.js');
    expect(textWidth('umbel status --json')).toBe(19);
    expect(textWidth('')).toBe(0);
    expect(textWidth('\u001b[1mbold\u001b[22m \u001b[31mred\u001b[39m')).toBe(8);
    expect(textWidth('\u001b]8;;https://x.dev\u0007link\u001b]8;;\u0007')).toBe(4);
    expect(textWidth('日本語')).toBe(6);
    expect(textWidth('ｆｕｌｌ')).toBe(8);
    expect(textWidth('e\u0301')).toBe(1);
    expect(textWidth('a\u200bb')).toBe(2);
    expect(textWidth('👍')).toBe(2);
    expect(textWidth('👨‍👩‍👧')).toBe(2);
    expect(textWidth('✔︎ done')).toBe(6);
    expect(textWidth('\u0007bell')).toBe(4);
    expect(textWidth('\u001b[1mx\u001b[0m', { countAnsiEscapeCodes: true })).toBe(7); // ESC itself is a control: no column
  });

  it('builds no Unicode tables until a text needs them (they cost a command start ~30 ms)', async () => {
    const Real = Intl.Segmenter;
    const intl = Intl as { Segmenter: typeof Intl.Segmenter };
    let made = 0;
    intl.Segmenter = class extends Real {
      constructor(...args: ConstructorParameters<typeof Real>) {
        super(...args);
        made += 1;
      }
    };
    try {
      const { default: textWidth } = await import('./text-width.js');
      expect(textWidth('  --json   Print JSON   [boolean]')).toBe(33);
      expect(textWidth('\u001b[2mdim\u001b[22m')).toBe(3);
      expect(made).toBe(0);
      expect(textWidth('日本')).toBe(4);
      expect(textWidth('日本')).toBe(4);
      expect(made).toBe(1);
    } finally {
      intl.Segmenter = Real;
    }
  });
});
