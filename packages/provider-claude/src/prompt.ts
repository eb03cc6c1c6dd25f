/**
 * Text to paste for a prompt. Claude Code's TUI treats a prompt starting with `/` as a slash command
 * and one starting with `!` as a local shell command (bash mode), even when pasted. One leading space
 * defeats both, so the text reaches the model as a prompt (claude-code.md §5). Everything else is
 * returned unchanged. Pure.
 */
export function prepareClaudePrompt(prompt: string): string {
  return prompt.startsWith('/') || prompt.startsWith('!') ? ` ${prompt}` : prompt;
}
