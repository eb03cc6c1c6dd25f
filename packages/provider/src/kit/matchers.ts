/**
 * Screen matchers: what a fact table uses to recognise a screen. A `string` matches when the text
 * contains it, a `RegExp` when it tests true, a function when it returns true. Pure.
 */

/** Recognises a screen (or, in line tables, one line of it). */
export type Matcher = string | RegExp | ((text: string) => boolean);

/** Whether `matcher` matches `text`. */
export function matches(matcher: Matcher, text: string): boolean {
  if (typeof matcher === 'string') return text.includes(matcher);
  if (typeof matcher === 'function') return matcher(text);
  matcher.lastIndex = 0;
  return matcher.test(text);
}

/** What `matcher` matched in `text`: the match of a RegExp, else the whole text. */
export function matchedText(matcher: Matcher, text: string): string {
  if (!(matcher instanceof RegExp)) return text;
  matcher.lastIndex = 0;
  return matcher.exec(text)?.[0] ?? text;
}

/** The first line of `screen` that `matcher` matches, or undefined. */
export function findLine(screen: string, matcher: Matcher): string | undefined {
  return screen.split('\n').find((line) => matches(matcher, line));
}

/** Matches when every matcher does. */
export function allOf(...matchers: readonly Matcher[]): Matcher {
  return (text) => matchers.every((m) => matches(m, text));
}

/** Matches when any matcher does. */
export function anyOf(...matchers: readonly Matcher[]): Matcher {
  return (text) => matchers.some((m) => matches(m, text));
}

/**
 * Matches a screen whose selection cursor (`❯`, `›`, `●`) sits on an option starting with `label`,
 * optionally inside a `│` box: the option a dialog would take on Enter.
 */
export function cursorOn(cursor: string, label: string): Matcher {
  return (screen) =>
    screen.split('\n').some((line) => {
      const rest = line.replace(/^[\s│]*/, '');
      return rest.startsWith(cursor) && rest.slice(cursor.length).trimStart().startsWith(label);
    });
}

/** A line trimmed of whitespace and box borders (`│`, `|`), as a sign-in line is reported. */
export function trimBox(line: string): string {
  return line.replace(/^[\s│|]+|[\s│|]+$/g, '');
}

/** Collapse whitespace runs (newlines too) and cut to `max` characters with an ellipsis. */
export function oneLine(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
