/**
 * A tool call as one activity line, for `umbel status` and a running turn. Pure. Two CLI styles:
 * `name(argument)` (Claude Code, Gemini CLI, Qwen Code) and `name: argument` (opencode); the
 * argument is flattened to one line of at most 80 characters.
 */
import { asRecord, stringField } from './json.js';
import { oneLine } from './matchers.js';

/** How the line joins the tool and its argument: `call` → `name(arg)`, `colon` → `name: arg`. */
export type ActivityStyle = 'call' | 'colon';

/** The first non-empty string among the input's `fields` (most telling first; dotted for nested ones), on one line. */
export function toolArgument(input: unknown, fields: readonly string[]): string | undefined {
  const record = asRecord(input);
  const value = fields.map((field) => stringField(record, field)).find(Boolean);
  return value === undefined ? undefined : oneLine(value);
}

/** The tool and its argument by {@link toolArgument}; the tool alone when the input has none of `keys`. */
export function toolActivity(tool: string, args: unknown, keys: readonly string[], style: ActivityStyle = 'call'): string {
  const arg = toolArgument(args, keys);
  if (arg === undefined) return tool;
  return style === 'call' ? `${tool}(${arg})` : `${tool}: ${arg}`;
}

/** Where a hook payload names the tool being run and its input (dotted keys reach into objects). */
export interface ToolActivityFacts {
  /** The field naming the tool. */
  readonly tool: string;
  /** The field holding the tool's input object. */
  readonly input: string;
  /** Input fields tried in order for the argument shown; the first non-empty text wins. */
  readonly fields: readonly string[];
  readonly style?: ActivityStyle;
  /** The whole line cut to this many characters (a long tool name included); default no cut beyond the argument's. */
  readonly max?: number;
}

/** The payload fact `activity` of these fields (toolActivity of the payload's tool), undefined without a tool. */
export function payloadActivity(facts: ToolActivityFacts): (payload: Record<string, unknown>) => string | undefined {
  return (payload) => {
    const name = stringField(payload, facts.tool);
    const keys = facts.fields.map((field) => `${facts.input}.${field}`);
    const line = name ? toolActivity(name, payload, keys, facts.style) : undefined;
    return line !== undefined && facts.max !== undefined ? oneLine(line, facts.max) : line;
  };
}
