/** Permission rule lists as the CLIs take them on one flag (`--allowedTools "Bash(git diff:*) Edit,Read"`). Pure. */

/** The rules of a list: split on commas and whitespace outside parentheses (a rule's own argument may hold both). */
export function splitToolRules(value: string): string[] {
  const rules: string[] = [];
  let current = '';
  let depth = 0;
  for (const char of value) {
    if (char === '(') depth += 1;
    else if (char === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && (char === ',' || /\s/.test(char))) {
      if (current !== '') rules.push(current);
      current = '';
    } else current += char;
  }
  if (current !== '') rules.push(current);
  return rules;
}
