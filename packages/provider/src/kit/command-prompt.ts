/**
 * A prompt the CLI would run as its own command instead of sending it to the model — a leading
 * `/name` (a slash command), a `!…` (a local shell command) — refused with one message and hint. Pure.
 */
import type { RefusedPrompt } from './facts.js';

/** A leading slash command's name, `/name` (`//…`, `/*…`, `/1…` and paths with more after the name are text). */
export const SLASH_COMMAND = /^\/[A-Za-z][\w:.-]*(?=\s|$)/;

/** What the CLI would run a prompt as. */
export interface CommandPromptFacts {
  /** The CLI's name in the message (`gemini`). */
  readonly cli: string;
  /** What it would run the prompt as (`a slash command`, `a local shell command`). */
  readonly as: string;
  /** The start of the (trimmed) prompt it would run; default {@link SLASH_COMMAND}. */
  readonly match?: RegExp;
  /** Appended to the hint (e.g. how to run it as the CLI's command on purpose). */
  readonly hintMore?: string;
}

/** The refused prompt (the kit's `prompt.refuse`): "`cli` would run '`/name`' as `as` instead of sending it to the model". */
export function commandPrompt(facts: CommandPromptFacts): RefusedPrompt {
  return {
    match: facts.match ?? SLASH_COMMAND,
    message: (command) => `${facts.cli} would run '${command}' as ${facts.as} instead of sending it to the model`,
    hint: (prompt) => `put a word before it, e.g. 'Please: ${prompt.slice(0, 40)}'${facts.hintMore ?? ''}`,
  };
}
