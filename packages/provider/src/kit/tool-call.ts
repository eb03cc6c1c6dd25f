/** A tool call on one line, as the CLIs draw it: `Bash(ls -la)`, `Read(/a/b.ts)`, or the bare name. Pure. */
import { asRecord, stringField } from './json.js';
import { oneLine } from './matchers.js';

/** The first non-empty string among the input's `fields` (most telling first; dotted for nested ones), on one line. */
export function toolArgument(input: unknown, fields: readonly string[]): string | undefined {
  const record = asRecord(input);
  for (const field of fields) {
    const value = stringField(record, field);
    if (value !== undefined) return oneLine(value);
  }
  return undefined;
}

/** `name(argument)` by {@link toolArgument}, or the bare name when the input has none of `fields`. */
export function describeToolCall(name: string, input: unknown, fields: readonly string[]): string {
  const argument = toolArgument(input, fields);
  return argument === undefined ? name : `${name}(${argument})`;
}
