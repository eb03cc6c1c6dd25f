// The side records a provider declares are read by the engine beside the transcript.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProviderV1 } from '@umbel/provider';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ProviderFailedError } from '../contract/errors.js';
import { createMockProvider } from '../testing/index.js';
import type { TurnView, UsableView } from './ledger-types.js';
import { readMessages, readSideRecords, readTurn, readTurns } from './turn-read.js';

const root = mkdtempSync(join(tmpdir(), 'umbel-side-'));
const dir = join(root, 'provider');
mkdirSync(join(dir, 'home'), { recursive: true });
writeFileSync(join(dir, 'telemetry.log'), '0123456789');
writeFileSync(join(dir, 'home', 'settings.json'), '{}');
writeFileSync(join(root, 'outside.txt'), 'secret');
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('readSideRecords', () => {
  it('reads each record by name, only the tail past maxBytes; a missing one is absent', () => {
    const read = readSideRecords(dir, [
      { name: 'telemetry', path: 'telemetry.log', maxBytes: 4 },
      { name: 'settings', path: 'home/settings.json' },
      { name: 'later', path: 'not-yet.log' },
    ]);
    expect(read).toEqual({ telemetry: '6789', settings: '{}' });
  });

  it('reads a record only when the reader asks for it (a turn the transcript already settles costs no side read), once', () => {
    const read = readSideRecords(dir, [{ name: 'late', path: 'late.log' }]) as Record<string, string | undefined>;
    writeFileSync(join(dir, 'late.log'), 'first');
    expect(read.late).toBe('first');
    writeFileSync(join(dir, 'late.log'), 'second');
    expect(read.late).toBe('first');
  });

  it('never reads outside the provider dir', () => {
    expect(
      readSideRecords(dir, [
        { name: 'x', path: '../outside.txt' },
        { name: 'y', path: join(root, 'outside.txt') },
      ]),
    ).toEqual({});
  });

  it('no records declared: undefined', () => {
    expect(readSideRecords(dir, undefined)).toBeUndefined();
    expect(readSideRecords(dir, [])).toBeUndefined();
  });
});

describe('readTurn: one parse of a transcript text for all its readers', () => {
  const transcriptPath = join(root, 'transcript.jsonl');
  writeFileSync(transcriptPath, '{"a":1}\n');
  const turn = { turn: 1, prompt: 'hi', stopSeen: true } as unknown as TurnView;
  const viewOf = (provider: ProviderV1) => ({ provider, paths: { provider: dir }, transcript: { path: transcriptPath } }) as unknown as UsableView;

  it('hands the parse to the turn read and to the messages, parsing the text once', async () => {
    const parsed = { lines: 1 };
    const doParseTranscript = vi.fn(() => parsed);
    const doReadTurn = vi.fn((o: { parsed?: unknown }) =>
      o.parsed === parsed ? { status: 'completed' as const, answer: 'a' } : { status: 'missing' as const },
    );
    const doReadMessages = vi.fn((o: { parsed?: unknown }) => (o.parsed === parsed ? [{ type: 'assistant' as const, message: 'a' }] : []));
    const view = viewOf({ ...createMockProvider(), doParseTranscript, doReadTurn, doReadMessages });
    const { read, options } = await readTurn(view, turn);
    expect(read).toEqual({ status: 'completed', answer: 'a' });
    expect(readMessages(view, options)).toHaveLength(1);
    expect(doParseTranscript).toHaveBeenCalledTimes(1);
    expect(doParseTranscript).toHaveBeenCalledWith({ content: '{"a":1}\n', transcriptPath });
  });

  it('parses the text once for all the turns read from it (actions of every turn)', async () => {
    const doParseTranscript = vi.fn(() => ({}));
    const view = viewOf({ ...createMockProvider(), doParseTranscript });
    const reads = await readTurns(view, [turn, { ...turn, turn: 2 } as TurnView, { ...turn, turn: 3 } as TurnView]);
    expect(reads).toHaveLength(3);
    expect(doParseTranscript).toHaveBeenCalledTimes(1);
  });

  it("a parse that throws is the provider's failure, named", async () => {
    const view = viewOf({
      ...createMockProvider(),
      doParseTranscript: () => {
        throw new Error('bad');
      },
    });
    await expect(readTurn(view, turn)).rejects.toThrow(ProviderFailedError);
    await expect(readTurn(view, turn)).rejects.toThrow(/doParseTranscript/);
  });
});
