import { describe, expect, it } from 'vitest';
import type { HookEvent } from '../spec.js';
import { permissionAsk } from './permission.js';

const ev = (kind: HookEvent['kind']): HookEvent => ({ kind, payload: {} }) as HookEvent;

describe('permissionAsk', () => {
  const plain = permissionAsk({ tool: 'tool_name', what: ['tool_input.description', 'tool_input.command'] });
  const asks = permissionAsk({ tool: 'permission', what: ['metadata.command', 'patterns'], asks: 'acme' });

  it('reads the tool and the first non-empty field of what it would do', () => {
    const payload = { tool_name: 'Bash', tool_input: { description: '', command: 'rm -rf x' } };
    expect(plain(ev('permission'), payload)).toEqual({ kind: 'permission', message: 'rm -rf x', tool: 'Bash' });
    expect(plain(ev('permission'), {})).toEqual({ kind: 'permission' });
  });

  it('words the message for `asks`, joining a list of strings', () => {
    expect(asks(ev('permission'), { permission: 'edit', patterns: ['a.ts', 7, 'b.ts'] })).toEqual({
      kind: 'permission',
      message: 'acme asks to use edit: a.ts, b.ts',
      tool: 'edit',
    });
    expect(asks(ev('permission'), { patterns: [] })).toEqual({ kind: 'permission', message: 'acme asks to use a tool' });
  });

  it('says nothing for other kinds', () => {
    expect(plain(ev('notify'), { tool_name: 'Bash' })).toBeUndefined();
  });
});
