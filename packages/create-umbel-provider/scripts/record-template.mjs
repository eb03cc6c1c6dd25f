#!/usr/bin/env node
// Records the template's src/__fixtures__/conformance.json again (after a change to the demo CLI or
// the template's provider): generates a package from the template in a scratch folder, runs its own
// `npm run record:conformance` (the demo CLI driven by this repository's built umbel on tmux), and
// turns the generated names in the recording back into the template's `{{…}}` keys.
//
//   pnpm build && node packages/create-umbel-provider/scripts/record-template.mjs
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, scaffoldNames, TEMPLATE_DIR } from '../dist/index.js';
import { linkRepoDependencies } from './repo-deps.mjs';

// A name no recorded text contains by chance, so every occurrence is one of the keys.
const names = scaffoldNames('umbel-provider-zqxdemo');
const OUT = join(TEMPLATE_DIR, 'src', '__fixtures__', 'conformance.json');
const work = realpathSync(mkdtempSync(join(tmpdir(), 'create-umbel-provider-record-')));
try {
  await linkRepoDependencies(work);
  const created = await runCli([names.name], work);
  if (created.code !== 0) throw new Error(created.stderr);
  execFileSync('npm', ['run', 'record:conformance'], { cwd: join(work, names.dir), stdio: 'inherit' });
  let text = readFileSync(join(work, names.dir, 'src', '__fixtures__', 'conformance.json'), 'utf8');
  // longest first: the bin and the variables contain the id
  for (const key of ['name', 'homeEnv', 'binEnv', 'bin', 'title', 'id']) text = text.split(names[key]).join(`{{${key}}}`);
  writeFileSync(OUT, text);
  process.stdout.write(`recorded ${OUT}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
