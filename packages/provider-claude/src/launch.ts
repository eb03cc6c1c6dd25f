/** What Claude Code's launch needs code for: the `--settings` file, the statusLine and the transcript's path. */
import { join } from 'node:path';
import type { ActivityDirFacts, HookInstallContext, InstallPlan, LaunchParts, PreparedInstall } from '@umbel/provider';
import { asRecord, commandHooks, jsonFile, parseJson, shellQuote, splitToolRules, statePath, teeScript } from '@umbel/provider';
import { CLAUDE_CONFIG, CLAUDE_SETTINGS_FILE, CLAUDE_STATUSLINE_FILE, CLAUDE_STATUSLINE_KIND } from './facts.js';

/** Install the hooks, a plan the kit carries out: the user's `<config>/settings.json` read (tolerantly, for their statusLine), then the `--settings` file. */
export function installClaudeHooks({ launch, hooks, permissionMode }: HookInstallContext): InstallPlan {
  const config = statePath(CLAUDE_CONFIG, { ...launch.env, HOME: launch.callerEnv.HOME });
  const script = join(launch.workerDir, CLAUDE_STATUSLINE_FILE);
  const path = join(launch.workerDir, CLAUDE_SETTINGS_FILE);
  const allow = launch.allowedTools === undefined ? [] : splitToolRules(launch.allowedTools);
  const parts = ({ read }: PreparedInstall): LaunchParts => {
    const line = asRecord(asRecord(parseJson(read.settings ?? ''))?.statusLine);
    const user = typeof line?.command === 'string' && line.command !== '' ? line : undefined; // the user's own statusLine, if it runs a command
    // umbel's hooks, its statusLine, the allowed tools, the bypass consent pre-accepted when bypassing
    const settings: Record<string, unknown> = {
      hooks: commandHooks(hooks, { matcher: '*' }),
      statusLine: { ...user, type: 'command', command: `/bin/sh ${shellQuote(script)}` },
    };
    if (allow.length > 0) settings.permissions = { allow };
    if (permissionMode === 'bypassPermissions') settings.skipDangerousModePermissionPrompt = true;
    // a `--settings` statusLine replaces the user's (ACCOUNT-FACTS §1.4): umbel's hands its input (the plan usage) on to theirs
    const statusLine = { path: script, content: teeScript(launch.hookSinkPath, CLAUDE_STATUSLINE_KIND, user?.command as string | undefined), mode: 0o700 };
    return { args: ['--settings', path], files: [jsonFile(path, settings), statusLine] };
  };
  return { prepare: { read: { settings: config && join(config, 'settings.json') } }, parts };
}

/** Claude Code's project directory name for a cwd: every character outside `[A-Za-z0-9]` becomes `-` (§2.1). */
export function encodeClaudeProjectDir(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, '-');
}

/** Where the transcript will be: `<CLAUDE_CONFIG_DIR or HOME/.claude>/projects/<enc-cwd>/<session>.jsonl` (hooks name it too). */
export function predictClaudeTranscript(launch: { readonly env: Readonly<Record<string, string>>; readonly cwd: string; readonly sessionId: string }) {
  const config = statePath(CLAUDE_CONFIG, launch.env);
  return config === undefined ? undefined : join(config, 'projects', encodeClaudeProjectDir(launch.cwd), `${launch.sessionId}.jsonl`);
}

/** Where Claude Code keeps its subagents' transcripts (Task tool): `<transcript without .jsonl>/subagents/`. */
export const CLAUDE_ACTIVITY_DIRS: ActivityDirFacts = { transcript: /^([\s\S]*?)(?:\.jsonl)?$/, dirs: ['$1/subagents'] };
