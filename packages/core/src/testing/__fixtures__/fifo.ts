/**
 * Plant a named pipe where umbel expects a state file. A reader that opens it blocking hangs until
 * something writes to it, so each pipe comes with a valve: after a few seconds a child opens it for
 * writing and writes one line, and the blocked (unfixed) reader fails its assertion instead of
 * hanging the test run. A fixed reader never opens it blocking; the valve is then ended unopened.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';

const valves: ChildProcess[] = [];

/** `mkfifo path`, with its valve. */
export function plantFifo(path: string): void {
  execFileSync('mkfifo', ['-m', '600', path]);
  valves.push(spawn('sh', ['-c', 'sleep 8; echo unblocked > "$1"', 'sh', path], { stdio: 'ignore' }));
}

/** End every valve still waiting (call in afterEach). */
export function closeFifoValves(): void {
  for (const valve of valves.splice(0)) valve.kill('SIGKILL');
}
