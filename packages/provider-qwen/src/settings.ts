/**
 * The settings file umbel gives a Qwen Code worker (QWEN-FACTS §5).
 *
 * Qwen Code reads a system settings layer from `QWEN_CODE_SYSTEM_SETTINGS_PATH` (default
 * `/etc/qwen-code/settings.json`) and, unlike Gemini CLI, checks no ownership: each worker gets its
 * own file there. It is a copy of the machine's system settings (if any; only read, never written)
 * with umbel's hooks appended and update checks off. Hook lists of every layer are concatenated,
 * so the user's (`~/.qwen/settings.json`) and the project's hooks still run; the user's login,
 * models and chat recordings stay where they are.
 *
 * Qwen Code fires `UserPromptSubmit` again with `prompt: ""` whenever it sends a tool result back
 * to the model: that is the same turn, not a prompt umbel sent, so the prompt hook runs through a
 * small filter that drops it.
 */
import { join } from 'node:path';
import type { HookInstallContext, InstallPlan } from '@umbel/provider';
import { jsonFile, settingsWithHooks, shellQuote } from '@umbel/provider';
import { SYSTEM_SETTINGS_ENV } from './facts.js';

/** Timeout of umbel's hook commands (ms); the sink writes one file and exits. */
export const HOOK_TIMEOUT_MS = 10_000;

/** Where Qwen Code looks for system settings when the variable is unset (Linux). */
export const DEFAULT_SYSTEM_SETTINGS = '/etc/qwen-code/settings.json';

type JsonObject = Record<string, unknown>;

/** The script that passes a prompt payload on unless it is a tool-result continuation (`"prompt":""`). */
export function promptFilterScript(command: string): string {
  return ['#!/bin/sh', 'payload=$(cat)', `case "$payload" in *'"prompt":""'*) exit 0 ;; esac`, `printf '%s' "$payload" | ${command}`, ''].join('\n');
}

/**
 * The worker's system settings: `base` (the machine's system settings) plus one umbel hook per
 * event appended to that event's list, and update checks off (a worker never updates the CLI under
 * the user's feet). Pure.
 */
export function buildWorkerSettings(base: Readonly<JsonObject>, commands: Readonly<Record<string, string>>): JsonObject {
  const hooks = Object.entries(commands).map(([event, command]) => ({ event, command }));
  const shape = { matcher: '', fields: (h: { event: string }) => ({ name: `umbel-${h.event}`, timeout: HOOK_TIMEOUT_MS }) };
  return settingsWithHooks(base, hooks, shape, { general: { enableAutoUpdate: false } });
}

/** Install umbel's hooks, a plan the kit carries out: the machine's system settings read, then the worker's own file and the variable that points Qwen Code at it. */
export function installQwenSettings({ launch, hooks }: HookInstallContext): InstallPlan {
  const dir = join(launch.workerDir, 'qwen');
  const filter = join(dir, 'prompt-hook.sh');
  const commands: Record<string, string> = {};
  for (const hook of hooks) commands[hook.event] = hook.kind === 'prompt' ? `/bin/sh ${shellQuote(filter)}` : hook.command;
  const prompt = hooks.find((h) => h.kind === 'prompt');
  const path = join(dir, 'settings.json');
  const machine = { path: launch.callerEnv[SYSTEM_SETTINGS_ENV] || DEFAULT_SYSTEM_SETTINGS, what: 'Qwen Code system settings' };
  return {
    prepare: { readJson: { machine } },
    parts: ({ json }) => ({
      env: { [SYSTEM_SETTINGS_ENV]: path },
      files: [
        jsonFile(path, buildWorkerSettings(json.machine ?? {}, commands)),
        ...(prompt ? [{ path: filter, content: promptFilterScript(prompt.command), mode: 0o600 }] : []),
      ],
    }),
  };
}
