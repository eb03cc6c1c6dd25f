/**
 * One executable rule for every provider: `UMBEL_<ID>_BIN`, then the provider's settings, then
 * `PATH`. A value with a `/` is a path (made absolute), a bare name is looked up on `PATH`
 * (absolute entries only); whatever is found must be an executable regular file. The result is
 * always absolute, so a later change of `PATH` or an auto-update cannot swap the binary under a
 * running fleet. A value that is set but unusable is an error, never a silent fall-through.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { SpawnFailedError } from '../errors.js';

/** Where an executable was looked for. */
export type ExecutableSource = 'env' | 'settings' | 'path';

/** The executable of a provider could not be found (exit 1, like any failed spawn). */
export class ExecutableNotFoundError extends SpawnFailedError {
  /** Where it looked: the variable or setting and its value, or the PATH entries searched. */
  readonly looked: { readonly source: ExecutableSource; readonly name: string; readonly value: string; readonly searched: readonly string[] };
  constructor(message: string, looked: ExecutableNotFoundError['looked'], hint: string) {
    super(message, { hint });
    this.name = 'ExecutableNotFoundError';
    this.looked = looked;
  }
}

/** The variable that names a provider's executable: `UMBEL_<ID>_BIN` (`gemini-2` → `UMBEL_GEMINI_2_BIN`). */
export function binEnvName(providerId: string): string {
  return `UMBEL_${providerId.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_BIN`;
}

/** Whether `path` is a regular file this process may execute. */
export async function isExecutableFile(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The absolute directories of a PATH value, in order (empty and relative entries skipped). */
export function pathDirs(pathValue: string | undefined): string[] {
  return (pathValue ?? '').split(delimiter).filter((dir) => dir !== '' && isAbsolute(dir));
}

/** The first executable file `name` on `pathValue`, or undefined. */
export async function findOnPath(name: string, pathValue: string | undefined): Promise<string | undefined> {
  for (const dir of pathDirs(pathValue)) {
    const candidate = join(dir, name);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/** What {@link resolveExecutable} needs. */
export interface ExecutableQuery {
  readonly providerId: string;
  /** Human name for messages (`Claude Code`). */
  readonly displayName: string;
  /** The executable's name on PATH (`claude`). */
  readonly name: string;
  /** umbel's own environment (`UMBEL_<ID>_BIN`, `PATH`). */
  readonly callerEnv: Readonly<Record<string, string | undefined>>;
  /** The binary from the provider's settings (a path or a name), when configured. */
  readonly configured?: string;
  /** How to install it (`npm install -g @anthropic-ai/claude-code`). */
  readonly install?: string;
}

function hintFor(q: ExecutableQuery, variable: string): string {
  const install = q.install ? `install it (${q.install}) so \`${q.name}\` is on PATH, or ` : '';
  return `${install}set ${variable} to the absolute path of the executable`;
}

/** The absolute path of a provider's executable by the one rule (see the module comment). Never runs it. */
export async function resolveExecutable(q: ExecutableQuery): Promise<string> {
  const variable = binEnvName(q.providerId);
  const fromEnv = q.callerEnv[variable];
  const [source, label, wanted] = fromEnv
    ? (['env', variable, fromEnv] as const)
    : q.configured
      ? (['settings', 'the provider settings (binary)', q.configured] as const)
      : (['path', 'PATH', q.name] as const);
  const hint = hintFor(q, variable);
  if (wanted.includes('/')) {
    const abs = resolve(wanted);
    if (await isExecutableFile(abs)) return abs;
    throw new ExecutableNotFoundError(
      `${q.displayName} executable '${abs}' from ${label} is not an executable file`,
      {
        source,
        name: label,
        value: wanted,
        searched: [abs],
      },
      hint,
    );
  }
  const found = await findOnPath(wanted, q.callerEnv.PATH);
  if (found) return found;
  const searched = pathDirs(q.callerEnv.PATH);
  const where = searched.length ? `PATH (${searched.join(delimiter)})` : 'PATH (empty)';
  const what = source === 'path' ? `${q.displayName} (\`${wanted}\`)` : `${q.displayName} executable '${wanted}' from ${label}`;
  throw new ExecutableNotFoundError(`${what} was not found on ${where}`, { source, name: label, value: wanted, searched }, hint);
}
