import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUmbel, OptionUnsupportedError, type ProviderV1ValidateOptions, UmbelErrorCode } from '@umbel/core';
import { createMemorySubstrate } from '@umbel/core/testing';
import { describe, expect, it } from 'vitest';
import { CLAUDE_PERMISSION_MODES } from './facts.js';
import { claude } from './provider.js';

const validateClaudeOptions = (options: { spawn: Omit<ProviderV1ValidateOptions['spawn'], 'cwd' | 'callerEnv'>; isRoot: boolean }) =>
  claude.doValidate?.({ spawn: { cwd: '/w', callerEnv: {}, ...options.spawn }, isRoot: options.isRoot });

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

describe('permission modes', () => {
  it('accepts every documented mode', () => {
    expect(claude.capabilities.permissionModes).toEqual(CLAUDE_PERMISSION_MODES);
    for (const mode of CLAUDE_PERMISSION_MODES) {
      expect(() => validateClaudeOptions({ spawn: spawn({ permissionMode: mode }), isRoot: false })).not.toThrow();
    }
  });

  it('an unknown mode is refused before any I/O, with the valid ones listed (the engine checks the capabilities)', async () => {
    const home = await mkdtemp(join(tmpdir(), 'umbel-claude-modes-'));
    try {
      const substrate = createMemorySubstrate();
      const umbel = createUmbel({ substrate, providers: [claude], home, env: { PATH: '/nonexistent' } });
      const error = await umbel.spawn({ name: 'm', provider: 'claude', cwd: home, permissionMode: 'yolo' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OptionUnsupportedError);
      expect((error as Error).message).toContain('--permission-mode yolo');
      for (const mode of CLAUDE_PERMISSION_MODES) expect((error as Error).message).toContain(mode);
      expect(substrate.launches).toHaveLength(0);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
