/**
 * Where each remote worker lives, recorded in the local state root: `<home>/remote/<name>.json`
 * (private: the folder 0700, files 0600, written whole or not at all). A record is claimed
 * exclusively (a hard link of a complete temp file: two racing spawns, one wins), so a name is
 * unique across this machine's workers and the remote ones.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { HostNameSchema, readStateFile, WorkerCorruptError, WorkerNameSchema, writeFileAtomic } from '@umbel/core';
import * as z from 'zod';

/** One record. Never holds an env value. */
export const RemoteRecordSchema = z.object({
  version: z.literal(1),
  name: WorkerNameSchema,
  host: HostNameSchema,
  provider: z.string(),
  cwd: z.string().optional().describe('The cwd on the host, once spawn reported it'),
  createdAt: z.string(),
  anonymous: z.boolean(),
});
export type RemoteRecord = z.infer<typeof RemoteRecordSchema>;

/** The records folder of a state root. */
export function recordsDir(home: string): string {
  return join(home, 'remote');
}

function recordPath(home: string, name: string): string {
  return join(recordsDir(home), `${name}.json`);
}

async function privateDir(home: string): Promise<string> {
  const dir = recordsDir(home);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** The record of `name` (a validated worker name), or undefined. A record that cannot be read is WorkerCorruptError. */
export async function readRecord(home: string, name: string): Promise<RemoteRecord | undefined> {
  const path = recordPath(home, name);
  let text: string;
  try {
    text = await readStateFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new WorkerCorruptError(name, 'its host record is not JSON', path);
  }
  const parsed = RemoteRecordSchema.safeParse(json);
  if (!parsed.success || parsed.data.name !== name) throw new WorkerCorruptError(name, 'its host record is invalid', path);
  return parsed.data;
}

/** Claim `record.name`: true when this call created the record, false when one exists. */
export async function claimRecord(home: string, record: RemoteRecord): Promise<boolean> {
  const dir = await privateDir(home);
  const tmp = join(dir, `.${record.name}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  await writeFile(tmp, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  try {
    await link(tmp, recordPath(home, record.name));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await rm(tmp, { force: true });
  }
}

/** Replace a record (after spawn, with what the host reported). */
export async function writeRecord(home: string, record: RemoteRecord): Promise<void> {
  await privateDir(home);
  await writeFileAtomic(recordPath(home, record.name), `${JSON.stringify(record)}\n`);
}

/** Remove a record (gone already is fine). */
export async function removeRecord(home: string, name: string): Promise<void> {
  await rm(recordPath(home, name), { force: true });
}

/** Every readable record (unreadable ones are skipped: status of that name says why). */
export async function listRecords(home: string): Promise<RemoteRecord[]> {
  let files: string[];
  try {
    files = await readdir(recordsDir(home));
  } catch {
    return [];
  }
  const names = files.filter((f) => f.endsWith('.json') && !f.startsWith('.')).map((f) => f.slice(0, -'.json'.length));
  const out: RemoteRecord[] = [];
  for (const name of names.sort()) {
    if (!WorkerNameSchema.safeParse(name).success) continue;
    const record = await readRecord(home, name).catch(() => undefined);
    if (record) out.push(record);
  }
  return out;
}
