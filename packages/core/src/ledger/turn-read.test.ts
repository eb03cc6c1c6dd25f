// The side records a provider declares are read by the engine beside the transcript.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readSideRecords } from './turn-read.js';

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
