import { describe, expect, it } from 'vitest';
import type { InstalledHook } from './facts.js';
import { settingsWithHooks } from './hook-settings.js';

const hooks: InstalledHook[] = [{ event: 'Stop', kind: 'stop', command: "'/s/umbel-hook' stop" }];
const mine = { matcher: '', hooks: [{ type: 'command', command: "'/s/umbel-hook' stop", name: 'umbel-stop' }] };

describe('settingsWithHooks', () => {
  it("appends umbel's hooks to the base's own and deep-merges the values set, the base never changed", () => {
    const base = { theme: 'dark', hooks: { Stop: [{ hooks: [{ type: 'command', command: 'mine' }] }] }, general: { vim: true, enableAutoUpdate: true } };
    const before = structuredClone(base);
    const settings = settingsWithHooks(base, hooks, { matcher: '', fields: (h) => ({ name: `umbel-${h.kind}` }) }, { general: { enableAutoUpdate: false } });
    expect(settings).toEqual({
      theme: 'dark',
      hooks: { Stop: [{ hooks: [{ type: 'command', command: 'mine' }] }, mine] },
      general: { vim: true, enableAutoUpdate: false },
    });
    expect(base).toEqual(before);
    (settings.general as { vim: boolean }).vim = false;
    expect(base.general.vim).toBe(true);
  });

  it('a base without hooks (or with hooks that are no object) gets only umbel’s', () => {
    const shape = { matcher: '', fields: () => ({ name: 'umbel-stop' }) };
    expect(settingsWithHooks({}, hooks, shape)).toEqual({ hooks: { Stop: [mine] } });
    expect(settingsWithHooks({ hooks: 'x', general: 3 }, hooks, shape, { general: { a: 1 } })).toEqual({ hooks: { Stop: [mine] }, general: { a: 1 } });
  });
});
