/**
 * What opencode's tool calls do, for `umbel actions` / `umbel diff` (spec member `doClassifyTool`).
 * opencode 1.18.33 offers `bash {command, timeout, workdir}`, `read {filePath}`, `edit {filePath,
 * oldString, newString}`, `write {filePath, content}`, `glob`, `grep`, `list`, `webfetch`, `task`,
 * `todowrite`, `skill` (FACTS.md "The requests opencode sends"). Pure.
 */
import { classifyTool, type ProviderV1ToolCall, type ProviderV1ToolUse, type ToolFacts } from '@umbel/provider';

/** The tool facts of the opencode provider. */
export const OPENCODE_TOOLS: ToolFacts = {
  table: {
    bash: { does: 'command', fields: ['command'] },
    read: { does: 'read', fields: ['filePath'] },
    edit: { does: 'edited', fields: ['filePath'] },
    patch: { does: 'edited', fields: ['filePath'] },
    write: { does: 'written', fields: ['filePath'] },
  },
};

/** Classify one opencode tool call. */
export const classifyOpencodeTool = (call: ProviderV1ToolCall): ProviderV1ToolUse => classifyTool(OPENCODE_TOOLS, call);
