/** Compiling prompt facts into `doPreparePrompt`. Pure. */
import { UsageError } from '../errors.js';
import type { PromptFacts } from './facts.js';

/** The text to paste for `prompt` (see {@link PromptFacts} for the order); throws UsageError for a refused one. */
export function preparePrompt(facts: PromptFacts, prompt: string): string {
  let text = facts.normalizeNewlines ? prompt.replace(/\r\n?/g, '\n') : prompt;
  const trimmed = text.trim();
  for (const refused of facts.refuse ?? []) {
    const m = refused.match.exec(trimmed);
    if (m) throw new UsageError(refused.message(m[0]), refused.hint ? { hint: refused.hint(trimmed) } : {});
  }
  if ((facts.escapeLeading ?? []).some((lead) => text.startsWith(lead))) text = ` ${text}`;
  for (const { endsWith, append } of facts.trailing ?? []) if (text.endsWith(endsWith)) text += append;
  return text;
}
