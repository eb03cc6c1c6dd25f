import { OptionUnsupportedError, UsageError } from '@umbel/core';

/** Permission modes `claude --permission-mode` accepts (claude-code.md §6.1; `default` = `manual`). */
export const CLAUDE_PERMISSION_MODES = ['default', 'acceptEdits', 'plan', 'auto', 'dontAsk', 'bypassPermissions', 'manual'] as const;
/** One of {@link CLAUDE_PERMISSION_MODES}. */
export type ClaudePermissionMode = (typeof CLAUDE_PERMISSION_MODES)[number];

/** True when `mode` is a permission mode Claude Code accepts. */
export function isClaudePermissionMode(mode: string): mode is ClaudePermissionMode {
  return (CLAUDE_PERMISSION_MODES as readonly string[]).includes(mode);
}

/**
 * The permission mode a worker runs in: the explicit one, else `bypassPermissions` when unattended,
 * else undefined (Claude Code's own default).
 */
export function effectivePermissionMode(options: { readonly permissionMode?: string; readonly unattended: boolean }): string | undefined {
  return options.permissionMode ?? (options.unattended ? 'bypassPermissions' : undefined);
}

/** The options `validateClaudeOptions` looks at. */
export interface ClaudeValidateOptions {
  readonly spawn: {
    readonly permissionMode?: string;
    readonly unattended: boolean;
    readonly env: Readonly<Record<string, string>>;
  };
  readonly isRoot: boolean;
}

/**
 * Refuse, before any I/O, what Claude Code would refuse later:
 * - an unknown `permissionMode` (UsageError listing the valid ones);
 * - bypass mode (unattended, or `permissionMode: bypassPermissions`) as root without `IS_SANDBOX=1` in
 *   the worker env: Claude Code exits with "cannot be used with root/sudo privileges". umbel never
 *   sets `IS_SANDBOX` itself; the user must pass `--env IS_SANDBOX=1`.
 */
export function validateClaudeOptions(options: ClaudeValidateOptions): void {
  const { permissionMode } = options.spawn;
  if (permissionMode !== undefined && !isClaudePermissionMode(permissionMode)) {
    throw new UsageError(`unknown permission mode '${permissionMode}' for Claude Code (valid: ${CLAUDE_PERMISSION_MODES.join(', ')})`, {
      hint: `pass one of: ${CLAUDE_PERMISSION_MODES.join(', ')}`,
    });
  }
  const mode = effectivePermissionMode(options.spawn);
  if (mode === 'bypassPermissions' && options.isRoot && options.spawn.env.IS_SANDBOX !== '1') {
    const option = permissionMode === undefined ? 'unattended mode (--permission-mode bypassPermissions)' : 'permission mode bypassPermissions';
    throw new OptionUnsupportedError(
      'claude',
      `${option} when running as root`,
      'Claude Code refuses bypass mode as root unless IS_SANDBOX=1 is set in its environment. ' +
        'If this machine is a disposable sandbox, pass --env IS_SANDBOX=1 yourself (umbel never sets it for you); ' +
        'otherwise run umbel as a non-root user or choose another --permission-mode',
    );
  }
}
