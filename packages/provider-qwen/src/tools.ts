/**
 * What Qwen Code's tool calls do, for `umbel actions` / `umbel diff` (spec members
 * `doClassifyTool`, `doReadToolError`). Tool names and parameters as the real 0.15.10 offers them to
 * the model (QWEN-FACTS §2): `read_file {file_path}`, `write_file {file_path, content}`,
 * `edit {file_path, old_string, new_string}`, `run_shell_command {command, directory?}`;
 * `list_directory`, `glob`, `grep_search`, `web_fetch`, `todo_write` touch no particular file. A shell
 * command that exits non-zero says `Exit Code: N` in its output; a refused or failed call's result
 * is `{"error": …}`. Pure.
 */
import { classifyTool, type ProviderV1ToolCall, type ProviderV1ToolUse, type ToolFacts, toolErrorReader } from '@umbel/provider';

/** The error a Qwen Code tool result reports. */
export const readQwenToolError = toolErrorReader({ json: true, exitCode: /^Exit Code: (-?\d+)$/m });

/** The tool facts of the Qwen Code provider. */
export const QWEN_TOOLS: ToolFacts = {
  table: {
    read_file: { does: 'read', fields: ['file_path'] },
    write_file: { does: 'written', fields: ['file_path'] },
    edit: { does: 'edited', fields: ['file_path'] },
    run_shell_command: { does: 'command', fields: ['command'] },
  },
  readError: readQwenToolError,
};

/** Classify one Qwen Code tool call. */
export const classifyQwenTool = (call: ProviderV1ToolCall): ProviderV1ToolUse => classifyTool(QWEN_TOOLS, call);
