/** The template keeps up with the repository: its ranges are the ones this release ships and tests with. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { TEMPLATE_DIR } from './generate.js';

const root = join(import.meta.dirname, '..', '..', '..');
const json = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

it("asks for this release's @umbel packages and the repository's build and test tools", () => {
  const template = json(join(TEMPLATE_DIR, 'package.json.tmpl'));
  const version = (dir: string) => json(join(root, 'packages', dir, 'package.json')).version as string;
  const [major, minor] = version('provider').split('.').map(Number);
  expect(template.peerDependencies).toEqual({ '@umbel/provider': `>=${major}.${minor}.0 <${(major ?? 0) + 1}` });
  const tools = json(join(root, 'package.json')).devDependencies;
  expect(template.devDependencies).toEqual({
    '@types/node': tools['@types/node'],
    '@umbel/core': `^${version('core')}`,
    '@umbel/provider': `^${version('provider')}`,
    tsup: tools.tsup,
    typescript: tools.typescript,
    umbel: `^${version('umbel')}`,
    vitest: tools.vitest,
  });
});
