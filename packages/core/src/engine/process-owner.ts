/**
 * Which process owns something (a send lock, an anonymous `-p` worker): its pid and, on Linux, its
 * start time (a pid is reused; pid + start time is not). An owner is gone when its pid is not
 * alive, is a zombie, or now belongs to a process that started at another time.
 */
import { readFileSync } from 'node:fs';
import type { ProcessOwner } from '../contract/schemas.js';

export { type ProcessOwner, ProcessOwnerSchema } from '../contract/schemas.js';

/** `/proc/<pid>/stat`: its state letter and start time, or undefined (no such process, or no /proc). */
function procStat(pid: number): { state: string; start: string } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the fields after the parenthesised command name: state (3rd) … starttime (22nd)
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', start: fields[19] ?? '' };
  } catch {
    return undefined;
  }
}

let self: string | undefined;

/** This process as an owner, now. */
export function currentOwner(): ProcessOwner {
  self ??= procStat(process.pid)?.start;
  return { pid: process.pid, ...(self ? { start: self } : {}), at: Date.now() };
}

/** Process `pid` as an owner (its start time read now): what a process hands something it owns to. */
export function ownerOf(pid: number): ProcessOwner {
  if (pid === process.pid) return currentOwner();
  const start = procStat(pid)?.start;
  return { pid, ...(start ? { start } : {}), at: Date.now() };
}

/** Whether process `pid` is alive (EPERM: alive, someone else's). A zombie (exited, not yet reaped) is not. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
  return procStat(pid)?.state !== 'Z';
}

/** Whether `owner` is still the process it was: alive, and started when it did. */
export function ownerAlive(owner: ProcessOwner): boolean {
  if (!pidAlive(owner.pid)) return false;
  if (owner.start === undefined) return true;
  const now = procStat(owner.pid);
  return now === undefined || now.start === owner.start;
}
