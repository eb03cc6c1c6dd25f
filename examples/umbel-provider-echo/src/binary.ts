/**
 * Where the echo-agent executable is: `UMBEL_ECHO_BIN` (an absolute path, or a name looked up on
 * PATH), else `echo-agent` on PATH, else the copy this package ships (`bin/echo-agent.js`). Always
 * an absolute path to an executable file; otherwise a typed error that says where it looked.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SpawnFailedError } from '@umbel/core';

/** The echo-agent this package ships (from dist/ and from src/ alike). */
export const BUNDLED_AGENT = fileURLToPath(new URL('../bin/echo-agent.js', import.meta.url));

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function onPath(name: string, path: string | undefined): Promise<string | undefined> {
  for (const dir of (path ?? '').split(delimiter)) {
    if (dir !== '' && isAbsolute(dir) && (await isExecutableFile(join(dir, name)))) return join(dir, name);
  }
  return undefined;
}

const HINT = 'set UMBEL_ECHO_BIN to the absolute path of echo-agent, or reinstall umbel-provider-echo (it ships one)';

/** The absolute path of the echo-agent to launch. */
export async function findEchoAgent(callerEnv: Readonly<Record<string, string | undefined>>): Promise<string> {
  const explicit = callerEnv.UMBEL_ECHO_BIN;
  if (explicit) {
    const found = isAbsolute(explicit) ? ((await isExecutableFile(explicit)) ? explicit : undefined) : await onPath(explicit, callerEnv.PATH);
    if (found) return found;
    throw new SpawnFailedError(
      `echo-agent '${explicit}' from UMBEL_ECHO_BIN is not an executable file${isAbsolute(explicit) ? '' : ` on PATH (${callerEnv.PATH ?? ''})`}`,
      { hint: HINT },
    );
  }
  const fromPath = await onPath('echo-agent', callerEnv.PATH);
  if (fromPath) return fromPath;
  if (await isExecutableFile(BUNDLED_AGENT)) return BUNDLED_AGENT;
  throw new SpawnFailedError(`echo-agent was not found (looked: UMBEL_ECHO_BIN unset; PATH ${callerEnv.PATH ?? '(unset)'}; the bundled ${BUNDLED_AGENT})`, {
    hint: HINT,
  });
}
