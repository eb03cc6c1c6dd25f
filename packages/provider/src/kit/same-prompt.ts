/**
 * Whether the prompt text a CLI recorded is the prompt umbel sent: a TUI's input box turns a tab into
 * four spaces and CR/CRLF into LF (Claude Code's, Copilot's), and the recorded text is trimmed. Pure.
 */
import { attempt } from './attempt.js';
import type { PromptFacts } from './facts.js';
import { preparePrompt } from './prompt.js';

const normalized = (text: string) => text.replace(/\t/g, '    ').replace(/\r\n?/g, '\n').trim();

/** `recorded` equals `sent`, or its pasted form under the CLI's prompt `facts`, both normalized as the input box does. */
export function samePrompt(recorded: string, sent: string, facts: PromptFacts = {}): boolean {
  const text = normalized(recorded);
  // a prompt the facts refuse has no pasted form (it was never sent)
  const paste = attempt(() => preparePrompt(facts, sent));
  return text === normalized(sent) || (paste !== undefined && text === normalized(paste));
}
