/**
 * The parts of a Gemini API `Content` (`{text, thought?}`, `{functionCall: {id, name, args}}`,
 * `{functionResponse: {id, name, response}}`), which Gemini CLI and its forks (Qwen Code, …)
 * record in their chats, as the text and the stream-json blocks of a turn's messages. Tolerant of
 * anything else in the list. Pure.
 */
import { asRecord } from './json.js';
import { toolResultBlock, toolUseBlock } from './messages.js';

function partsOf(content: unknown): Record<string, unknown>[] {
  return Array.isArray(content) ? content.map((p) => asRecord(p)).filter((p) => p !== undefined) : [];
}

/** The text parts joined (thoughts left out); a string content is its own text, anything else none. */
export function partsText(content: unknown): string {
  if (typeof content === 'string') return content;
  return partsOf(content)
    .filter((p) => typeof p.text === 'string' && !p.thought)
    .map((p) => p.text as string)
    .join('');
}

/** A `tool_use` block for each `functionCall` part (`input` `{}` when it has no `args`). */
export function functionCallBlocks(content: unknown): ReturnType<typeof toolUseBlock>[] {
  return partsOf(content).flatMap((p) => {
    const call = asRecord(p.functionCall);
    return call ? [toolUseBlock(call.id, call.name, call.args ?? {})] : [];
  });
}

/** A `tool_result` block for each `functionResponse` part: the response's `output` text, else the response as JSON. */
export function functionResponseBlocks(content: unknown): ReturnType<typeof toolResultBlock>[] {
  return partsOf(content).flatMap((p) => {
    const response = asRecord(p.functionResponse);
    if (!response) return [];
    const r = response.response;
    const output = asRecord(r)?.output;
    return [toolResultBlock(response.id, typeof output === 'string' ? output : JSON.stringify(r ?? null))];
  });
}
