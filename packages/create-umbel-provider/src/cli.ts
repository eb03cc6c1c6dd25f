/**
 * `npm create umbel-provider@latest NAME` (= `npx create-umbel-provider NAME`): generates a provider
 * package for umbel in ./NAME. Exit 0 when generated (or for --help/--version), 2 for a usage error.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { generate } from './generate.js';
import { ScaffoldError, scaffoldNames } from './names.js';

export const VERSION = '0.1.0';

export const HELP = `Usage: npm create umbel-provider@latest NAME
       npx create-umbel-provider NAME

Generates an umbel provider package in ./NAME (NAME without its @scope/), built on the provider
kit (@umbel/provider): a tiny demo CLI (NAME's id + "-agent"), its provider, a recording of it for
umbel's conformance suite, the script that records it again, and the tests. The provider id is NAME
without "umbel-provider-" (umbel-provider-acme → acme).

Then: cd NAME && npm install && npm test

Options:
  -h, --help     show this help
  -v, --version  show the version
`;

/** What a run prints and its exit code. */
export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function nextSteps(name: string, dir: string, files: readonly string[], bin: string, id: string): string {
  return `Created ${name} in ./${dir} (${files.length} files).

Next steps:
  cd ${dir}
  npm install
  npm test                      # the conformance suite replays src/__fixtures__/conformance.json
  npm run build && UMBEL_PROVIDERS=$PWD npx umbel providers     # lists '${id}', running bin/${bin}.js

Then teach it your CLI in place of the demo ${bin}: its facts in src/facts.ts, its transcript in
src/transcript.ts, and record it again with npm run record:conformance (see README.md).
`;
}

/** Runs the command for `argv` in `cwd` (never exits the process). */
export async function runCli(argv: readonly string[], cwd: string): Promise<CliResult> {
  const usage = (message: string): CliResult => ({ code: 2, stdout: '', stderr: `create-umbel-provider: ${message}\n(see create-umbel-provider --help)\n` });
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: { help: { type: 'boolean', short: 'h' }, version: { type: 'boolean', short: 'v' } },
    });
  } catch (error) {
    return usage((error as Error).message);
  }
  if (parsed.values.help) return { code: 0, stdout: HELP, stderr: '' };
  if (parsed.values.version) return { code: 0, stdout: `create-umbel-provider ${VERSION}\n`, stderr: '' };
  const [name, ...extra] = parsed.positionals;
  if (name === undefined) return usage('NAME is missing: npm create umbel-provider@latest NAME (e.g. umbel-provider-acme)');
  if (extra.length > 0) return usage(`one NAME only (got also: ${extra.join(' ')})`);
  try {
    const names = scaffoldNames(name);
    const files = await generate(names, join(cwd, names.dir));
    return { code: 0, stdout: nextSteps(names.name, names.dir, files, names.bin, names.id), stderr: '' };
  } catch (error) {
    if (error instanceof ScaffoldError) return usage(error.message);
    throw error;
  }
}
