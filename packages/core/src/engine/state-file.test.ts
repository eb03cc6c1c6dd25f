// State files are opened only when they are regular files, bounded, and a refusal names the file.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StateInvalidError } from '../contract/errors.js';
import { closeFifoValves, plantFifo } from '../testing/__fixtures__/fifo.js';
import { readStateFile, readStateFileSync } from './state-file.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'umbel-state-file-'));
});
afterEach(async () => {
  closeFifoValves();
  await rm(dir, { recursive: true, force: true });
});

const refusal = async (read: () => unknown) => {
  try {
    await read();
  } catch (error) {
    return error as StateInvalidError;
  }
  throw new Error('expected a refusal');
};

describe.each([
  ['readStateFileSync', readStateFileSync],
  ['readStateFile', readStateFile],
] as const)('%s', (_name, read) => {
  it('reads a regular file', async () => {
    await writeFile(join(dir, 'a.json'), '{"a":1}');
    expect(await read(join(dir, 'a.json'))).toBe('{"a":1}');
  });

  it('refuses a named pipe at once, naming it', async () => {
    const pipe = join(dir, 'pipe.json');
    plantFifo(pipe);
    const error = await refusal(() => read(pipe));
    expect(error).toBeInstanceOf(StateInvalidError);
    expect(error).toMatchObject({ code: 'UMBEL_STATE_INVALID', path: pipe });
    expect(error.message).toContain(`${pipe}: is a named pipe`);
  });

  it('refuses a device, a directory and a file over its bound', async () => {
    expect((await refusal(() => read('/dev/zero'))).message).toContain('is a device');
    await mkdir(join(dir, 'd'));
    expect((await refusal(() => read(join(dir, 'd')))).message).toContain('is a directory');
    await writeFile(join(dir, 'big'), 'x'.repeat(100));
    expect((await refusal(() => read(join(dir, 'big'), 99))).message).toContain('too large');
  });

  it('passes fs errors through (a missing file is ENOENT)', async () => {
    expect(await refusal(() => read(join(dir, 'missing')))).toMatchObject({ code: 'ENOENT' });
  });
});
