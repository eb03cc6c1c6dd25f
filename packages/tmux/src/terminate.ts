import { isRunning, type ProcessEntry } from './proc-tree.js';

/** Grace between SIGTERM and SIGKILL in {@link terminate}. */
export const KILL_GRACE_MS = 1000;

/** Poll `entries` until none runs or `ms` pass; the ones still running. */
async function waitGone(entries: readonly ProcessEntry[], ms: number): Promise<ProcessEntry[]> {
  const deadline = Date.now() + ms;
  let left = [...entries];
  while (left.length > 0) {
    const still: ProcessEntry[] = [];
    for (const entry of left) if (await isRunning(entry)) still.push(entry);
    left = still;
    if (left.length === 0 || Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return left;
}

/** Send `signal` to every entry still running (same pid and start time); the ones signalled. */
async function signalRunning(entries: readonly ProcessEntry[], signal: NodeJS.Signals): Promise<ProcessEntry[]> {
  const hit: ProcessEntry[] = [];
  for (const entry of entries) {
    if (!(await isRunning(entry))) continue;
    try {
      process.kill(entry.pid, signal);
      hit.push(entry);
    } catch {
      /* gone meanwhile */
    }
  }
  return hit;
}

/**
 * SIGTERM every process of `entries` still running; SIGKILL what survives {@link KILL_GRACE_MS}; wait
 * (another grace at most) until those are gone. A pid reused by another process is never signalled.
 */
export async function terminate(entries: readonly ProcessEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const termed = await signalRunning(entries, 'SIGTERM');
  const survivors = await waitGone(termed, KILL_GRACE_MS);
  if (survivors.length === 0) return;
  await waitGone(await signalRunning(survivors, 'SIGKILL'), KILL_GRACE_MS);
}

/** `lists` joined, each pid once, in first-seen order. */
export function unionByPid(...lists: readonly (readonly ProcessEntry[])[]): ProcessEntry[] {
  const seen = new Set<number>();
  const out: ProcessEntry[] = [];
  for (const list of lists) {
    for (const entry of list) {
      if (seen.has(entry.pid)) continue;
      seen.add(entry.pid);
      out.push(entry);
    }
  }
  return out;
}
