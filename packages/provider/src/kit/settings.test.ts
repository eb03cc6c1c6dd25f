import { describe, expect, it } from 'vitest';
import type { InstalledHook } from './facts.js';
import { commandHooks, jsonFile } from './settings.js';

const hooks: InstalledHook[] = [
  { event: 'Stop', kind: 'stop', command: "'/s/umbel-hook' stop" },
  { event: 'SessionStart', kind: 'session', command: "'/s/umbel-hook' session" },
];

describe('commandHooks', () => {
  it('writes one command entry per hook, with the matcher and fields asked for', () => {
    expect(commandHooks(hooks, { matcher: '*' })).toEqual({
      Stop: [{ matcher: '*', hooks: [{ type: 'command', command: "'/s/umbel-hook' stop" }] }],
      SessionStart: [{ matcher: '*', hooks: [{ type: 'command', command: "'/s/umbel-hook' session" }] }],
    });
    expect(commandHooks(hooks.slice(0, 1), { fields: (h) => ({ name: `umbel-${h.kind}`, timeout: 30 }) })).toEqual({
      Stop: [{ hooks: [{ type: 'command', command: "'/s/umbel-hook' stop", name: 'umbel-stop', timeout: 30 }] }],
    });
  });

  it("appends to a user's own entries and keeps their other events, without changing them", () => {
    const mine = { Stop: [{ matcher: '', hooks: [{ type: 'command', command: 'notify-send done' }] }], Other: [{ x: 1 }] };
    const before = structuredClone(mine);
    const out = commandHooks(hooks.slice(0, 1), { matcher: '' }, mine);
    expect(out.Stop).toEqual([...mine.Stop, { matcher: '', hooks: [{ type: 'command', command: "'/s/umbel-hook' stop" }] }]);
    expect(out.Other).toEqual([{ x: 1 }]);
    expect(mine).toEqual(before);
  });

  it('takes a non-object or a non-list as none', () => {
    expect(commandHooks(hooks.slice(0, 1), {}, 'nonsense')).toEqual({ Stop: [{ hooks: [{ type: 'command', command: "'/s/umbel-hook' stop" }] }] });
    expect(commandHooks(hooks.slice(0, 1), {}, { Stop: 'x' })).toEqual({ Stop: [{ hooks: [{ type: 'command', command: "'/s/umbel-hook' stop" }] }] });
  });
});

describe('jsonFile', () => {
  it('is 2-space JSON with a final newline, private unless told', () => {
    expect(jsonFile('/w/s.json', { a: [1] })).toEqual({ path: '/w/s.json', content: '{\n  "a": [\n    1\n  ]\n}\n', mode: 0o600 });
    expect(jsonFile('/w/s.json', {}, 0o644).mode).toBe(0o644);
  });
});
