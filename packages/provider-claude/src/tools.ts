/**
 * What Claude Code's tool calls do, for `umbel actions` / `umbel diff` (spec members
 * `doClassifyTool`, `doReadToolError`). Tool names and inputs as the transcript records them:
 * `Read`/`NotebookRead {file_path|notebook_path}`, `Edit`/`MultiEdit {file_path}`,
 * `NotebookEdit {notebook_path}`, `Write {file_path}` (creates or overwrites), `Bash {command}`.
 * Search tools (`Glob`, `Grep`, `LS`) read no particular file. A failed call is a `tool_result`
 * with `is_error: true` (a Bash command exiting non-zero included), which the engine reads itself.
 * Pure.
 */
import type { ToolFacts } from '@umbel/provider';

const FILE = ['file_path', 'notebook_path'];

/** The tool facts of the Claude Code provider. */
export const CLAUDE_TOOLS: ToolFacts = {
  table: {
    Read: { does: 'read', fields: FILE },
    NotebookRead: { does: 'read', fields: FILE },
    Edit: { does: 'edited', fields: FILE },
    MultiEdit: { does: 'edited', fields: FILE },
    NotebookEdit: { does: 'edited', fields: FILE },
    Write: { does: 'written', fields: FILE },
    Bash: { does: 'command', fields: ['command'] },
  },
};
