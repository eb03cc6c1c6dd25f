import { describe, expect, it } from 'vitest';
import { unsafeConfigMode } from './config-mode.js';

describe('unsafeConfigMode: a config file others can write is refused, like ssh', () => {
  it('refuses group- or world-writable files and another user’s file; allows 0600, 0644, 0400 of self or root', () => {
    expect(unsafeConfigMode({ mode: 0o100666, uid: 1000 }, 1000)).toMatch(/writable by group and others \(mode 0666\)/);
    expect(unsafeConfigMode({ mode: 0o100620, uid: 1000 }, 1000)).toMatch(/writable by group \(mode 0620\)/);
    expect(unsafeConfigMode({ mode: 0o100602, uid: 1000 }, 1000)).toMatch(/writable by others/);
    expect(unsafeConfigMode({ mode: 0o100644, uid: 1001 }, 1000)).toMatch(/owned by another user \(uid 1001\)/);
    for (const mode of [0o100600, 0o100644, 0o100400]) {
      expect(unsafeConfigMode({ mode, uid: 1000 }, 1000)).toBeUndefined();
      expect(unsafeConfigMode({ mode, uid: 0 }, 1000)).toBeUndefined();
    }
  });
});
