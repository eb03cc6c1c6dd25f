/**
 * Wrap a worker's launch in the sandbox runtime: write the policy as srt's settings file in the
 * worker's private dir (0600; paths and hosts only, never an env value) and put `node srt --settings
 * FILE --` before the CLI's argv. The CLI's env reaches it through srt untouched.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { mkdirPrivate, writeFileAtomic, type Provider } from '@umbel/provider';
import type { SandboxRecord, SandboxRequest } from '../contract/schemas.js';
import type { StatePaths } from '../engine/paths.js';
import { buildSandboxPolicy, isLoopbackHost, srtSettings, type SandboxWidening } from './policy.js';

/** A sandbox request's widenings (none for `true`). */
export function wideningOf(request: SandboxRequest | undefined): SandboxWidening {
  const given = typeof request === 'object' ? request : {};
  return { write: given.write ?? [], read: given.read ?? [], allow: given.allow ?? [] };
}

/** What confining one launch needs. */
export interface ConfineInput {
  readonly srtCli: string;
  readonly paths: StatePaths;
  readonly worker: string;
  readonly provider: Provider;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly widen: SandboxWidening;
}

/** Write the settings and the private temp dir; the wrapped argv, the env additions and the record for meta. */
export async function confineLaunch(
  input: ConfineInput,
  argv: readonly string[],
): Promise<{ argv: string[]; env: Record<string, string>; record: SandboxRecord }> {
  const wp = input.paths.worker(input.worker);
  const tempDir = join(wp.dir, 'tmp');
  await mkdirPrivate(tempDir);
  const policy = buildSandboxPolicy({
    userHome: input.env.HOME || homedir(),
    stateRoot: input.paths.home,
    cwd: input.cwd,
    providerDir: wp.provider,
    eventsDir: wp.events,
    tempDir,
    hooksDir: input.paths.hooksDir,
    sharedDir: input.paths.providerShared(input.provider.providerId),
    facts: input.provider.sandbox,
    endpointEnv: input.provider.billing?.endpointEnv ?? [],
    env: input.env,
    widen: input.widen,
  });
  const settingsFile = join(wp.dir, 'sandbox.json');
  await writeFileAtomic(settingsFile, `${JSON.stringify(srtSettings(policy), null, 2)}\n`);
  const record: SandboxRecord = {
    enabled: true,
    write: [...policy.write],
    network: [...policy.network],
    denyRead: [...policy.denyRead],
    widened: { write: [...policy.widened.write], read: [...policy.widened.read], allow: [...policy.widened.allow] },
  };
  // srt hands the CLI `TMPDIR=$CLAUDE_CODE_TMPDIR` (default /tmp/claude, absent under the read-only /tmp):
  // name the private temp dir there too.
  const env = { TMPDIR: tempDir, CLAUDE_CODE_TMPDIR: tempDir };
  // srt's NO_PROXY sends loopback straight to the sandbox's own empty loopback; an allowed loopback host
  // (a local mock or gateway as the endpoint) is reached through srt's proxy instead (no values: `env -u`).
  const viaProxy = policy.network.some(isLoopbackHost) ? ['env', '-u', 'NO_PROXY', '-u', 'no_proxy'] : [];
  return { argv: [process.execPath, input.srtCli, '--settings', settingsFile, '--', ...viaProxy, ...argv], env, record };
}
