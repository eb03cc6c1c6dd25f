// A node_modules for a generated package inside this repository's checkout, without a registry:
// our packages (@umbel/provider, @umbel/core, umbel) and the repository's build and test tools
// (vitest, tsup, typescript, @types/node), linked, with their bins. Put it in a folder above the
// generated package (Node and npm look upward). Used by src/scaffold.test.ts and record-template.mjs.
import { mkdir, readFile, realpath, symlink } from 'node:fs/promises';
import { join } from 'node:path';

export const REPO_ROOT = join(import.meta.dirname, '..', '..', '..');

/** Links them into `<host>/node_modules`. Needs `pnpm install` and `pnpm build` in the repository. */
export async function linkRepoDependencies(host) {
  const modules = join(host, 'node_modules');
  for (const dir of ['@umbel', '@types', '.bin']) await mkdir(join(modules, dir), { recursive: true });
  const ours = { '@umbel/provider': 'packages/provider', '@umbel/core': 'packages/core', umbel: 'packages/umbel' };
  const tools = Object.fromEntries(['vitest', 'tsup', 'typescript', '@types/node'].map((name) => [name, join('node_modules', name)]));
  for (const [name, dir] of Object.entries({ ...ours, ...tools })) {
    const real = await realpath(join(REPO_ROOT, dir));
    await symlink(real, join(modules, name), 'dir');
    const { bin } = JSON.parse(await readFile(join(real, 'package.json'), 'utf8'));
    const bins = typeof bin === 'string' ? { [name]: bin } : (bin ?? {});
    for (const [command, target] of Object.entries(bins)) await symlink(join(real, target), join(modules, '.bin', command));
  }
}
