import { mkdir, mkdtemp, readlink, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkUserOrShared } from './shared-link.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'umbel-kit-shared-link-'));
  await mkdir(join(dir, 'home'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('linkUserOrShared', () => {
  it("links to the user's entry when it exists", async () => {
    await mkdir(join(dir, 'user-tmp'));
    expect(await linkUserOrShared(join(dir, 'user-tmp'), join(dir, 'shared', 'tmp'), join(dir, 'home', 'tmp'))).toBe(true);
    expect(await readlink(join(dir, 'home', 'tmp'))).toBe(join(dir, 'user-tmp'));
  });

  it('else links to the shared directory, created private', async () => {
    expect(await linkUserOrShared(join(dir, 'user-tmp'), join(dir, 'shared', 'tmp'), join(dir, 'home', 'tmp'))).toBe(true);
    expect(await readlink(join(dir, 'home', 'tmp'))).toBe(join(dir, 'shared', 'tmp'));
    expect((await stat(join(dir, 'shared', 'tmp'))).mode & 0o777).toBe(0o700);
  });

  it('keeps what is already there', async () => {
    await writeFile(join(dir, 'home', 'tmp'), 'the CLI wrote this');
    await mkdir(join(dir, 'user-tmp'));
    expect(await linkUserOrShared(join(dir, 'user-tmp'), join(dir, 'shared', 'tmp'), join(dir, 'home', 'tmp'))).toBe(false);
    expect((await stat(join(dir, 'home', 'tmp'))).isFile()).toBe(true);
  });
});
