/**
 * Whether a tool result reports a failure, as facts (ProviderV1's `doReadToolError`): CLIs whose
 * tool results are text say it in the text — a JSON `{"error": …}` body, or a shell tool's
 * `Exit Code: N` line beside the command's output. Pure.
 */
import type { ProviderV1ToolResult } from '../spec.js';
import { jsonToolError } from './tools.js';

/** How a CLI's tool results report a failure beyond the block's own `is_error`. */
export interface ToolErrorFacts {
  /** A result that is a JSON object with an `error` member reports that error. */
  readonly json?: boolean;
  /** The line giving a shell command's exit code (group 1, tested on the trimmed result): a non-zero one fails as `Exit Code: N`. */
  readonly exitCode?: RegExp;
  /** The command's output in the result (group 1, trimmed), appended to a failure: `Exit Code: N: <its last 240 characters>`. */
  readonly output?: RegExp;
  /** What `output` shows for a command that printed nothing (then nothing is appended). */
  readonly noOutput?: string;
}

/** The `doReadToolError` (the kit's `tools.readError`) these facts describe. */
export function toolErrorReader(facts: ToolErrorFacts): (result: ProviderV1ToolResult) => string | undefined {
  return (result) => {
    if (result.isError) return result.content;
    const error = facts.json ? jsonToolError(result.content) : undefined;
    if (error !== undefined || !facts.exitCode) return error;
    const text = result.content.trim();
    const code = facts.exitCode.exec(text)?.[1];
    if (code === undefined || code === '0') return undefined;
    const output = facts.output?.exec(text)?.[1]?.trim();
    return `Exit Code: ${code}${output && output !== facts.noOutput ? `: ${output.slice(-240)}` : ''}`;
  };
}
