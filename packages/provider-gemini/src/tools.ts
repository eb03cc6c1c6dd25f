/**
 * What Gemini CLI's tool calls do, for `umbel actions` / `umbel diff` (spec members
 * `doClassifyTool`, `doReadToolError`). Tool names and parameters of gemini-cli 0.61:
 * `read_file {file_path}`, `read_many_files {include: paths/globs}`, `write_file {file_path}`
 * (creates or overwrites), `replace {file_path}` (an edit), `run_shell_command {command, dir_path?}`.
 * `list_directory`, `glob`, `grep_search`, `web_fetch`, `google_web_search` read no particular file.
 * A failed call's result is `{"error": …}` (the CLI's error response), and a shell command that
 * exits non-zero says `Exit Code: N` in its output. Pure.
 */
import type { ProviderV1ToolCall, ProviderV1ToolResult, ProviderV1ToolUse } from '@umbel/provider';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Classify one Gemini CLI tool call. */
export function classifyGeminiTool(call: ProviderV1ToolCall): ProviderV1ToolUse {
  const input = call.input !== null && typeof call.input === 'object' ? (call.input as Record<string, unknown>) : {};
  const path = str(input.file_path) ?? str(input.absolute_path);
  const paths = path ? [path] : [];
  switch (call.name) {
    case 'read_file':
      return { read: paths };
    case 'read_many_files': {
      const include = Array.isArray(input.include) ? input.include : Array.isArray(input.paths) ? input.paths : [];
      return { read: include.filter((p): p is string => typeof p === 'string' && !/[*?[{]/.test(p)) };
    }
    case 'write_file':
      return { written: paths };
    case 'replace':
    case 'edit':
      return { edited: paths };
    case 'run_shell_command': {
      const command = str(input.command);
      return command ? { command } : {};
    }
    default:
      return {};
  }
}

/** The error a Gemini CLI tool result reports. */
export function readGeminiToolError(result: ProviderV1ToolResult): string | undefined {
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
  const exit = /^\[?Exit Code: (-?\d+)\]?$/m.exec(text);
  if (exit && exit[1] !== '0') {
    const output = /^Output: ([\s\S]*?)(?:\n(?:Error|Exit Code|Signal|Process Group PGID):|$)/m.exec(text)?.[1]?.trim();
    return `Exit Code: ${exit[1]}${output && output !== '(empty)' ? `: ${output.slice(-240)}` : ''}`;
  }
  return undefined;
}

/** The tool members of the Gemini CLI provider. */
export const GEMINI_TOOLS = { doClassifyTool: classifyGeminiTool, doReadToolError: readGeminiToolError } as const;
