import { describe, expect, it } from 'vitest';
import { argvCommandLine } from './argv.js';

describe('argvCommandLine', () => {
  it('unwraps a shell running one command line', () => {
    expect(argvCommandLine(['bash', '-lc', 'ls -la && echo "done"'])).toBe('ls -la && echo "done"');
    expect(argvCommandLine(['/bin/sh', '-c', 'git status'])).toBe('git status');
    expect(argvCommandLine(['zsh', '-l', 'x'])).toBe('zsh -l x');
  });

  it('quotes the words of any other argv where a shell needs it, dropping non-strings', () => {
    expect(argvCommandLine(['rg', '-n', 'it works', 7, "it's", 'a,b/c.ts'])).toBe(`rg -n 'it works' 'it'\\''s' a,b/c.ts`);
    expect(argvCommandLine([])).toBe('');
  });
});
