/**
 * A hook payload's tool call as one activity line, as Claude Code, Gemini CLI and Qwen Code draw
 * it: `name(argument)`. Pure.
 */
import { stringField } from './json.js';

/** Where a payload names the tool being run and its input (dotted keys reach into objects). */
export interface ToolActivityFacts {
  /** The field naming the tool. */
  readonly tool: string;
  /** The field holding the tool's input object. */
  readonly input: string;
  /** Input fields tried in order for the argument shown; the first non-empty text wins. */
  readonly fields: readonly string[];
}

/** The payload fact `activity` of these fields: `name(argument)`, the bare name when no field has a text, undefined without a tool. */
export function toolActivity(facts: ToolActivityFacts): (payload: Record<string, unknown>) => string | undefined {
  return (payload) => {
    const name = stringField(payload, facts.tool);
    const arg = facts.fields.map((field) => stringField(payload, `${facts.input}.${field}`)).find(Boolean);
    return name && arg ? `${name}(${arg})` : name;
  };
}
