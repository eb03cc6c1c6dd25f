/**
 * A settings file that installs umbel's hooks beside a base the user (or the machine) owns: the
 * shape of CLIs that take their hooks in the settings they read (Gemini CLI and its forks). Pure.
 */
import { deepMerge } from './json.js';
import { type CommandHook, type CommandHookShape, commandHooks } from './settings.js';

/**
 * A copy of `base` (never changed) with one command hook per hook appended to its event's list
 * ({@link commandHooks}: the base's own hooks stay first and keep running), then `set` deep-merged
 * (the values a worker needs, such as update checks off).
 */
export function settingsWithHooks<H extends CommandHook>(
  base: Readonly<Record<string, unknown>>,
  hooks: readonly H[],
  shape: CommandHookShape<H>,
  set: Readonly<Record<string, unknown>> = {},
): Record<string, unknown> {
  return deepMerge({ ...base, hooks: commandHooks(hooks, shape, base.hooks) }, set);
}
