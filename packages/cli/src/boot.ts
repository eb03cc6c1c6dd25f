/**
 * The bin's loader: it runs the CLI bundle (`bin.cjs`, everything a command loads, in one file)
 * through V8's code cache, so a command's start does not compile the bundle again. Node 20 has no
 * compile cache of its own; this is the same idea, with the same rules as umbel's state:
 *
 * - The cache lives in a private directory (0700, the user's own; `UMBEL_CODE_CACHE=<dir>`, default
 *   `$XDG_CACHE_HOME/umbel/code-cache` or `~/.cache/umbel/code-cache`; `off` disables it). A
 *   directory that is not the user's own, or that others can write, is never read or written:
 *   compiled code is loaded from it.
 * - A cache file is named by the bundle's SHA-256, node's version and the architecture (V8 checks
 *   only a source's length, so a changed bundle never meets an old cache), written 0600 to a temp
 *   file and renamed into place: a crash or a race leaves the old file or the new one.
 * - It holds what the first command of its kind compiled (V8 compiles functions when they first
 *   run), so each kind of command has its own: `-p`, the verbs, `--version`, `mcp`, `run`, `rpc`.
 * - Writing a cache removes those of older bundles but the two written last (another install of
 *   umbel on the machine keeps its own), so upgrades do not pile them up.
 * - Every failure of the cache is silent and costs only the compile: the command runs the same.
 *
 * It imports only node's own modules: it is loaded before the bundle, on every command.
 */
import { isAscii } from 'node:buffer';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

type Env = Readonly<Record<string, string | undefined>>;

/** The directory of the code cache for `env`, or undefined when it is off or has no home. */
export function codeCacheDir(env: Env): string | undefined {
  const set = env['UMBEL_CODE_CACHE'];
  if (set === 'off' || set === '0') return undefined;
  if (set) return set;
  const base = env['XDG_CACHE_HOME'] || join(env['HOME'] || homedir(), '.cache');
  return join(base, 'umbel', 'code-cache');
}

/** Whether `dir` is a real directory of this user's that nobody else can write. */
function privateDir(dir: string): boolean {
  const info = lstatSync(dir, { throwIfNoEntry: false });
  if (!info?.isDirectory()) return false;
  const uid = typeof process.getuid === 'function' ? process.getuid() : info.uid;
  return info.uid === uid && (info.mode & 0o022) === 0;
}

/** The code cache of one bundle source: what was cached, and how to store a new one. */
export interface CodeCache {
  readonly path: string;
  readonly data: Buffer | undefined;
  save(data: Buffer): void;
}

/** Which kind of command `argv` is, for its own cache (a guess is harmless: it only picks the file). */
export function commandKind(argv: readonly string[]): string {
  const first = argv[0];
  if (argv.length === 1 && first === '--version') return 'version';
  if (argv.includes('-p') || argv.includes('--print')) return 'print';
  if (first === 'mcp' || first === 'run' || first === 'rpc') return first;
  return 'verbs';
}

/** Open the cache of `source` for commands of `kind` under `dir` (created 0700 when missing); undefined when it cannot be used. */
export function openCodeCache(dir: string, source: string, kind: string): CodeCache | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!privateDir(dir)) return undefined;
    const digest = createHash('sha256').update(source).digest('hex').slice(0, 32);
    const path = join(dir, `${digest}-${kind}-${process.version}-${process.arch}.v8`);
    let data: Buffer | undefined;
    try {
      data = readFileSync(path);
    } catch {
      data = undefined;
    }
    return {
      path,
      data,
      save(bytes) {
        saveAtomic(path, bytes);
        pruneOldBundles(dir, digest);
      },
    };
  } catch {
    return undefined;
  }
}

/** A cache file's name: the bundle's digest, the kind, node's version and the architecture. */
const CACHE_FILE = /^([0-9a-f]{32})-[a-z]+-v[0-9.]+-[a-z0-9_]+\.v8$/;
/** Other bundles whose caches stay beside the current one's (another install of umbel on the machine, the previous release). */
const KEEP_OTHER_BUNDLES = 2;

