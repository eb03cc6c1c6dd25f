import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { globalNodeModules, npmPrefix } from './global-dir.js';

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'umbel-prefix-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe("npm's global prefix, computed the way `npm config get prefix` does (npm is never run)", () => {
  const execPath = '/opt/node-v20/bin/node';

  it('defaults to the directory above the node binary', async () => {
    expect(await npmPrefix({ env: { HOME: join(scratch, 'none') }, execPath })).toBe('/opt/node-v20');
    expect(await globalNodeModules({ env: { HOME: join(scratch, 'none') }, execPath })).toBe('/opt/node-v20/lib/node_modules');
  });

  it('takes npm_config_prefix from the environment, in either case', async () => {
    expect(await npmPrefix({ env: { npm_config_prefix: '/p/lower', HOME: '/h' }, execPath })).toBe('/p/lower');
    expect(await npmPrefix({ env: { NPM_CONFIG_PREFIX: '/p/upper', HOME: '/h' }, execPath })).toBe('/p/upper');
  });

  it('reads prefix= from the user npmrc (~/.npmrc, or NPM_CONFIG_USERCONFIG), expanding ~ and $-brace variables', async () => {
    const home = join(scratch, 'home');
    await mkdir(home, { recursive: true });
    await writeFile(join(home, '.npmrc'), '; a comment\nregistry=https://registry.example/\n  prefix = ~/.npm-global  \n');
    expect(await npmPrefix({ env: { HOME: home }, execPath })).toBe(join(home, '.npm-global'));
    const other = join(scratch, 'other.npmrc');
    await writeFile(other, `prefix="\${MYPREFIX}/g"\n`);
    expect(await npmPrefix({ env: { HOME: home, NPM_CONFIG_USERCONFIG: other, MYPREFIX: '/srv' }, execPath })).toBe('/srv/g');
  });

  it('reads prefix= from the global npmrc (<default prefix>/etc/npmrc) when the user has none', async () => {
    const node = join(scratch, 'node-install');
    await mkdir(join(node, 'etc'), { recursive: true });
    await writeFile(join(node, 'etc', 'npmrc'), 'prefix=/usr/local\n');
    expect(await npmPrefix({ env: { HOME: join(scratch, 'none') }, execPath: join(node, 'bin', 'node') })).toBe('/usr/local');
  });
});
