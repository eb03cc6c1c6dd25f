import { describe, expect, it } from 'vitest';
import type { ProviderV1ReadTurnOptions } from '../spec.js';
import { unparsedReader } from './unparsed.js';

const options = (content: string, ordinal = 1): ProviderV1ReadTurnOptions => ({ content, transcriptPath: '/t/x.jsonl', ordinal, stopSeen: false });

describe('unparsedReader', () => {
  it('parses the options’ text (with its path) on each call and hands the parse to turn and messages', () => {
    const seen: string[] = [];
    const reader = unparsedReader({
      parse: (content: string, path: string) => {
        seen.push(`${path}:${content}`);
        return content.split(',');
      },
      turn: (lines, o) => (lines[o.ordinal - 1] ? { status: 'completed' as const, answer: lines[o.ordinal - 1] as string } : { status: 'missing' as const }),
      messages: (lines, o) => lines.slice(0, o.ordinal),
    });
    expect(reader.read(options('a,b', 2))).toEqual({ status: 'completed', answer: 'b' });
    expect(reader.read(options('a', 2))).toEqual({ status: 'missing' });
    expect(reader.messages(options('a,b,c', 2))).toEqual(['a', 'b']);
    expect(seen).toEqual(['/t/x.jsonl:a,b', '/t/x.jsonl:a', '/t/x.jsonl:a,b,c']);
  });
});
