/**
 * What Qwen Code's tool calls do, for `umbel actions` / `umbel diff` (spec members
 * `doClassifyTool`, `doReadToolError`). Tool names and parameters as the real 0.15.10 offers them to
 * the model (QWEN-FACTS §2): `read_file {file_path}`, `write_file {file_path, content}`,
 * `edit {file_path, old_string, new_string}`, `run_shell_command {command, directory?}`;
 * `list_directory`, `glob`, `grep_search`, `web_fetch`, `todo_write` touch no particular file. A shell
 * command that exits non-zero says `Exit Code: N` in its output; a refused or failed call's result
 * is `{"error": …}`. Pure.
 */
import type { ProviderV1ToolCall, ProviderV1ToolResult, ProviderV1ToolUse } from '@umbel/provider';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Classify one Qwen Code tool call. */
export function classifyQwenTool(call: ProviderV1ToolCall): ProviderV1ToolUse {
  const input = call.input !== null && typeof call.input === 'object' ? (call.input as Record<string, unknown>) : {};
  const path = str(input.file_path);
  const paths = path ? [path] : [];
  if (call.name === 'read_file') return { read: paths };
  if (call.name === 'write_file') return { written: paths };
  if (call.name === 'edit') return { edited: paths };
  const command = call.name === 'run_shell_command' ? str(input.command) : undefined;
  return command ? { command } : {};
}

/** The error a Qwen Code tool result reports. */
export function readQwenToolError(result: ProviderV1ToolResult): string | undefined {
  if (result.isError) return result.content;
  const text = result.content.trim();
  if (text.startsWith('{')) {
    try {
      const json = JSON.parse(text) as { error?: unknown };
      if (json.error !== undefined) return typeof json.error === 'string' ? json.error : JSON.stringify(json.error);
    } catch {
      // plain output
    }
  }
  const exit = /^Exit Code: (-?\d+)$/m.exec(text);
  return exit && exit[1] !== '0' ? `Exit Code: ${exit[1]}` : undefined;
}

/** The tool members of the Qwen Code provider. */
export const QWEN_TOOLS = { doClassifyTool: classifyQwenTool, doReadToolError: readQwenToolError } as const;
