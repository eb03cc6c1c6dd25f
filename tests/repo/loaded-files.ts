/**
 * Which files a fresh node process loads: a module hook registered with `--import` appends every
 * `file:` URL the ESM loader loads to a log, read back when the process has ended.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Install the hook module in `scratch` (once per test file). */
export async function installLoadHook(scratch: string): Promise<void> {
  await writeFile(
    join(scratch, 'hooks.mjs'),
    `import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function load(url, context, next) {
  if (url.startsWith('file:')) appendFileSync(log, url + '\\n');
  return next(url, context);
}\n`,
  );
}

/** The files `node <args>` loads (`tag` names its log), run in `scratch` with `env`; the hook's own register file left out. */
export async function filesLoadedBy(scratch: string, tag: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<string[]> {
  const log = join(scratch, `${tag}.log`);
  const register = join(scratch, `${tag}-register.mjs`);
  await writeFile(log, '');
  await writeFile(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(scratch, 'hooks.mjs')).href)}, { data: { log: ${JSON.stringify(log)} } });\n`,
  );
  await run(process.execPath, ['--import', pathToFileURL(register).href, ...args], { cwd: scratch, env });
  return (await readFile(log, 'utf8'))
    .split('\n')
    .filter((url) => url.startsWith('file:'))
    .map((url) => fileURLToPath(url))
    .filter((file) => file !== register);
}
