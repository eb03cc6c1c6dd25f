import { join } from 'node:path';
import type { ProviderV1Launch, ProviderV1LaunchOptions } from '@umbel/core';
import { CLAUDE_CHILD_MARKERS, CLAUDE_RESERVED_ENV } from './env.js';
import { claudeConfigDir, claudeTranscriptPath, resolveClaudeBinary } from './paths.js';
import { buildClaudeSettings } from './settings.js';
import { effectivePermissionMode } from './validate.js';

/** Name of the settings file written into the worker directory. */
export const CLAUDE_SETTINGS_FILE = 'claude-settings.json';

/** Options of a Claude provider instance. */
export interface ClaudeSettings {
  /**
   * Binary to launch (absolute path, or a name looked up on the caller's PATH). `UMBEL_CLAUDE_BIN`
   * in the caller's env wins over it; without both, `claude` is looked up on PATH.
   */
  readonly binary?: string;
  /** Extra arguments appended after umbel's own (never put secrets here: argv is visible). */
  readonly extraArgs?: readonly string[];
  /** Extra reserved env for every worker (e.g. `{ CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' }`). */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * Build a Claude Code launch: resolve the binary, write `<workerDir>/claude-settings.json` (hooks,
 * allowed tools, bypass consent) and the argv. Reads the file system to find the binary; never
 * launches anything.
 */
export async function buildClaudeLaunch(options: ProviderV1LaunchOptions, settings: ClaudeSettings = {}): Promise<ProviderV1Launch> {
  const binary = await resolveClaudeBinary(options.callerEnv, settings.binary);
  const mode = effectivePermissionMode(options);
  const settingsPath = join(options.workerDir, CLAUDE_SETTINGS_FILE);
  const content = buildClaudeSettings({
    hookCommand: (kind) => options.hookCommand(kind),
    ...(options.allowedTools === undefined ? {} : { allowedTools: options.allowedTools }),
    skipBypassConsent: mode === 'bypassPermissions',
  });
  const argv = [binary, '--settings', settingsPath, '--session-id', options.sessionId];
  if (options.model !== undefined) argv.push('--model', options.model);
  if (mode !== undefined) argv.push('--permission-mode', mode);
  if (options.allowedTools !== undefined) argv.push('--allowedTools', options.allowedTools);
  if (options.appendSystemPrompt !== undefined) argv.push('--append-system-prompt', options.appendSystemPrompt);
  argv.push(...(settings.extraArgs ?? []));

  const configDir = claudeConfigDir(options.env);
  return {
    argv,
    env: { ...settings.env, ...CLAUDE_RESERVED_ENV },
    unsetEnv: [...CLAUDE_CHILD_MARKERS],
    files: [{ path: settingsPath, content: `${JSON.stringify(content, null, 2)}\n`, mode: 0o600 }],
    sessionId: options.sessionId,
    ...(configDir === undefined ? {} : { transcriptPath: claudeTranscriptPath(configDir, options.cwd, options.sessionId) }),
  };
}
