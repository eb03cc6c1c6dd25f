import { describe, expect, it } from 'vitest';
import { commandPrompt, SLASH_COMMAND } from './command-prompt.js';
import { preparePrompt } from './prompt.js';

describe('commandPrompt', () => {
  const slash = { refuse: [commandPrompt({ cli: 'acme', as: 'a slash command', hintMore: ', or send it with --command' })] };

  it('refuses a leading slash command by name, with the hint', () => {
    expect(() => preparePrompt(slash, '  /about me')).toThrow("acme would run '/about' as a slash command instead of sending it to the model");
    try {
      preparePrompt(slash, '/review:all now');
    } catch (error) {
      expect((error as { hint?: string }).hint).toBe("put a word before it, e.g. 'Please: /review:all now', or send it with --command");
    }
    expect.assertions(2);
  });

  it('leaves text that only looks like one: paths, comments, a slash later on', () => {
    for (const text of ['/tmp/x is big', '// note', '/* c */', 'see /about', '/1st']) expect(preparePrompt(slash, text)).toBe(text);
    expect(SLASH_COMMAND.exec('/compact')?.[0]).toBe('/compact');
  });

  it('takes another start (a shell escape) and cuts the hint to 40 characters of the prompt', () => {
    const bang = { refuse: [commandPrompt({ cli: 'Copilot', as: 'a local shell command', match: /^![^\n]*/ })] };
    expect(() => preparePrompt(bang, '!rm -rf x\nmore')).toThrow("Copilot would run '!rm -rf x' as a local shell command instead of sending it to the model");
    const refused = commandPrompt({ cli: 'c', as: 'x' });
    expect(refused.hint?.(`/a ${'b'.repeat(60)}`)).toBe(`put a word before it, e.g. 'Please: /a ${'b'.repeat(37)}'`);
  });
});
