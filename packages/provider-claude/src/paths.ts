import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { UmbelError, UmbelErrorCode } from '@umbel/core';

/**
 * Claude Code's project directory name for a cwd: every character outside `[A-Za-z0-9]` becomes `-`
 * (`/srv/a.b c_d+é` → `-srv-a-b-c-d--`, claude-code.md §2.1). Works on UTF-16 code units, as the
 * CLI does. Pure.
 */
export function encodeClaudeProjectDir(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, '-');
}

/**
 * Claude Code's config root for an environment: `CLAUDE_CONFIG_DIR`, else `$HOME/.claude`, else
 * undefined. Pure.
 */
export function claudeConfigDir(env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (env.CLAUDE_CONFIG_DIR) return env.CLAUDE_CONFIG_DIR;
  if (env.HOME) return join(env.HOME, '.claude');
  return undefined;
}

/**
 * The transcript Claude Code writes for a session: `<config>/projects/<enc-cwd>/<sessionId>.jsonl`.
 * A prediction only: the hook payloads' `transcript_path` is authoritative. Pure.
 */
export function claudeTranscriptPath(configDir: string, cwd: string, sessionId: string): string {
  return join(configDir, 'projects', encodeClaudeProjectDir(cwd), `${sessionId}.jsonl`);
}

/** The `claude` executable could not be found. */
export class ClaudeNotFoundError extends UmbelError {
  constructor(message: string) {
    super({
      name: 'ClaudeNotFoundError',
      code: UmbelErrorCode.SpawnFailed,
      message,
      hint: 'install Claude Code (npm install -g @anthropic-ai/claude-code) so `claude` is on PATH, or set UMBEL_CLAUDE_BIN to the absolute path of the binary',
    });
  }
}

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    const info = await stat(path);
    if (!info.isFile()) return false;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Look an executable up on a PATH string; the absolute path of the first hit, or undefined. */
export async function findOnPath(name: string, pathValue: string | undefined): Promise<string | undefined> {
  for (const dir of (pathValue ?? '').split(delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The absolute path of the Claude Code binary: `UMBEL_CLAUDE_BIN` (a path, or a name looked up on
 * PATH), else `preferred` (from {@link ClaudeSettings.binary}), else `claude` on the caller's PATH.
 * Always absolute, so an auto-update of the global install cannot swap the binary under a running
 * fleet. Throws {@link ClaudeNotFoundError}.
 */
export async function resolveClaudeBinary(callerEnv: Readonly<Record<string, string | undefined>>, preferred?: string): Promise<string> {
  const explicit = callerEnv.UMBEL_CLAUDE_BIN || preferred;
  const source = callerEnv.UMBEL_CLAUDE_BIN ? 'UMBEL_CLAUDE_BIN' : 'the provider settings (binary)';
  if (explicit) {
    const found = explicit.includes('/')
      ? (await isExecutableFile(resolve(explicit)))
        ? resolve(explicit)
        : undefined
      : await findOnPath(explicit, callerEnv.PATH);
    if (found === undefined) throw new ClaudeNotFoundError(`Claude Code binary '${explicit}' from ${source} is not an executable file`);
    return found;
  }
  const found = await findOnPath('claude', callerEnv.PATH);
  if (found === undefined) throw new ClaudeNotFoundError('Claude Code (`claude`) was not found on PATH');
  return found;
}
