import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readCodexTurn } from './rollout.js';

// Recorded from the real codex 0.171.0 against test-fixtures/mock-servers/openai-responses.mjs
// (tests/real/codex-background.test.ts; long instruction texts trimmed): "BGTOOL sleep 20; touch
// bg-done" — exec_command yields after 250 ms, its output "Process running with session ID 51120",
// the turn ends (task_complete) while the command runs; 20 s later codex appends the command's
// `item_completed` CommandExecution (process_id 51120, exit_code 0) under that turn's id.
const real = readFileSync(new URL('./__fixtures__/real-0.171.0-background-terminal.jsonl', import.meta.url), 'utf8');
const lines = real.trimEnd().split('\n');
const ordinalOf = (line: string) => (JSON.parse(line) as { ordinal: number }).ordinal;
const taskComplete = lines.findIndex((l) => l.includes('"type":"task_complete"'));
const terminal = [{ kind: 'terminal', id: '51120', running: true }];

describe('a background terminal in the rollout (codex 0.171.0)', () => {
  it('a turn that ended while a command it started still ran lists that terminal, running', () => {
    // at the Stop hook (no task_complete yet), at the turn's end, and read after the command ended: what ran at the end
    for (const upTo of [taskComplete, taskComplete + 1, lines.length]) {
      const read = readCodexTurn({ content: `${lines.slice(0, upTo).join('\n')}\n`, ordinal: 1, stopSeen: true });
      expect(read, `lines up to ordinal ${ordinalOf(lines[upTo - 1] ?? '')}`).toMatchObject({
        status: 'completed',
        answer: 'TOOL-RESULT: (empty)',
        background: terminal,
      });
    }
  });

  it('a terminal that ended before the turn did is not listed, nor is a turn without one', () => {
    const ended = lines[lines.length - 1] as string;
    const before = [...lines.slice(0, taskComplete), ended, ...lines.slice(taskComplete, -1)];
    expect(readCodexTurn({ content: `${before.join('\n')}\n`, ordinal: 1, stopSeen: true })).not.toHaveProperty('background');
    const plain = lines.map((l) => l.replace('Process running with session ID 51120', 'Process exited with code 0'));
    expect(readCodexTurn({ content: `${plain.join('\n')}\n`, ordinal: 1, stopSeen: true })).not.toHaveProperty('background');
  });

  it('a terminal the model polled until it exited (write_stdin) is not listed', () => {
    const poll = (ordinal: number, type: string, extra: Record<string, unknown>) =>
      JSON.stringify({
        ordinal,
        type: 'response_item',
        payload: {
          type,
          call_id: 'call_poll',
          ...extra,
          internal_chat_message_metadata_passthrough: { turn_id: JSON.parse(lines[1] as string).payload.turn_id },
        },
      });
    const polled = [
      ...lines.slice(0, 12),
      poll(100, 'function_call', { name: 'write_stdin', arguments: JSON.stringify({ session_id: 51120, chars: '' }) }),
      poll(101, 'function_call_output', { output: 'Chunk ID: b\nWall time: 20.0 seconds\nProcess exited with code 0\nOriginal token count: 0\nOutput:\n' }),
      ...lines.slice(12, taskComplete + 1),
    ];
    expect(readCodexTurn({ content: `${polled.join('\n')}\n`, ordinal: 1, stopSeen: true })).not.toHaveProperty('background');
  });
});
