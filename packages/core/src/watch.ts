/**
 * The event bus: chokidar watching a worker's `events/` (and, once known, its transcript). A
 * waiter sleeps until something changes or a timeout passes — it never polls the screen.
 */

/** A change-notification handle. */
export interface DirWatcher {
  /** Resolve on the next change (or at once if one happened since the last call), or after `timeoutMs`. */
  next(timeoutMs: number): Promise<boolean>;
  /** Also watch this path (e.g. the transcript once its path is known). */
  add(path: string): void;
  close(): Promise<void>;
}

/** Watch `dir` (depth 0). Resolves once the watcher is ready, so no later change is missed. */
export async function watchDir(dir: string): Promise<DirWatcher> {
  // Loaded on first use, so commands that never wait (status, --help) do not pay for it.
  const { watch } = await import('chokidar');
  const watcher = watch(dir, {
    ignoreInitial: true,
    depth: 0,
    atomic: false,
    ignored: (path: string) => /\/\.[^/]*$/.test(path),
  });
  let dirty = false;
  let wake: (() => void) | undefined;
  const onChange = () => {
    dirty = true;
    wake?.();
  };
  watcher.on('add', onChange).on('change', onChange).on('unlink', onChange);
  watcher.on('error', () => undefined);
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  const added = new Set<string>();
  return {
    next(timeoutMs) {
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
    add(path) {
      if (added.has(path)) return;
      added.add(path);
      watcher.add(path);
    },
    async close() {
      wake?.();
      await watcher.close();
    },
  };
}
