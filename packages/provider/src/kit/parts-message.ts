/**
 * One Gemini API `Content` (a model's or a user's parts, as Gemini CLI and its forks record them) as
 * one message of a turn in Claude's stream-json shape (ProviderV1's `doReadMessages`). Pure.
 */
import type { ProviderV1Message } from '../spec.js';
import { assistantMessage, textBlock, type toolUseBlock, toolResultsMessage } from './messages.js';
import { functionCallBlocks, functionResponseBlocks, partsText } from './parts.js';

/** What the record says beside its parts. */
export interface PartsMessageOptions {
  readonly uuid?: string;
  /** The model that wrote a `model` content. */
  readonly model?: string;
  /** `tool_use` blocks of calls the CLI recorded beside the parts (after the text; a `functionCall` part of the same id is not repeated). */
  readonly calls?: readonly ReturnType<typeof toolUseBlock>[];
}

/**
 * `model` parts: an assistant message of their text and tool calls; `user` parts: a message of
 * their `functionResponse`s as tool results (a prompt's text is none); undefined when there is nothing.
 */
export function partsMessage(role: 'model' | 'user', parts: unknown, options: PartsMessageOptions = {}): ProviderV1Message | undefined {
  if (role === 'user') {
    const results = functionResponseBlocks(parts);
    return results.length > 0 ? toolResultsMessage(results, options.uuid) : undefined;
  }
  const text = partsText(parts);
  const calls = options.calls ?? [];
  const more = functionCallBlocks(parts).filter((block) => !calls.some((call) => call.id === block.id));
  const content = [...(text !== '' ? [textBlock(text)] : []), ...calls, ...more];
  return content.length > 0 ? assistantMessage(content, options.uuid, options.model ? { model: options.model } : {}) : undefined;
}
