/**
 * What Gemini CLI's tool calls do, for `umbel actions` / `umbel diff` (spec members
 * `doClassifyTool`, `doReadToolError`). Tool names and parameters of gemini-cli 0.61:
 * `read_file {file_path}`, `read_many_files {include: paths/globs}`, `write_file {file_path}`
 * (creates or overwrites), `replace {file_path}` (an edit), `run_shell_command {command, dir_path?}`.
 * `list_directory`, `glob`, `grep_search`, `web_fetch`, `google_web_search` read no particular file.
 * A failed call's result is `{"error": …}` (the CLI's error response), and a shell command that
 * exits non-zero says `Exit Code: N` in its output. Pure.
 */
import { classifyTool, jsonToolError, type ProviderV1ToolCall, type ProviderV1ToolResult, type ProviderV1ToolUse, type ToolFacts } from '@umbel/provider';

const FILE = ['file_path', 'absolute_path'];

/** The error a Gemini CLI tool result reports. */
export function readGeminiToolError(result: ProviderV1ToolResult): string | undefined {
  if (result.isError) return result.content;
  const error = jsonToolError(result.content);
  if (error !== undefined) return error;
  const text = result.content.trim();
  const exit = /^\[?Exit Code: (-?\d+)\]?$/m.exec(text);
  if (exit && exit[1] !== '0') {
    const output = /^Output: ([\s\S]*?)(?:\n(?:Error|Exit Code|Signal|Process Group PGID):|$)/m.exec(text)?.[1]?.trim();
    return `Exit Code: ${exit[1]}${output && output !== '(empty)' ? `: ${output.slice(-240)}` : ''}`;
  }
  return undefined;
}

/** The tool facts of the Gemini CLI provider. */
export const GEMINI_TOOLS: ToolFacts = {
  table: {
    read_file: { does: 'read', fields: FILE },
    read_many_files: { does: 'read', fields: ['include', 'paths'] },
    write_file: { does: 'written', fields: FILE },
    replace: { does: 'edited', fields: FILE },
    edit: { does: 'edited', fields: FILE },
    run_shell_command: { does: 'command', fields: ['command'] },
  },
  readError: readGeminiToolError,
};

/** Classify one Gemini CLI tool call. */
export const classifyGeminiTool = (call: ProviderV1ToolCall): ProviderV1ToolUse => classifyTool(GEMINI_TOOLS, call);
