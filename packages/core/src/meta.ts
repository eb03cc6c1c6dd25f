/** meta.json: read and write (atomic), validated by WorkerMetaSchema. Never holds env values. */
import { readFileSync } from 'node:fs';
import { WorkerNotFoundError } from './errors.js';
import { writeFileAtomic } from './fs-atomic.js';
import { type WorkerMeta, WorkerMetaSchema } from './schemas.js';

/** Write a worker's meta atomically. */
export async function writeMeta(path: string, meta: WorkerMeta): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(WorkerMetaSchema.parse(meta), null, 2)}\n`);
}

/** Read a worker's meta; undefined when absent or unreadable. */
export async function tryReadMeta(path: string): Promise<WorkerMeta | undefined> {
  try {
    // Small file: a synchronous read is far cheaper than the promise API's thread-pool round trips.
    const parsed = WorkerMetaSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Read a worker's meta or throw WorkerNotFoundError. */
export async function readMeta(path: string, name: string): Promise<WorkerMeta> {
  const meta = await tryReadMeta(path);
  if (!meta) throw new WorkerNotFoundError(name);
  return meta;
}
