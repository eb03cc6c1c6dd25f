/**
 * npm's global install directory, computed the way `npm config get prefix` finds the prefix —
 * without running npm (that would cost a process, ~200 ms, on every umbel call):
 * `npm_config_prefix` in the environment, else `prefix=` in the user npmrc
 * (`$NPM_CONFIG_USERCONFIG`, else `~/.npmrc`), else in the global npmrc (`<default>/etc/npmrc`),
 * else the default: the directory above the node binary (`/usr/local` for `/usr/local/bin/node`).
 * Global packages live in `<prefix>/lib/node_modules` (`<prefix>/node_modules` on Windows).
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { RuntimeEnv } from './env.js';

interface PrefixOptions {
  readonly env: RuntimeEnv;
  /** The node binary (default `process.execPath`). */
  readonly execPath?: string;
  readonly platform?: NodeJS.Platform;
}

/** An npm config variable from the environment (npm reads `npm_config_x` in any case). */
function fromEnv(env: RuntimeEnv, key: string): string | undefined {
  const wanted = `npm_config_${key}`;
  for (const [name, value] of Object.entries(env)) if (name.toLowerCase() === wanted && value) return value;
  return undefined;
}

/** `key=` of an npmrc (ini) text, with `${VAR}` and a leading `~/` expanded; undefined when absent. */
function npmrcValue(text: string, key: string, env: RuntimeEnv, home: string): string | undefined {
  let found: string | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith(';') || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq === -1 || line.slice(0, eq).trim() !== key) continue;
    let value = line.slice(eq + 1).trim();
    if (/^(["']).*\1$/.test(value)) value = value.slice(1, -1);
    found = value.replace(/\$\{([^}]+)\}/g, (_m, name: string) => env[name] ?? '');
  }
  if (found === undefined) return undefined;
  return found.startsWith('~/') ? join(home, found.slice(2)) : found;
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** npm's global prefix. */
export async function npmPrefix(options: PrefixOptions): Promise<string> {
  const { env } = options;
  const platform = options.platform ?? process.platform;
  const execPath = options.execPath ?? process.execPath;
  const home = env.HOME || homedir();
  const explicit = fromEnv(env, 'prefix');
  if (explicit) return resolve(explicit);
  const userrc = fromEnv(env, 'userconfig') ?? join(home, '.npmrc');
  const fromUser = npmrcValue((await readText(userrc)) ?? '', 'prefix', env, home);
  if (fromUser) return resolve(fromUser);
  const fallback = platform === 'win32' ? dirname(execPath) : dirname(dirname(execPath));
  const globalrc = fromEnv(env, 'globalconfig') ?? join(fallback, 'etc', 'npmrc');
  const fromGlobal = npmrcValue((await readText(globalrc)) ?? '', 'prefix', env, home);
  return resolve(fromGlobal ?? fallback);
}

/** The directory npm installs global packages into. */
export async function globalNodeModules(options: PrefixOptions): Promise<string> {
  const prefix = await npmPrefix(options);
  return (options.platform ?? process.platform) === 'win32' ? join(prefix, 'node_modules') : join(prefix, 'lib', 'node_modules');
}
