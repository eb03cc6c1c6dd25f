import { describe, expect, it } from 'vitest';
import { ScaffoldError, scaffoldNames } from './names.js';

describe('scaffoldNames', () => {
  it('derives the folder, the provider id and the demo CLI names from NAME', () => {
    expect(scaffoldNames('umbel-provider-acme')).toEqual({
      name: 'umbel-provider-acme',
      dir: 'umbel-provider-acme',
      id: 'acme',
      title: 'Acme',
      bin: 'acme-agent',
      binEnv: 'UMBEL_ACME_BIN',
      homeEnv: 'ACME_AGENT_HOME',
    });
    expect(scaffoldNames('@me/umbel-provider-big-co')).toMatchObject({
      dir: 'umbel-provider-big-co',
      id: 'big-co',
      title: 'Big Co',
      binEnv: 'UMBEL_BIG_CO_BIN',
    });
    expect(scaffoldNames('acme2')).toMatchObject({ dir: 'acme2', id: 'acme2' });
  });

  it.each([
    ['Acme', 'not a valid npm package name'],
    ['umbel provider', 'not a valid npm package name'],
    ['.hidden', 'not a valid npm package name'],
    ['@scope', 'not a valid npm package name'],
    [`a${'b'.repeat(214)}`, 'not a valid npm package name'],
    ['umbel-provider-', "provider id ''"],
    ['umbel-provider-a_b', "provider id 'a_b'"],
    ['umbel-provider-1x', "provider id '1x'"],
    ['umbel-provider-claude', 'built-in provider'],
    ['opencode', 'built-in provider'],
    ['umbel-provider-qwen', 'built-in provider'],
  ])('refuses %s: %s', (name, message) => {
    expect(() => scaffoldNames(name)).toThrow(ScaffoldError);
    expect(() => scaffoldNames(name)).toThrow(message);
  });
});
