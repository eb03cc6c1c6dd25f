import { OptionUnsupportedError, UmbelErrorCode, UsageError } from '@umbel/core';
import { describe, expect, it } from 'vitest';
import { CLAUDE_PERMISSION_MODES, effectivePermissionMode, validateClaudeOptions } from './validate.js';

const spawn = (over: { permissionMode?: string; unattended?: boolean; env?: Record<string, string> } = {}) => ({
  unattended: over.unattended ?? false,
  env: over.env ?? {},
  ...(over.permissionMode === undefined ? {} : { permissionMode: over.permissionMode }),
});

function thrown(fn: () => void): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('validateClaudeOptions: bypass mode as root', () => {
  it('refuses unattended as root without IS_SANDBOX=1, telling the user to pass it themselves', () => {
    const error = thrown(() => validateClaudeOptions({ spawn: spawn({ unattended: true }), isRoot: true }));
    expect(error).toBeInstanceOf(OptionUnsupportedError);
    const message = (error as Error).message;
    expect(message).toContain('refuses bypass mode as root unless IS_SANDBOX=1');
    expect(message).toContain('--env IS_SANDBOX=1');
    expect((error as OptionUnsupportedError).code).toBe(UmbelErrorCode.OptionUnsupported);
  });

  it('refuses an explicit bypassPermissions as root', () => {
    expect(() => validateClaudeOptions({ spawn: spawn({ permissionMode: 'bypassPermissions' }), isRoot: true })).toThrow(OptionUnsupportedError);
  });

  it('accepts bypass as root with IS_SANDBOX=1 exactly (not "yes")', () => {
    expect(() => validateClaudeOptions({ spawn: spawn({ unattended: true, env: { IS_SANDBOX: '1' } }), isRoot: true })).not.toThrow();
    expect(() => validateClaudeOptions({ spawn: spawn({ unattended: true, env: { IS_SANDBOX: 'yes' } }), isRoot: true })).toThrow(OptionUnsupportedError);
  });

  it('accepts bypass when not root, and unattended with an explicit non-bypass mode as root', () => {
    expect(() => validateClaudeOptions({ spawn: spawn({ unattended: true }), isRoot: false })).not.toThrow();
    expect(() => validateClaudeOptions({ spawn: spawn({ unattended: true, permissionMode: 'acceptEdits' }), isRoot: true })).not.toThrow();
    expect(() => validateClaudeOptions({ spawn: spawn(), isRoot: true })).not.toThrow();
  });
});

describe('validateClaudeOptions: permission modes', () => {
  it('accepts every documented mode', () => {
    for (const mode of CLAUDE_PERMISSION_MODES) {
      expect(() => validateClaudeOptions({ spawn: spawn({ permissionMode: mode }), isRoot: false })).not.toThrow();
    }
  });

  it('refuses an unknown mode with a UsageError listing the valid ones', () => {
    const error = thrown(() => validateClaudeOptions({ spawn: spawn({ permissionMode: 'yolo' }), isRoot: false }));
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain("'yolo'");
    for (const mode of CLAUDE_PERMISSION_MODES) expect((error as Error).message).toContain(mode);
  });

  it('maps unattended to bypassPermissions unless a mode is explicit', () => {
    expect(effectivePermissionMode({ unattended: true })).toBe('bypassPermissions');
    expect(effectivePermissionMode({ unattended: true, permissionMode: 'plan' })).toBe('plan');
    expect(effectivePermissionMode({ unattended: false })).toBeUndefined();
  });
});
