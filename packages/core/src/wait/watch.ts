/**
 * The event bus: a waiter sleeps until a worker's `events/` (or, once known, its transcript)
 * changes, or a timeout passes — it never polls the screen.
 *
 * A waiter only needs "something changed" (it re-reads the dir itself), so the watch is the plain
 * file-system notification: `fs.watch` on the events dir, and on the transcript's directory with
 * its file name as the filter (that also sees a file that appears late or is replaced by a rename).
 * Starting a watch costs no scan of the dir. Where `fs.watch` is refused (no inotify watches left,
 * an unsupported file system), chokidar watches instead.
 */
import { existsSync, type FSWatcher, watch as fsWatch } from 'node:fs';
import { basename, dirname } from 'node:path';

/** A change-notification handle. */
export interface DirWatcher {
  /** Resolve on the next change (or at once if one happened since the last call), or after `timeoutMs`. */
  next(timeoutMs: number): Promise<boolean>;
  /** Also watch this file (e.g. the transcript once its path is known); it need not exist yet. */
  add(path: string): void;
  /** Also watch this directory (depth 0: its entries appearing, changing, leaving); it must exist. */
  addDir(path: string): void;
  /** Wake the waiter as if something changed (news from elsewhere, e.g. a liveness probe). */
  poke(): void;
  /** Whether chokidar had to stand in for `fs.watch` (for tests). */
  usesFallback(): boolean;
  close(): Promise<void>;
}

/** Options of {@link watchDir}. */
export interface WatchDirOptions {
  /** `false` forces the chokidar fallback (tests). */
  readonly native?: boolean;
}

/** "Something changed" since the last look, and a way to sleep until it does. */
function changeGate() {
  let dirty = false;
  let wake: (() => void) | undefined;
  return {
    mark() {
      dirty = true;
      wake?.();
    },
    release: () => wake?.(),
    next(timeoutMs: number): Promise<boolean> {
      if (dirty) {
        dirty = false;
        return Promise.resolve(true);
      }
      return new Promise((resolve) => {
        const timer = setTimeout(
          () => {
            wake = undefined;
            resolve(false);
          },
          Math.max(0, timeoutMs),
        );
        wake = () => {
          clearTimeout(timer);
          wake = undefined;
          dirty = false;
          resolve(true);
        };
      });
    },
  };
}

/** Native watches of one watcher: `fs.watch` with an optional file-name filter. */
function nativeWatches(options: WatchDirOptions, onChange: () => void) {
  const native: FSWatcher[] = [];
  return {
    /** Watch `path` natively; false where `fs.watch` is refused (or forced off). */
    watch(path: string, filter?: Set<string>, onEvent?: () => void): boolean {
      if (options.native === false) return false;
      try {
        const watcher = fsWatch(path, { persistent: false }, (_event, name) => {
          onEvent?.();
          if (!filter || name === null || filter.has(String(name))) onChange();
        });
        watcher.on('error', onChange);
        native.push(watcher);
        return true;
      } catch {
        return false;
      }
    },
    close(): void {
      for (const watcher of native.splice(0)) watcher.close();
    },
  };
}

/** chokidar, where `fs.watch` is refused; loaded only when needed, so commands that never wait (status, --help) do not pay for it. */
function chokidarFallback(onChange: () => void) {
  let fallback: { add(path: string): unknown; close(): Promise<void> } | undefined;
  return {
    async watch(path: string): Promise<void> {
      if (!fallback) {
        const { watch } = await import('chokidar');
        const watcher = watch([], { ignoreInitial: true, depth: 0, atomic: false });
        watcher.on('all', onChange).on('raw', onChange);
        watcher.on('error', () => undefined);
        fallback = watcher;
      }
      fallback.add(path);
    },
    used: () => fallback !== undefined,
    close: async () => fallback?.close(),
  };
}

/**
 * Directories that do not exist yet (a CLI creates its transcript's directory with the first line),
 * watched natively through their nearest existing ancestor until they appear: no need to load
 * chokidar for that, on the critical path of a wait.
 */
function missingDirs(io: { native: ReturnType<typeof nativeWatches>; fallback: (path: string) => void; changed: () => void; closed: () => boolean }) {
  /** The file names awaited in each missing directory. */
  const pending = new Map<string, Set<string>>();
  const ancestors = new Set<string>();
  /**
   * Watch the nearest existing ancestor of `dir` (depth 0: it sees the next level appear). 'new'
   * when that watch was just made: a level created before it was in place sent it no event.
   */
  const watchAncestor = (dir: string): 'new' | 'known' | false => {
    let ancestor = dirname(dir);
    while (ancestor !== dirname(ancestor) && !existsSync(ancestor)) ancestor = dirname(ancestor);
    if (ancestors.has(ancestor)) return 'known';
    if (!io.native.watch(ancestor, undefined, () => retry())) return false;
    ancestors.add(ancestor);
    return 'new';
  };
  /** Attach the watches of directories that now exist; follow the others one level down. */
  const retry = (): void => {
    for (const [dir, names] of pending) {
      if (io.closed()) return;
      if (!existsSync(dir)) {
        const watched = watchAncestor(dir);
        if (!watched) for (const name of names) io.fallback(`${dir}/${name}`);
        // `mkdir -p` makes the levels in a row: the next one may be there already, unseen. Each
        // look goes a level deeper or finds the same ancestor, so this ends.
        else if (watched === 'new') {
          retry();
          return;
        }
        continue;
      }
      pending.delete(dir);
      if (io.native.watch(dir, names))
        io.changed(); // a line may have landed before the watch did
      else for (const name of names) io.fallback(`${dir}/${name}`);
    }
  };
  return {
    /** Await `names` in `dir`, which is missing; false when it exists or no ancestor can be watched. */
    watch(dir: string, names: Set<string>): boolean {
      if (existsSync(dir) || !watchAncestor(dir)) return false;
      pending.set(dir, names);
      retry(); // created meanwhile
      return true;
    },
  };
}

/** Watch `dir` (depth 0). Resolves once the watch is in place, so no later change is missed. */
export async function watchDir(dir: string, options: WatchDirOptions = {}): Promise<DirWatcher> {
  const gate = changeGate();
  let closed = false;
  const onChange = gate.mark;
  const native = nativeWatches(options, onChange);
  const fallback = chokidarFallback(onChange);
  const missing = missingDirs({ native, fallback: (path) => void fallback.watch(path), changed: onChange, closed: () => closed });
  /** File names watched per directory (added files). */
  const filesByDir = new Map<string, Set<string>>();

  if (!native.watch(dir)) await fallback.watch(dir);

  return {
    next: (timeoutMs) => gate.next(timeoutMs),
    poke: onChange,
    addDir(path) {
      if (closed) return;
      if (!native.watch(path)) void fallback.watch(path);
    },
    add(path) {
      if (closed) return;
      const parent = dirname(path);
      const known = filesByDir.get(parent);
      if (known) {
        known.add(basename(path));
        return;
      }
      const names = new Set([basename(path)]);
      filesByDir.set(parent, names);
      if (!native.watch(parent, names) && (options.native === false || !missing.watch(parent, names))) void fallback.watch(path);
    },
    usesFallback: fallback.used,
    async close() {
      closed = true;
      gate.release();
      native.close();
      await fallback.close();
    },
  };
}
