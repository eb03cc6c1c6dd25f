/**
 * How a prompt must be pasted into Gemini CLI (reference gemini.md §6). umbel always pastes
 * (bracketed paste), which delivers newlines, tabs, quotes, `$`, backticks, Unicode and leading
 * `!`/`?` byte-exact. What cannot be delivered as sent is refused with the reason.
 */
import { UsageError } from '@umbel/core';

/**
 * A prompt whose first word is a command name (`/name …`): gemini runs it as a slash command
 * when a built-in, custom (`.gemini/commands`) or extension command of that name exists, so it
 * would never reach the model. `//…`, `/*…` and paths such as `/tmp/x` are sent as text.
 */
const SLASH_COMMAND_RE = /^\/[A-Za-z][\w:.-]*(?=\s|$)/;

/**
 * Text to paste for `prompt`.
 * - trailing `\`: Enter after a trailing backslash inserts a newline instead of submitting, so a
 *   `\n` is appended (verified workaround); the CLI trims it, the backslash arrives exactly.
 * - leading/trailing whitespace: delivered, but gemini trims the prompt on submit (unavoidable).
 * - `@path`: delivered as sent; gemini appends the file's content for the model (its own feature).
 * @throws UsageError for an empty prompt or one gemini would run as a slash command.
 */
export function prepareGeminiPrompt(prompt: string): string {
  const trimmed = prompt.trim();
  if (trimmed === '') throw new UsageError('the prompt is empty after trimming, and gemini ignores an empty submit');
  const command = SLASH_COMMAND_RE.exec(trimmed);
  if (command) {
    throw new UsageError(`gemini would run '${command[0]}' as a slash command (built-in, custom or extension) instead of sending it to the model`, {
      hint: `put a word before it, e.g. 'Please: ${trimmed.slice(0, 40)}'`,
    });
  }
  return prompt.endsWith('\\') ? `${prompt}\n` : prompt;
}
