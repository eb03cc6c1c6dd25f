/** The MCP tools' names: a leaf module, so every tool module can name them without importing the server. */

/** The pool tools' names. */
export const POOL_TOOL_NAMES = ['umbel_pool_start', 'umbel_pool_status', 'umbel_pool_stop'] as const;

/** Names of the tools, in registration order. `umbel_`-prefixed snake case, as upstream had them. */
export const TOOL_NAMES = [
  'umbel_spawn',
  'umbel_send',
  'umbel_wait',
  'umbel_keys',
  'umbel_status',
  'umbel_list',
  'umbel_read',
  'umbel_actions',
  'umbel_diff',
  'umbel_kill',
  'umbel_revive',
  'umbel_capture',
  'umbel_logs',
  'umbel_prune',
  'umbel_help',
  'umbel_doctor',
  'umbel_wait_many',
  'umbel_events',
  ...POOL_TOOL_NAMES,
] as const;
/** One tool name. */
export type ToolName = (typeof TOOL_NAMES)[number];
