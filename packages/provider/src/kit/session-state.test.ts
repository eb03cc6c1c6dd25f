import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editQuietly, removeSessionState } from './session-state.js';

const SID = '2b1d24f8-952c-4424-829d-ec3fad93089d';

describe('forgetting sessions in a CLI’s own state', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'umbel-session-state-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('removes the sessions’ dirs and the files naming them, nothing else; an unsafe id names nothing', async () => {
    await mkdir(join(root, 'env', SID, 'deep'), { recursive: true });
    await mkdir(join(root, 'env', 'other-session'), { recursive: true });
    await mkdir(join(root, 'logs'));
    await writeFile(join(root, 'logs', `a.${SID}.json`), '{}');
    await writeFile(join(root, 'logs', 'b.other.json'), '{}');
    await removeSessionState(root, [SID, '..', 'short'], { dirs: ['env', 'missing'], namedFiles: ['logs', 'absent'] });
    expect(await readdir(join(root, 'env'))).toEqual(['other-session']);
    expect(await readdir(join(root, 'logs'))).toEqual(['b.other.json']);
    await removeSessionState(root, ['../env'], { dirs: ['env'] });
    expect(await readdir(join(root, 'env'))).toEqual(['other-session']);
  });

  it('edits a shared file quietly: a missing path or file, or a failing edit, is nothing', async () => {
    const path = join(root, 'state.json');
    await writeFile(path, 'old');
    await editQuietly(path, (text) => `${text}+new`);
    expect(await readFile(path, 'utf8')).toBe('old+new');
    await expect(editQuietly(undefined, () => 'x')).resolves.toBeUndefined();
    await expect(editQuietly(join(root, 'none'), () => 'x')).resolves.toBeUndefined();
    const failing = () => {
      throw new Error('edit failed');
    };
    await expect(editQuietly(path, failing)).resolves.toBeUndefined();
    expect(await readFile(path, 'utf8')).toBe('old+new');
  });
});
