/**
 * The built bin's code cache (./boot.ts), in new processes, where V8 checks what it is given: the
 * first successful command of a kind writes its cache, the next ones load it without writing, a
 * corrupt file is refused (the command runs the same) and written again, a failed command writes
 * none. Needs `pnpm build`.
 */
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, testEnv, umbelRunner } from '../../../test-fixtures/real/umbel-helpers.mjs';

let scratch: string;
let cache: string;
let umbel: ReturnType<typeof umbelRunner>['run'];

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs', 'packages/cli/dist/bin.cjs']);
  scratch = await mkdtemp(join(tmpdir(), 'umbel-code-cache-'));
  cache = join(scratch, 'cache');
  ({ run: umbel } = umbelRunner({ cwd: scratch, env: testEnv({ home: scratch, umbelHome: join(scratch, 'state'), UMBEL_CODE_CACHE: cache }) }));
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

const files = async (kind: string) => (await readdir(cache).catch(() => [])).filter((f) => f.includes(`-${kind}-`));

describe('the bin through its code cache', () => {
  it('writes the cache of a kind once, loads it after, and takes a corrupt one for a miss', async () => {
    expect(await umbel(['--version'])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^umbel \d+\.\d+\.\d+\n$/) });
    const [file, ...more] = await files('version');
    expect(more).toEqual([]);
    const path = join(cache, file as string);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const written = await readFile(path);
    const before = (await stat(path)).mtimeMs;
    expect((await umbel(['--version'])).code).toBe(0);
    // loaded, not written again
    expect((await stat(path)).mtimeMs).toBe(before);
    await writeFile(path, Buffer.alloc(written.length, 7));
    expect(await umbel(['--version'])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^umbel /) });
    const again = await readFile(path);
    expect(again.equals(Buffer.alloc(written.length, 7))).toBe(false);
    expect(again.length).toBeGreaterThan(1000);
  });

  it('a failed command writes no cache of its kind; a successful one does', async () => {
    expect((await umbel(['status', 'no-such-worker'])).code).not.toBe(0);
    expect(await files('verbs')).toEqual([]);
    expect(await umbel(['ls', '--json'])).toMatchObject({ code: 0, stdout: '[]\n' });
    expect(await files('verbs')).toHaveLength(1);
  });
});
