/**
 * Tool-classification facts: what a CLI's tool calls do to files and the shell (for `umbel actions`
 * and `umbel diff`), as one table by tool name, read by one classifier. Pure.
 */
import type { ProviderV1ToolCall, ProviderV1ToolResult, ProviderV1ToolUse } from '../spec.js';
import { asRecord, parseJson } from './json.js';

/** What one tool does, and the input fields that name its file (or command), first non-empty wins. */
export interface ToolRule {
  readonly does: 'read' | 'edited' | 'written' | 'command';
  /**
   * Input fields, tried in order. A string names one file (the command, for `command`); an array of
   * strings names several files, of which patterns (`*`, `?`, `[`, `{`) name no particular file.
   */
  readonly fields: readonly string[];
}

/** A CLI's tool facts: the table, and code only for what a table cannot say. */
export interface ToolFacts {
  /** Rules by tool name as the transcript records it; a tool not named does none of these (`{}`). */
  readonly table: Readonly<Record<string, ToolRule>>;
  /** Consulted first; undefined falls back to the table (e.g. a patch naming the files it changes). */
  readonly classify?: (call: ProviderV1ToolCall, input: Readonly<Record<string, unknown>>) => ProviderV1ToolUse | undefined;
  /** Whether a tool result reports a failure, and its text (ProviderV1's `doReadToolError`). */
  readonly readError?: (result: ProviderV1ToolResult) => string | undefined;
}

const PATTERN = /[*?[{]/;

function valuesOf(input: Readonly<Record<string, unknown>>, fields: readonly string[]): string[] {
  for (const field of fields) {
    const value = input[field];
    if (typeof value === 'string' && value !== '') return [value];
    if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string' && v !== '' && !PATTERN.test(v));
  }
  return [];
}

/** What `call` does by `facts` (never throws on an input it does not expect). */
export function classifyTool(facts: ToolFacts, call: ProviderV1ToolCall): ProviderV1ToolUse {
  const input = asRecord(call.input) ?? {};
  const custom = facts.classify?.(call, input);
  if (custom) return custom;
  const rule = Object.hasOwn(facts.table, call.name) ? facts.table[call.name] : undefined;
  if (!rule) return {};
  const values = valuesOf(input, rule.fields);
  if (rule.does !== 'command') return { [rule.does]: values };
  return values[0] !== undefined ? { command: values[0] } : {};
}

/** The error a tool result written as JSON `{"error": …}` reports (Gemini CLI, Qwen Code): its text, or undefined. */
export function jsonToolError(content: string): string | undefined {
  const text = content.trim();
  const error = text.startsWith('{') ? asRecord(parseJson(text))?.error : undefined;
  return error === undefined ? undefined : typeof error === 'string' ? error : JSON.stringify(error);
}
