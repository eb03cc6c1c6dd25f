/**
 * The worker's hooks plugin, `<workerDir>/copilot-plugin`, loaded with `--plugin-dir`
 * (COPILOT-FACTS.md §4): `.plugin/plugin.json` names it, `hooks/hooks.json` runs umbel's hook
 * command for each event of {@link COPILOT_HOOK_EVENTS}, its payload on stdin. Nothing is written to
 * the user's `~/.copilot` (their sign-in, settings, hooks and plugins all still apply), and the
 * transcript is known at launch: the session id is umbel's (`--session-id`), so its events file is
 * `<COPILOT_HOME or ~/.copilot>/session-state/<id>/events.jsonl`.
 */
import { join } from 'node:path';
import { type HookInstallContext, type InstalledHook, type LaunchParts, jsonText, type ProviderV1LaunchOptions, shellQuote, statePath } from '@umbel/provider';

/** How long Copilot waits for one hook command (s): umbel's delivers a payload to a local file. */
export const HOOK_TIMEOUT_SEC = 30;

/** The plugin's name, as `/plugins` lists it. */
export const PLUGIN_NAME = 'umbel-worker';

/** The directory Copilot keeps its state in for this worker: `COPILOT_HOME`, else `~/.copilot`. */
export function copilotHome(launch: Pick<ProviderV1LaunchOptions, 'env' | 'callerEnv'>): string | undefined {
  return statePath({ path: '~/.copilot', env: 'COPILOT_HOME' }, { ...launch.env, HOME: launch.env.HOME ?? launch.callerEnv.HOME });
}

/** The events file of session `sessionId`, when the state directory is known. */
export function eventsPath(launch: Pick<ProviderV1LaunchOptions, 'env' | 'callerEnv'>, sessionId: string): string | undefined {
  const home = copilotHome(launch);
  return home ? join(home, 'session-state', sessionId, 'events.jsonl') : undefined;
}

/**
 * A hook's command with the events file added to its payload (`{"transcriptPath":…,` before the
 * rest): Copilot's `sessionStart` and `userPromptSubmitted` payloads name only the session, and a
 * turn that fails names its events file nowhere else (no `agentStop`). Left as it is for a path sed
 * could not take literally. Pure.
 */
export function withTranscriptPath(command: string, transcriptPath: string | undefined): string {
  if (!transcriptPath || /[|&\\\n]/.test(transcriptPath)) return command;
  return `sed ${shellQuote(`s|^{|{"transcriptPath":${JSON.stringify(transcriptPath)},|`)} | ${command}`;
}

/** The hooks whose payload gets the events file: the session's (doctor reads it) and every prompt's. */
const NAMES_TRANSCRIPT = new Set(['sessionStart', 'userPromptSubmitted']);

/** `hooks/hooks.json`: one command hook per installed event. Pure. */
export function hooksJson(hooks: readonly InstalledHook[], transcriptPath?: string): string {
  const byEvent: Record<string, { type: 'command'; bash: string; timeoutSec: number }[]> = {};
  for (const hook of hooks) {
    const bash = NAMES_TRANSCRIPT.has(hook.event) ? withTranscriptPath(hook.command, transcriptPath) : hook.command;
    (byEvent[hook.event] ??= []).push({ type: 'command', bash, timeoutSec: HOOK_TIMEOUT_SEC });
  }
  return jsonText({ version: 1, hooks: byEvent });
}

/** `.plugin/plugin.json`. Pure. */
export function pluginJson(): string {
  return jsonText({ name: PLUGIN_NAME, description: "umbel's hooks for one worker", version: '1.0.0' });
}

/** Install the worker's plugin: its files, the argument that loads it, and the transcript it will write. */
export function installPluginDir({ launch, hooks }: HookInstallContext): LaunchParts {
  const dir = join(launch.workerDir, 'copilot-plugin');
  const sessionId = launch.resume?.sessionId ?? launch.sessionId;
  const transcriptPath = eventsPath(launch, sessionId);
  return {
    args: ['--plugin-dir', dir],
    files: [
      { path: join(dir, '.plugin', 'plugin.json'), content: pluginJson(), mode: 0o600 },
      { path: join(dir, 'hooks', 'hooks.json'), content: hooksJson(hooks, transcriptPath), mode: 0o600 },
    ],
    ...(transcriptPath ? { transcriptPath } : {}),
  };
}
