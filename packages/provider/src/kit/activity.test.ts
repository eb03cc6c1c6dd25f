import { describe, expect, it } from 'vitest';
import { toolActivity } from './activity.js';

describe('toolActivity', () => {
  it('names the tool and the first non-empty string argument among the keys, in their order', () => {
    const keys = ['command', 'filePath', 'url'];
    expect(toolActivity('bash', { filePath: '/w/a', command: 'ls -l' }, keys)).toBe('bash: ls -l');
    expect(toolActivity('read', { command: '', filePath: '/w/a' }, keys)).toBe('read: /w/a');
    expect(toolActivity('fetch', { details: { url: 'https://x' } }, ['details.url'])).toBe('fetch: https://x');
  });

  it('the tool alone when no key holds a string, or the arguments are not an object', () => {
    expect(toolActivity('glob', { pattern: 3, command: '' }, ['command', 'pattern'])).toBe('glob');
    expect(toolActivity('task', undefined, ['command'])).toBe('task');
    expect(toolActivity('task', ['ls'], ['0'])).toBe('task');
  });
});
