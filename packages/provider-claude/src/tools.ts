/**
 * What Claude Code's tool calls do, for `umbel actions` / `umbel diff` (spec members
 * `doClassifyTool`, `doReadToolError`). Tool names and inputs as the transcript records them:
 * `Read`/`NotebookRead {file_path|notebook_path}`, `Edit`/`MultiEdit {file_path}`,
 * `NotebookEdit {notebook_path}`, `Write {file_path}` (creates or overwrites), `Bash {command}`.
 * Search tools (`Glob`, `Grep`, `LS`) read no particular file. A failed call is a `tool_result`
 * with `is_error: true` (a Bash command exiting non-zero included), which the engine reads itself.
 * Pure.
 */
import type { ProviderV1ToolCall, ProviderV1ToolUse } from '@umbel/provider';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Classify one Claude Code tool call. */
export function classifyClaudeTool(call: ProviderV1ToolCall): ProviderV1ToolUse {
  const input = call.input !== null && typeof call.input === 'object' ? (call.input as Record<string, unknown>) : {};
  const path = str(input.file_path) ?? str(input.notebook_path);
  const paths = path ? [path] : [];
  switch (call.name) {
    case 'Read':
    case 'NotebookRead':
      return { read: paths };
    case 'Edit':
    case 'MultiEdit':
    case 'NotebookEdit':
      return { edited: paths };
    case 'Write':
      return { written: paths };
    case 'Bash': {
      const command = str(input.command);
      return command ? { command } : {};
    }
    default:
      return {};
  }
}

/** The tool members of the Claude Code provider. */
export const CLAUDE_TOOLS = { doClassifyTool: classifyClaudeTool } as const;
