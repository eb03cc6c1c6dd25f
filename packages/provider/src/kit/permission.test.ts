import { describe, expect, it } from 'vitest';
import type { HookEvent } from '../spec.js';
import { permissionInput } from './permission.js';

const event = (kind: HookEvent['kind']) => ({ kind }) as HookEvent;

describe('permissionInput', () => {
  const notifying = permissionInput({
    notify: { field: 'notification_type', value: 'ToolPermission' },
    tool: ['details.rootCommand', 'tool_name'],
    what: ['details.command'],
    message: 'message',
    fallback: 'the CLI asks',
  });

  it('a notification of the permission type asks: the tool, its command after the message', () => {
    const p = { notification_type: 'ToolPermission', message: 'Allow?', tool_name: 'run_shell_command', details: { command: 'rm x', rootCommand: 'rm' } };
    expect(notifying(event('notify'), p)).toEqual({ kind: 'permission', tool: 'rm', message: 'Allow?: rm x' });
    expect(notifying(event('notify'), { notification_type: 'ToolPermission' })).toEqual({ kind: 'permission', message: 'the CLI asks' });
  });

  it('another notification is informational; a permission event always asks', () => {
    expect(notifying(event('notify'), { notification_type: 'Idle', message: 'waiting' })).toBeUndefined();
    expect(permissionInput({ tool: ['t'], fallback: 'x' })(event('notify'), { t: 'bash' })).toBeUndefined();
    expect(notifying(event('permission'), { tool_name: 'edit' })).toEqual({ kind: 'permission', tool: 'edit', message: 'the CLI asks' });
  });

  it('words the fallback with the tool (or "a tool") and skips empty fields', () => {
    const asks = permissionInput({ tool: ['toolName'], what: ['toolInput.command', 'toolInput.path'], fallback: 'Acme asks to use {tool}' });
    expect(asks(event('permission'), { toolName: 'bash', toolInput: { command: '', path: '/w/a' } })).toEqual({
      kind: 'permission',
      tool: 'bash',
      message: 'Acme asks to use bash: /w/a',
    });
    expect(asks(event('permission'), {})).toEqual({ kind: 'permission', message: 'Acme asks to use a tool' });
  });

  it('with an empty fallback the message is what it would do alone; a list of strings is joined', () => {
    const plain = permissionInput({ tool: ['tool_name'], what: ['tool_input.description', 'tool_input.command'], fallback: '' });
    expect(plain(event('permission'), { tool_name: 'Bash', tool_input: { description: '', command: 'rm -rf x' } })).toEqual({
      kind: 'permission',
      message: 'rm -rf x',
      tool: 'Bash',
    });
    expect(plain(event('permission'), {})).toEqual({ kind: 'permission' });
    const listed = permissionInput({ tool: ['permission'], what: ['metadata.command', 'patterns'], fallback: 'acme asks to use {tool}' });
    expect(listed(event('permission'), { permission: 'edit', patterns: ['a.ts', 7, 'b.ts'] })).toEqual({
      kind: 'permission',
      message: 'acme asks to use edit: a.ts, b.ts',
      tool: 'edit',
    });
    expect(listed(event('permission'), { patterns: [] })).toEqual({ kind: 'permission', message: 'acme asks to use a tool' });
  });
});
