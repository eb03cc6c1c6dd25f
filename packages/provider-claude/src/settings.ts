import type { HookKind } from '@umbel/core';

/** Claude Code hook events umbel listens to, and the neutral hook kind each one is delivered as. */
export const CLAUDE_HOOK_EVENTS = {
  SessionStart: 'session',
  UserPromptSubmit: 'prompt',
  Stop: 'stop',
  StopFailure: 'stop-failure',
  PermissionRequest: 'permission',
  Notification: 'notify',
  SessionEnd: 'session-end',
  PreToolUse: 'tool',
} as const satisfies Record<string, HookKind>;

/**
 * Split a Claude `--allowedTools` value into rules: on commas and whitespace outside parentheses
 * (`Bash(git diff:*) Edit,Read` → `Bash(git diff:*)`, `Edit`, `Read`). Pure.
 */
export function splitAllowedTools(value: string): string[] {
  const rules: string[] = [];
  let current = '';
  let depth = 0;
  for (const char of value) {
    if (char === '(') depth += 1;
    else if (char === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && (char === ',' || /\s/.test(char))) {
      if (current !== '') rules.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  if (current !== '') rules.push(current);
  return rules;
}

/** Options for {@link buildClaudeSettings}. */
export interface ClaudeSettingsFileOptions {
  /** The shell command that delivers a hook payload as an event of `kind`. */
  hookCommand(kind: HookKind): string;
  readonly allowedTools?: string;
  /** Pre-accept the bypass-permissions consent dialog. */
  readonly skipBypassConsent: boolean;
}

/** The content of the `--settings` file: umbel's hooks, allowed tools, bypass consent. Pure. */
export function buildClaudeSettings(options: ClaudeSettingsFileOptions): Record<string, unknown> {
  const hooks: Record<string, unknown> = {};
  for (const [event, kind] of Object.entries(CLAUDE_HOOK_EVENTS)) {
    hooks[event] = [{ matcher: '*', hooks: [{ type: 'command', command: options.hookCommand(kind) }] }];
  }
  const settings: Record<string, unknown> = { hooks };
  const allow = options.allowedTools === undefined ? [] : splitAllowedTools(options.allowedTools);
  if (allow.length > 0) settings.permissions = { allow };
  if (options.skipBypassConsent) settings.skipDangerousModePermissionPrompt = true;
  return settings;
}
