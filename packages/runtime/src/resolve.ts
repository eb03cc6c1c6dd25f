/**
 * Finding the module a provider specifier names, without importing it: a path (absolute, or
 * relative to a base directory), or a package name looked up in `node_modules` from a list of
 * places in order — then its entry point by the package's `exports` (conditions `node`, `import`,
 * `default`) or `main`, as Node's ESM loader would pick it.
 */
import { readFile, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';

/** Where one specifier leads. */
export interface ResolvedModule {
  /** The file to import. */
  readonly file: string;
  /** The package the file belongs to (`name` and `version` of its package.json), when it has one. */
  readonly packageName?: string;
  readonly packageVersion?: string;
}

/** A place to look a package name up in. */
export interface SearchPlace {
  /** How an error names it ("from /cwd upward"). */
  readonly label: string;
  /** Directories whose `node_modules/<name>` is tried, in order; or, with `isNodeModules`, `<dir>/<name>`. */
  readonly dirs: readonly string[];
  readonly isNodeModules?: boolean;
}

/** The specifier cannot be resolved; `reason` says why (and where it looked). */
export class ResolveFailure extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(reason);
    this.reason = reason;
  }
}

const NAME_RE = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*(?:\/[^\s]+)?$/;
const CONDITIONS = new Set(['node', 'import', 'module-sync', 'default']);

/** Whether a specifier is a path rather than a package name. */
export function isPathSpecifier(spec: string): boolean {
  return spec === '.' || spec === '..' || spec.startsWith('/') || spec.startsWith('./') || spec.startsWith('../') || /^[A-Za-z]:[\\/]/.test(spec);
}

/** `dir` and every directory above it. */
export function ancestors(dir: string): string[] {
  const out: string[] = [];
  for (let d = resolve(dir); ; d = dirname(d)) {
    out.push(d);
    if (dirname(d) === d) return out;
  }
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() === true;
}

async function isDir(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() === true;
}

async function readManifest(dir: string): Promise<Record<string, unknown> | undefined> {
  try {
    return JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** An `exports` target for the import conditions, or undefined (not exported). */
function pickTarget(target: unknown): string | undefined {
  if (typeof target === 'string') return target;
  if (Array.isArray(target)) {
    for (const item of target) {
      const picked = pickTarget(item);
      if (picked !== undefined) return picked;
    }
    return undefined;
  }
  if (target && typeof target === 'object') {
    for (const [condition, value] of Object.entries(target)) {
      if (!CONDITIONS.has(condition)) continue;
      const picked = pickTarget(value);
      if (picked !== undefined) return picked;
    }
  }
  return undefined;
}

/** The `exports` entry for `subpath` (`.` or `./x`), exact or through one `*` pattern. */
function exportsEntry(exports: unknown, subpath: string): unknown {
  const map = exports as Record<string, unknown>;
  const isSubpathMap = map && typeof map === 'object' && !Array.isArray(map) && Object.keys(map).some((k) => k.startsWith('.'));
  if (!isSubpathMap) return subpath === '.' ? exports : undefined;
  if (subpath in map) return map[subpath];
  for (const [key, value] of Object.entries(map)) {
    const star = key.indexOf('*');
    if (star === -1 || !subpath.startsWith(key.slice(0, star)) || !subpath.endsWith(key.slice(star + 1))) continue;
    const middle = subpath.slice(star, subpath.length - (key.length - star - 1));
    const picked = pickTarget(value);
    return picked?.replaceAll('*', middle);
  }
  return undefined;
}

/** A file for a legacy (no `exports`) request: the path itself, with .js/.mjs/.cjs, or its index. */
async function legacyFile(path: string): Promise<string | undefined> {
  for (const candidate of [path, `${path}.js`, `${path}.mjs`, `${path}.cjs`, join(path, 'index.js'), join(path, 'index.mjs')]) {
    if (await isFile(candidate)) return candidate;
  }
  return undefined;
}

/** The entry file of the package in `dir` for `subpath`. */
async function packageEntry(dir: string, manifest: Record<string, unknown> | undefined, subpath: string, what: string): Promise<string> {
  if (manifest?.exports !== undefined) {
    const target = pickTarget(exportsEntry(manifest.exports, subpath));
    if (target === undefined || !target.startsWith('./')) throw new ResolveFailure(`${what}: its package.json "exports" has no import entry for '${subpath}'`);
    const file = join(dir, target);
    if (!(await isFile(file))) throw new ResolveFailure(`${what}: its "exports" points to ${file}, which does not exist`);
    return file;
  }
  const main = subpath === '.' ? (typeof manifest?.main === 'string' ? manifest.main : 'index.js') : subpath;
  const file = await legacyFile(join(dir, main));
  if (!file) throw new ResolveFailure(`${what}: no entry file (${join(dir, main)} does not exist)`);
  return file;
}

/** The package a file belongs to: the nearest package.json above it that has a name. */
async function owningPackage(file: string): Promise<{ packageName?: string; packageVersion?: string }> {
  for (const dir of ancestors(dirname(file))) {
    const manifest = await readManifest(dir);
    if (manifest === undefined) continue;
    if (typeof manifest.name !== 'string') return {};
    return { packageName: manifest.name, ...(typeof manifest.version === 'string' ? { packageVersion: manifest.version } : {}) };
  }
  return {};
}

/** Resolve a path specifier against `base`. */
export async function resolvePath(spec: string, base: string): Promise<ResolvedModule> {
  const path = isAbsolute(spec) ? spec : resolve(base, spec);
  if (await isDir(path)) {
    const manifest = await readManifest(path);
    const file = await packageEntry(path, manifest, '.', `the directory ${path}`);
    return { file, ...(await owningPackage(file)) };
  }
  if (!(await isFile(path))) throw new ResolveFailure(`${path} does not exist`);
  return { file: path, ...(await owningPackage(path)) };
}

/** Split `@scope/name/sub` into the package name and the subpath (`.` or `./sub`). */
function splitName(spec: string): { name: string; subpath: string } {
  const parts = spec.split('/');
  const count = spec.startsWith('@') ? 2 : 1;
  const rest = parts.slice(count).join('/');
  return { name: parts.slice(0, count).join('/'), subpath: rest ? `./${rest}` : '.' };
}

/** Resolve a package name in the first place that has it. */
export async function resolveName(spec: string, places: readonly SearchPlace[]): Promise<ResolvedModule> {
  if (!NAME_RE.test(spec)) throw new ResolveFailure('it is neither a package name nor a path (a path starts with /, ./ or ../)');
  const { name, subpath } = splitName(spec);
  for (const place of places) {
    for (const dir of place.dirs) {
      const pkgDir = place.isNodeModules ? join(dir, name) : join(dir, 'node_modules', name);
      const manifest = await readManifest(pkgDir);
      if (manifest === undefined) continue;
      const file = await packageEntry(pkgDir, manifest, subpath, `package ${name} in ${pkgDir}`);
      return {
        file,
        packageName: typeof manifest.name === 'string' ? manifest.name : name,
        ...(typeof manifest.version === 'string' ? { packageVersion: manifest.version } : {}),
      };
    }
  }
  throw new ResolveFailure(`not installed (looked ${places.map((p) => p.label).join(', ')})`);
}
