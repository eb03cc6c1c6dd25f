/**
 * What Copilot's tool calls do, for `umbel actions` / `umbel diff` (spec member `doClassifyTool`).
 * Copilot 1.0.102 offers (COPILOT-FACTS.md §5) `bash {command, description}`, `view {path}`,
 * `create {path, file_text}`, `edit {path, old_str, new_str}`, `grep`, `glob`, `task`, … Pure.
 */
import type { ProviderV1ToolCall, ProviderV1ToolUse, ToolFacts } from '@umbel/provider';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Classify one Copilot tool call. */
export function classifyCopilotTool(call: ProviderV1ToolCall): ProviderV1ToolUse {
  const input = call.input !== null && typeof call.input === 'object' ? (call.input as Record<string, unknown>) : {};
  const path = str(input.path);
  switch (call.name) {
    case 'bash': {
      const command = str(input.command);
      return command ? { command } : {};
    }
    case 'view':
      return path ? { read: [path] } : {};
    case 'edit':
      return path ? { edited: [path] } : {};
    case 'create':
      return path ? { written: [path] } : {};
    default:
      return {};
  }
}

/** The tool facts of the Copilot provider (its tools name their file `path`; one without a path touches none). */
export const COPILOT_TOOLS: ToolFacts = { table: {}, classify: classifyCopilotTool };
