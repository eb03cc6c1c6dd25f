/**
 * What Gemini CLI's tool calls do, for `umbel actions` / `umbel diff` (spec members
 * `doClassifyTool`, `doReadToolError`). Tool names and parameters of gemini-cli 0.61:
 * `read_file {file_path}`, `read_many_files {include: paths/globs}`, `write_file {file_path}`
 * (creates or overwrites), `replace {file_path}` (an edit), `run_shell_command {command, dir_path?}`.
 * `list_directory`, `glob`, `grep_search`, `web_fetch`, `google_web_search` read no particular file.
 * A failed call's result is `{"error": …}` (the CLI's error response), and a shell command that
 * exits non-zero says `Exit Code: N` in its output. Pure.
 */
import { classifyTool, type ProviderV1ToolCall, type ProviderV1ToolUse, type ToolFacts, toolErrorReader } from '@umbel/provider';

const FILE = ['file_path', 'absolute_path'];

/** The error a Gemini CLI tool result reports. */
export const readGeminiToolError = toolErrorReader({
  json: true,
  exitCode: /^\[?Exit Code: (-?\d+)\]?$/m,
  output: /^Output: ([\s\S]*?)(?:\n(?:Error|Exit Code|Signal|Process Group PGID):|$)/m,
  noOutput: '(empty)',
});

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
