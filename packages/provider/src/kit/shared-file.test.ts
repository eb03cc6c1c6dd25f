import { writeFileSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editSharedFile, withoutJsonLines } from './shared-file.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'umbel-shared-file-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('editSharedFile', () => {
  it('writes the edit keeping the mode, and nothing when the edit says so or the file is missing', async () => {
    const path = join(dir, 'state.json');
    await writeFile(path, 'one');
    await chmod(path, 0o644);
    expect(await editSharedFile(path, (text) => `${text} two`)).toBe(true);
    expect(await readFile(path, 'utf8')).toBe('one two');
    expect((await stat(path)).mode & 0o777).toBe(0o644);
    expect(await editSharedFile(path, () => undefined)).toBe(false);
    expect(await editSharedFile(join(dir, 'absent'), () => 'x')).toBe(false);
    await expect(stat(join(dir, 'absent'))).rejects.toThrow();
  });
  it('makes the edit again on the newer text when the file changed under it', async () => {
    const path = join(dir, 'history.jsonl');
    await writeFile(path, 'a');
    let calls = 0;
    const edit = (text: string) => {
      calls += 1;
      // another writer appends while the first edit is being made
      if (calls === 1) writeFileSync(path, 'a b');
      return `${text}!`;
    };
    expect(await editSharedFile(path, edit)).toBe(true);
    expect(calls).toBe(2);
    expect(await readFile(path, 'utf8')).toBe('a b!');
  });
});

describe('withoutJsonLines', () => {
  it('drops the object lines picked, keeps the rest as they are', () => {
    const text = '{"p":"a"}\n{"p":"b"}\nnot json\n{"p":"a","x":1}\n';
    expect(withoutJsonLines(text, (v) => v.p === 'a')).toBe('{"p":"b"}\nnot json\n');
    expect(withoutJsonLines(text, (v) => v.p === 'z')).toBeUndefined();
  });
});
