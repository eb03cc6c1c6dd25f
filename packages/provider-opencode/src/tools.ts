/**
 * What opencode's tool calls do, for `umbel actions` / `umbel diff` (spec member `doClassifyTool`).
 * opencode 1.18.33 offers `bash {command, timeout, workdir}`, `read {filePath}`, `edit {filePath,
 * oldString, newString}`, `write {filePath, content}`, `glob`, `grep`, `list`, `webfetch`, `task`,
 * `todowrite`, `skill` (FACTS.md "The requests opencode sends"). Pure.
 */
import type { ProviderV1ToolCall, ProviderV1ToolUse } from '@umbel/provider';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Classify one opencode tool call. */
export function classifyOpencodeTool(call: ProviderV1ToolCall): ProviderV1ToolUse {
  const input = call.input !== null && typeof call.input === 'object' ? (call.input as Record<string, unknown>) : {};
  const file = str(input.filePath);
  switch (call.name) {
    case 'bash': {
      const command = str(input.command);
      return command ? { command } : {};
    }
    case 'read':
      return file ? { read: [file] } : {};
    case 'edit':
    case 'patch':
      return file ? { edited: [file] } : {};
    case 'write':
      return file ? { written: [file] } : {};
    default:
      return {};
  }
}

/** The tool members of the opencode provider. */
export const OPENCODE_TOOLS = { doClassifyTool: classifyOpencodeTool } as const;
