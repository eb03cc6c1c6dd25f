/**
 * Import a provider module so that it cannot end or hang umbel. A module is code umbel does not
 * control: one that called `process.exit` ended umbel with its code and no message, one that never
 * settled ended it with 0 or 13 (node's "unsettled top-level await"), one that looped hung it.
 *
 * So the module is first loaded in a worker thread (a probe), bounded by `timeoutMs`: a loop or a
 * never-settling import is terminated there, a `process.exit` there ends only the worker. Only a
 * module that loaded in the probe is imported for real, with `process.exit` refused and the same
 * bound (a timer that keeps umbel alive while it waits). Each failure is a {@link ImportRefusal}
 * saying what the module did; the caller names the package.
 */
import { Worker } from 'node:worker_threads';
import { importModule } from './import-module.js';

/** How long loading one provider module may take unless UMBEL_PROVIDER_LOAD_TIMEOUT says otherwise. */
export const DEFAULT_PROVIDER_LOAD_TIMEOUT_MS = 10_000;

/** The module ended, hung or stalled loading; `reason` says which. */
export class ImportRefusal extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(reason);
    this.name = 'ImportRefusal';
    this.reason = reason;
  }
}

const PROBE = `
const { parentPort, workerData } = require('node:worker_threads');
const exit = process.exit;
process.exit = (code) => {
  Atomics.store(workerData.exit, 0, 1);
  Atomics.store(workerData.exit, 1, code === undefined ? -1 : Number(code) | 0);
  exit(code);
};
import(workerData.url).then(() => parentPort.postMessage('done'), () => parentPort.postMessage('done'));
`;

const exitText = (code: number | undefined) => `called process.exit(${code === undefined || code === -1 ? '' : code}) while loading`;
const durationText = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`);
const stalled = (ms: number) =>
  new ImportRefusal(
    `did not finish loading within ${durationText(ms)} (it loops, or awaits something that never comes; UMBEL_PROVIDER_LOAD_TIMEOUT sets the bound)`,
  );

/** Load `url` in a worker thread; resolves when it loaded or threw there (the real import reports a throw). */
function probe(url: string, timeoutMs: number): Promise<void> {
  const exit = new Int32Array(new SharedArrayBuffer(8));
  const worker = new Worker(PROBE, { eval: true, workerData: { url, exit }, stdout: true, stderr: true });
  worker.stdout.resume();
  worker.stderr.resume();
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(stalled(timeoutMs));
      void worker.terminate();
    }, timeoutMs);
    const settle = (error?: Error) => {
      clearTimeout(timer);
      if (error) reject(error);
      else resolve();
      void worker.terminate();
    };
    worker.once('message', () => settle());
    worker.once('error', () => settle()); // thrown outside the import: the real import shows what happens
    worker.once('exit', () => {
      if (Atomics.load(exit, 0) === 1) settle(new ImportRefusal(exitText(Atomics.load(exit, 1))));
      else settle(new ImportRefusal('its import never settled (it awaits something that never comes)'));
    });
  });
}

/** Import `url` for real, `process.exit` refused and the wait bounded. */
async function importBounded(url: string, timeoutMs: number): Promise<Record<string, unknown>> {
  const exit = process.exit;
  let called: { code: number | undefined } | undefined;
  process.exit = ((code?: number) => {
    called = { code: code === undefined ? undefined : Number(code) };
    throw new ImportRefusal(exitText(called.code));
  }) as typeof process.exit;
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(stalled(timeoutMs)), timeoutMs);
    });
    const ns = await Promise.race([importModule(url), timeout]);
    if (called) throw new ImportRefusal(exitText(called.code));
    return ns;
  } catch (error) {
    throw called ? new ImportRefusal(exitText(called.code)) : error;
  } finally {
    clearTimeout(timer);
    process.exit = exit;
  }
}

/** Import the module at `url` (a file URL), bounded by `timeoutMs`; an ImportRefusal when it would end or hang umbel. */
export async function importGuarded(url: string, timeoutMs: number): Promise<Record<string, unknown>> {
  await probe(url, timeoutMs);
  return importBounded(url, timeoutMs);
}
