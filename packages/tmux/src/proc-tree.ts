import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';

/** One process as seen in the process table. */
export interface ProcessEntry {
  readonly pid: number;
  readonly ppid: number;
  /** Start time (clock ticks since boot on Linux; '' where unknown), to detect pid reuse. */
  readonly start: string;
  /** Kernel state letter (`Z` = zombie); '' where unknown. */
  readonly state: string;
}

/** Parse the text of `/proc/<pid>/stat` (the command name may hold spaces and parentheses). */
export function parseProcStat(text: string): ProcessEntry | undefined {
  const open = text.indexOf(' (');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const pid = Number(text.slice(0, open));
  const fields = text
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  const ppid = Number(fields[1]);
  if (!Number.isInteger(pid) || !Number.isInteger(ppid)) return undefined;
  return { pid, ppid, state: fields[0] ?? '', start: fields[19] ?? '' };
}

/** Read one process's entry, or undefined when it is gone. */
export async function readProcess(pid: number): Promise<ProcessEntry | undefined> {
  try {
    return parseProcStat(await readFile(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The whole process table: /proc on Linux, `ps -A -o pid= -o ppid=` elsewhere. */
export async function readProcessTable(): Promise<ProcessEntry[]> {
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return psTable();
  }
  const entries = await Promise.all(names.filter((name) => /^\d+$/.test(name)).map((name) => readProcess(Number(name))));
  const table = entries.filter((entry): entry is ProcessEntry => entry !== undefined);
  return table.length > 0 ? table : psTable();
}

function psTable(): Promise<ProcessEntry[]> {
  return new Promise((resolve) => {
    execFile('ps', ['-A', '-o', 'pid=', '-o', 'ppid='], { timeout: 5000, env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' } }, (error, stdout) => {
      if (error) return resolve([]);
      const table: ProcessEntry[] = [];
      for (const line of stdout.split('\n')) {
        const [pid, ppid] = line.trim().split(/\s+/).map(Number);
        if (pid !== undefined && ppid !== undefined && Number.isInteger(pid) && Number.isInteger(ppid)) table.push({ pid, ppid, start: '', state: '' });
      }
      resolve(table);
    });
  });
}

/** `roots` and all their descendants (by parent pid), roots first, each once. */
export function descendantsOf(table: readonly ProcessEntry[], roots: readonly number[]): ProcessEntry[] {
  const children = new Map<number, ProcessEntry[]>();
  const byPid = new Map<number, ProcessEntry>();
  for (const entry of table) {
    byPid.set(entry.pid, entry);
    const list = children.get(entry.ppid);
    if (list) list.push(entry);
    else children.set(entry.ppid, [entry]);
  }
  const seen = new Set<number>();
  const out: ProcessEntry[] = [];
  const queue = roots.map((pid) => byPid.get(pid)).filter((entry): entry is ProcessEntry => entry !== undefined);
  while (queue.length > 0) {
    const entry = queue.shift()!;
    if (seen.has(entry.pid)) continue;
    seen.add(entry.pid);
    out.push(entry);
    for (const child of children.get(entry.pid) ?? []) queue.push(child);
  }
  return out;
}

/** True while `entry`'s process still runs (same pid, same start time, not a zombie). */
export async function isRunning(entry: ProcessEntry): Promise<boolean> {
  const now = await readProcess(entry.pid);
  if (now === undefined) {
    // No /proc (macOS): fall back to signal 0.
    if (entry.start !== '') return false;
    try {
      process.kill(entry.pid, 0);
      return true;
    } catch {
      return false;
    }
  }
  return now.start === entry.start && now.state !== 'Z' && now.state !== 'X';
}
