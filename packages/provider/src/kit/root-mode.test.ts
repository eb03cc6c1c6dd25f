import { describe, expect, it } from 'vitest';
import { OptionUnsupportedError } from '../errors.js';
import { refuseModeAsRoot } from './root-mode.js';

const validate = refuseModeAsRoot({
  provider: 'acme',
  mode: 'yolo',
  flag: '--mode',
  unattended: true,
  unless: { env: 'IS_SANDBOX', value: '1' },
  hint: 'pass --env IS_SANDBOX=1',
});
const run = (spawn: { permissionMode?: string; unattended?: boolean; env?: Record<string, string> }, isRoot = true) =>
  validate({
    spawn: {
      cwd: '/w',
      callerEnv: {},
      unattended: spawn.unattended ?? false,
      env: spawn.env ?? {},
      ...(spawn.permissionMode ? { permissionMode: spawn.permissionMode } : {}),
    },
    isRoot,
  });

describe('refuseModeAsRoot', () => {
  it('refuses the mode as root, given or meant by unattended, naming which with the hint', () => {
    expect(() => run({ unattended: true })).toThrow(OptionUnsupportedError);
    expect(() => run({ unattended: true })).toThrow(/unattended mode \(--mode yolo\) when running as root[\s\S]*IS_SANDBOX=1/);
    expect(() => run({ permissionMode: 'yolo' })).toThrow(/permission mode yolo when running as root/);
  });

  it('lets it pass with the variable at exactly its value, when not root, or in another mode', () => {
    expect(() => run({ unattended: true, env: { IS_SANDBOX: '1' } })).not.toThrow();
    expect(() => run({ unattended: true, env: { IS_SANDBOX: 'yes' } })).toThrow(OptionUnsupportedError);
    expect(() => run({ unattended: true }, false)).not.toThrow();
    expect(() => run({ unattended: true, permissionMode: 'safe' })).not.toThrow();
    expect(() => run({})).not.toThrow();
  });

  it('unattended means the mode only when the facts say so', () => {
    const other = refuseModeAsRoot({ provider: 'acme', mode: 'yolo', flag: '--mode', unattended: false, unless: { env: 'S', value: '1' }, hint: '' });
    expect(() => other({ spawn: { cwd: '/w', callerEnv: {}, unattended: true, env: {} }, isRoot: true })).not.toThrow();
  });
});
