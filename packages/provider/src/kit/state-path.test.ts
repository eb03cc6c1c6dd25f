import { describe, expect, it } from 'vitest';
import { statePath } from './state-path.js';

describe('statePath', () => {
  const place = { path: '~/.acme', env: 'ACME_HOME' };

  it('the variable that moves the path wins when set', () => {
    expect(statePath(place, { ACME_HOME: '/cfg', HOME: '/home/u' })).toBe('/cfg');
  });

  it('else `~/` is the env’s HOME', () => {
    expect(statePath(place, { ACME_HOME: '', HOME: '/home/u' })).toBe('/home/u/.acme');
    expect(statePath({ path: '~/.acme.json' }, { HOME: '/home/u', ACME_HOME: '/x' })).toBe('/home/u/.acme.json');
  });

  it('undefined without a HOME for a `~/` path; an absolute path as it is', () => {
    expect(statePath(place, {})).toBeUndefined();
    expect(statePath({ path: '/etc/acme' }, {})).toBe('/etc/acme');
  });
});
