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

/** Watch `dir` (depth 0). Resolves once the watch is in place, so no later change is missed. */
export async function watchDir(dir: string, options: WatchDirOptions = {}): Promise<DirWatcher> {
  const gate = changeGate();
  let closed = false;
  const onChange = gate.mark;
  const native: FSWatcher[] = [];
  /** File names watched per directory (added files). */
  const filesByDir = new Map<string, Set<string>>();
  let fallback: { add(path: string): unknown; close(): Promise<void> } | undefined;

  /** Directories whose watch waits for them to be created (watched through an ancestor meanwhile). */
  const pendingDirs = new Map<string, Set<string>>();
  const watchNative = (path: string, filter?: Set<string>, onEvent?: () => void): boolean => {
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
  };
  const ancestors = new Set<string>();
  /**
   * Watch the nearest existing ancestor of `dir` (depth 0: it sees the next level appear). 'new'
   * when that watch was just made: a level created before it was in place sent it no event.
   */
  const watchAncestor = (dir: string): 'new' | 'known' | false => {
    let ancestor = dirname(dir);
    while (ancestor !== dirname(ancestor) && !existsSync(ancestor)) ancestor = dirname(ancestor);
    if (ancestors.has(ancestor)) return 'known';
    if (!watchNative(ancestor, undefined, () => retryPending())) return false;
    ancestors.add(ancestor);
    return 'new';
  };
  /** Attach the watches of directories that now exist; follow the others one level down. */
  const retryPending = (): void => {
    for (const [dir, names] of pendingDirs) {
      if (closed) return;
      if (!existsSync(dir)) {
        const watched = watchAncestor(dir);
        if (!watched) for (const name of names) void watchFallback(`${dir}/${name}`);
        // `mkdir -p` makes the levels in a row: the next one may be there already, unseen. Each
        // look goes a level deeper or finds the same ancestor, so this ends.
        else if (watched === 'new') {
          retryPending();
          return;
        }
        continue;
      }
      pendingDirs.delete(dir);
      if (watchNative(dir, names))
        onChange(); // a line may have landed before the watch did
      else for (const name of names) void watchFallback(`${dir}/${name}`);
    }
  };
  /**
   * A directory that does not exist yet (a CLI creates its transcript's directory with the first
   * line) is watched through its nearest existing ancestor, natively, until it appears: no need to
   * load chokidar for that, on the critical path of a wait.
   */
  const watchMissing = (dir: string, names: Set<string>): boolean => {
    if (options.native === false || existsSync(dir) || !watchAncestor(dir)) return false;
    pendingDirs.set(dir, names);
    retryPending(); // created meanwhile
    return true;
  };
  const watchFallback = async (path: string): Promise<void> => {
    if (!fallback) {
      // Loaded only when needed, so commands that never wait (status, --help) do not pay for it.
      const { watch } = await import('chokidar');
      const watcher = watch([], { ignoreInitial: true, depth: 0, atomic: false });
      watcher.on('all', onChange).on('raw', onChange);
      watcher.on('error', () => undefined);
      fallback = watcher;
    }
    fallback.add(path);
  };

  if (!watchNative(dir)) await watchFallback(dir);

  return {
    next: (timeoutMs) => gate.next(timeoutMs),
    poke: onChange,
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
      if (!watchNative(parent, names) && !watchMissing(parent, names)) void watchFallback(path);
    },
    usesFallback: () => fallback !== undefined,
    async close() {
      closed = true;
      gate.release();
      for (const watcher of native.splice(0)) watcher.close();
      await fallback?.close();
    },
  };
}
