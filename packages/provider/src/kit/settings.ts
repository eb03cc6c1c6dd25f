/**
 * Writers for the files that install a CLI's hooks. Claude Code's settings, Codex's hooks.json,
 * Gemini CLI's and Qwen Code's settings share one shape: `hooks: {<Event>: [{matcher?, hooks:
 * [{type: 'command', command, …}]}]}`; a user's own entries stay first in each event's list. Pure.
 */
import type { ProviderV1File } from '../spec.js';
import type { InstalledHook } from './facts.js';
import { asRecord } from './json.js';

/** A hook to write: its event and the command that delivers it (an {@link InstalledHook}, or any such pair). */
export type CommandHook = Pick<InstalledHook, 'event' | 'command'>;

/** How each event's entry is written: its `matcher` (none when undefined) and the command hook's other fields. */
export interface CommandHookShape<H extends CommandHook = InstalledHook> {
  readonly matcher?: string;
  readonly fields?: (hook: H) => Readonly<Record<string, unknown>>;
}

/** One event's entry running `hook.command`. */
function entryOf<H extends CommandHook>(hook: H, shape: CommandHookShape<H>): Record<string, unknown> {
  return { ...(shape.matcher !== undefined ? { matcher: shape.matcher } : {}), hooks: [{ type: 'command', command: hook.command, ...shape.fields?.(hook) }] };
}

/**
 * The `hooks` object with one entry per installed hook appended to its event's list: `existing`
 * (a user's own `hooks`, never changed; anything not an object counts as none) keeps its entries
 * and its other events.
 */
export function commandHooks<H extends CommandHook>(hooks: readonly H[], shape: CommandHookShape<H> = {}, existing?: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = { ...asRecord(existing) };
  for (const hook of hooks) {
    const list = out[hook.event];
    out[hook.event] = [...(Array.isArray(list) ? list : []), entryOf(hook, shape)];
  }
  return out;
}

/** A JSON file a launch writes: 2-space JSON and a final newline, private (0600) unless `mode` says otherwise. */
export function jsonFile(path: string, value: unknown, mode = 0o600): ProviderV1File {
  return { path, content: `${JSON.stringify(value, null, 2)}\n`, mode };
}
