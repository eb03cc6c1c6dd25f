import { describe, expect, it } from 'vitest';
import type { HookEvent } from '../spec.js';
import { notificationInput } from './notification.js';

const read = notificationInput({
  type: 'notification_type',
  kinds: { permission_prompt: 'permission', worker_permission_prompt: 'permission', idle_prompt: 'idle' },
  message: 'message',
  toolIn: { worker_permission_prompt: /needs permission for (\S+)/ },
});
const notify = (payload: Record<string, unknown>) => read({ kind: 'notify', at: 1n, payload } as HookEvent, payload);

describe('notificationInput', () => {
  it('maps the asking types to their kind with the message', () => {
    expect(notify({ notification_type: 'idle_prompt', message: 'waiting' })).toEqual({ kind: 'idle', message: 'waiting' });
    expect(notify({ notification_type: 'permission_prompt' })).toEqual({ kind: 'permission' });
  });

  it('takes the tool from the message only for a type with a pattern, an empty message is none', () => {
    expect(notify({ notification_type: 'worker_permission_prompt', message: 'w needs permission for Bash' })).toEqual({
      kind: 'permission',
      tool: 'Bash',
      message: 'w needs permission for Bash',
    });
    expect(notify({ notification_type: 'permission_prompt', message: 'x needs permission for Bash' })).toEqual({
      kind: 'permission',
      message: 'x needs permission for Bash',
    });
    expect(notify({ notification_type: 'idle_prompt', message: '' })).toEqual({ kind: 'idle' });
  });

  it('is undefined for other types, inherited names, and other event kinds', () => {
    expect(notify({ notification_type: 'auth_success', message: 'ok' })).toBeUndefined();
    expect(notify({ notification_type: 'toString' })).toBeUndefined();
    expect(notify({ message: 'no type' })).toBeUndefined();
    expect(read({ kind: 'permission', at: 1n, payload: {} } as HookEvent, { notification_type: 'idle_prompt' })).toBeUndefined();
    expect(read({ kind: 'stop', at: 1n, payload: {} } as HookEvent, { notification_type: 'idle_prompt' })).toBeUndefined();
  });

  it('a permission event with permission facts: the tool and its argument, or the kind alone without a tool', () => {
    const ask = notificationInput({
      type: 'notification_type',
      kinds: {},
      permission: { tool: 'tool_name', input: 'tool_input', fields: ['command', 'file_path'] },
    });
    const permission = (payload: Record<string, unknown>) => ask({ kind: 'permission', at: 1n, payload } as HookEvent, payload);
    expect(permission({ tool_name: 'Bash', tool_input: { command: 'touch x' } })).toEqual({ kind: 'permission', tool: 'Bash', message: 'Bash: touch x' });
    expect(permission({ tool_name: 'Read', tool_input: { other: 1 } })).toEqual({ kind: 'permission', tool: 'Read', message: 'Read' });
    expect(permission({ tool_input: { command: 'ls' } })).toEqual({ kind: 'permission' });
  });
});
