/** `doctor`'s sandbox line: whether `spawn --sandbox` works here — srt runs `true` confined once, in a private temp dir. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomic } from '@umbel/provider';
import { type SandboxUnavailableError, UmbelError, UmbelErrorCode } from '../contract/errors.js';
import { probeSandbox, requireSandbox } from '../sandbox/availability.js';
import type { DoctorReport } from './schema.js';

const NOTHING_ALLOWED = { network: { allowedDomains: [], deniedDomains: [] }, filesystem: { denyRead: [], allowWrite: [], denyWrite: [] } };

/** Whether the sandbox can be had, and why not (with the install hint). */
export async function sandboxCheck(env: Readonly<Record<string, string | undefined>>): Promise<NonNullable<DoctorReport['sandbox']>> {
  try {
    requireSandbox(env);
  } catch (error) {
    if (!(UmbelError.isInstance(error) && error.code === UmbelErrorCode.SandboxUnavailable)) throw error;
    return { available: false, detail: (error as SandboxUnavailableError).reason, ...(error.hint ? { hint: error.hint } : {}) };
  }
  const dir = await mkdtemp(join(env.TMPDIR || tmpdir(), 'umbel-doctor-sandbox-'));
  try {
    const settings = join(dir, 'settings.json');
    await writeFileAtomic(settings, JSON.stringify(NOTHING_ALLOWED));
    const problem = await probeSandbox(env, settings);
    return problem ? { available: false, detail: problem, hint: 'see the srt message; docs/cli.md, Confined workers' } : { available: true };
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}
