/**
 * Whether the prompt text a CLI recorded is the prompt umbel sent: a TUI's input box turns a tab into
 * four spaces and CR/CRLF into LF (Claude Code's, Copilot's), and the recorded text is trimmed. Pure.
 */
import type { PromptFacts } from './facts.js';
import { preparePrompt } from './prompt.js';

const normalized = (text: string) => text.replace(/\t/g, '    ').replace(/\r\n?/g, '\n').trim();

/** The pasted text of `sent` under `facts`, or undefined for a prompt the facts refuse (it was never sent). */
function pasted(facts: PromptFacts, sent: string): string | undefined {
  try {
    return preparePrompt(facts, sent);
  } catch {
    return undefined;
  }
}

/** `recorded` equals `sent`, or its pasted form under the CLI's prompt `facts`, both normalized as the input box does. */
export function samePrompt(recorded: string, sent: string, facts: PromptFacts = {}): boolean {
  const text = normalized(recorded);
  const paste = pasted(facts, sent);
  return text === normalized(sent) || (paste !== undefined && text === normalized(paste));
}