/**
 * Remove the caches of all but the {@link KEEP_OTHER_BUNDLES} bundles written last besides
 * `current`, so upgrades do not pile caches up. Runs only when a cache was written (a new bundle
 * or kind), never on a hit; files not named like a cache are left alone.
 */
function pruneOldBundles(dir: string, current: string): void {
  const newest = new Map<string, number>();
  const files: { name: string; digest: string }[] = [];
  for (const name of readdirSync(dir)) {
    const digest = CACHE_FILE.exec(name)?.[1];
    if (!digest || digest === current) continue;
    const mtime = lstatSync(join(dir, name), { throwIfNoEntry: false })?.mtimeMs ?? 0;
    newest.set(digest, Math.max(newest.get(digest) ?? 0, mtime));
    files.push({ name, digest });
  }
  const kept = new Set(
    [...newest]
      .sort((a, b) => b[1] - a[1])
      .slice(0, KEEP_OTHER_BUNDLES)
      .map(([digest]) => digest),
  );
  for (const file of files) if (!kept.has(file.digest)) rmSync(join(dir, file.name), { force: true });
}

function saveAtomic(path: string, bytes: Buffer): void {
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const fd = openSync(temp, 'wx', 0o600);
    try {
      writeSync(fd, bytes);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch {
    rmSync(temp, { force: true });
  }
}

/** What `loadBundle` returns: the bundle's exports, and a hook to call once the command is done. */
export interface LoadedBundle<T> {
  readonly exports: T;
  /** How the cache served this load: not used, nothing cached yet, used, or refused by V8. */
  readonly cache: 'off' | 'miss' | 'hit' | 'rejected';
  /** Store the compiled code when the cache had none or V8 refused it (call after the work: more is compiled by then). */
  settle(): void;
}

/** Load a CommonJS bundle through the code cache of `env` for commands of `kind` (plain compile when it is off or unusable). */
export function loadBundle<T>(file: string, env: Env, kind = 'verbs'): LoadedBundle<T> {
  const source = readSource(file);
  const dir = codeCacheDir(env);
  const cache = dir === undefined ? undefined : openCodeCache(dir, source, kind);
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    ...(cache?.data ? { cachedData: cache.data } : {}),
  });
  const module = { exports: {} as T };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
  return {
    exports: module.exports,
    cache: !cache ? 'off' : !cache.data ? 'miss' : script.cachedDataRejected ? 'rejected' : 'hit',
    settle() {
      if (cache && (!cache.data || script.cachedDataRejected)) {
        try {
          cache.save(script.createCachedData());
        } catch {
          // the cache is an optimisation: never a failure of the command
        }
      }
    },
  };
}

/**
 * A bundle's text. The built one is ASCII (tsup.config.ts escapes the rest): read as latin1 it becomes
 * V8's one-byte string without UTF-8 decoding (~5–8 ms of a 1.4 MB bundle here); anything else is UTF-8.
 */
function readSource(file: string): string {
  const bytes = readFileSync(file);
  return bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
}

/** What `bin.cjs` exports (./bin-bundle.ts). */
interface CliBundle {
  main(argv: readonly string[]): Promise<number>;
  setModuleImporter(fn: (specifier: string) => Promise<unknown>): void;
}

/** Run the CLI bundle next to this file with `argv`; returns the exit code. */
export async function boot(argv: readonly string[]): Promise<number> {
  const file = join(dirname(fileURLToPath(import.meta.url)), 'bin.cjs');
  const bundle = loadBundle<CliBundle>(file, process.env, commandKind(argv));
  // The bundle's own import() does not work when compiled from a cache (node 20): it uses this
  // module's, which resolves from the same directory.
  bundle.exports.setModuleImporter((specifier) => import(specifier));
  const code = await bundle.exports.main(argv);
  // What a failed command compiled (a usage error, say) is a poor cache of its kind: keep waiting.
  if (code === 0) bundle.settle();
  return code;
}
