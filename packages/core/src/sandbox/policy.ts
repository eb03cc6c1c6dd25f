/**
 * The sandbox policy of one confined worker (`spawn --sandbox`), pure: built from the provider's
 * facts (its model hosts, the CLI's own write paths, the variables naming a custom base URL) and the
 * worker's paths and options. `srtSettings()` turns it into the settings file of
 * `@anthropic-ai/sandbox-runtime`; `sandboxSummary()` is what status shows. No env value is in
 * either: a base URL contributes its host only.
 */
import { isAbsolute, join, resolve } from 'node:path';
import type { ProviderV1SandboxSpec } from '@umbel/provider';

/** Widenings of the default policy (`--sandbox-write/--sandbox-read/--sandbox-allow`); every one is recorded. */
export interface SandboxWidening {
  readonly write: readonly string[];
  readonly read: readonly string[];
  readonly allow: readonly string[];
}

/** What the policy is built from. */
export interface SandboxPolicyInput {
  /** The worker's HOME (`~/` in the provider's facts and the deny list). */
  readonly userHome: string;
  /** umbel's state root: denied for reading but for the worker's own parts. */
  readonly stateRoot: string;
  /** The worker's cwd (its worktree with `--worktree`). */
  readonly cwd: string;
  /** The worker's provider files, its events dir (hooks land there), its private temp dir. */
  readonly providerDir: string;
  readonly eventsDir: string;
  readonly tempDir: string;
  /** Read (and run) only: the hook sink and launch wrapper dir. */
  readonly hooksDir: string;
  /** The provider's shared dir under the state root (e.g. codex's managed home). */
  readonly sharedDir: string;
  readonly facts: ProviderV1SandboxSpec | undefined;
  /** The variables naming the endpoint's base URL (the provider's `billing.endpointEnv`). */
  readonly endpointEnv: readonly string[];
  /** The worker's environment (only the base URL's host is taken from it). */
  readonly env: Readonly<Record<string, string>>;
  readonly widen: SandboxWidening;
}

/** The policy: absolute paths and host patterns. */
export interface SandboxPolicy {
  readonly write: readonly string[];
  readonly denyRead: readonly string[];
  readonly allowRead: readonly string[];
  readonly network: readonly string[];
  readonly widened: SandboxWidening;
}

/** Secrets no confined worker reads (relative to HOME), and the shell histories. */
export const SANDBOX_DENY_READ = [
  '.ssh',
  '.aws',
  '.gnupg',
  '.config/gcloud',
  '.kube',
  '.docker/config.json',
  '.netrc',
  '.npmrc',
  '.bash_history',
  '.zsh_history',
  '.histfile',
  '.sh_history',
  '.local/share/fish/fish_history',
  '.python_history',
  '.node_repl_history',
] as const;

function expandHome(path: string, home: string): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  return isAbsolute(path) ? path : resolve(home, path);
}

/** The host (with its port when it has one) of a base URL; undefined for what is not a URL. */
export function hostOfUrl(value: string): string | undefined {
  try {
    const url = new URL(value);
    if (!url.hostname) return undefined;
    return url.port ? `${url.hostname}:${url.port}` : url.hostname;
  } catch {
    return undefined;
  }
}

/** Whether a host pattern of the network list (`host`, `host:port`, `[::1]:port`) names the loopback interface. */
export function isLoopbackHost(pattern: string): boolean {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(pattern);
  const host = bracketed ? bracketed[1] : pattern.includes('::') ? pattern : pattern.replace(/:\d+$/, '');
  if (host === undefined) return false;
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function providerWrites(input: SandboxPolicyInput): string[] {
  return (input.facts?.writePaths ?? []).map((w) => {
    const moved = w.env ? input.env[w.env] : undefined;
    return expandHome(moved ? moved : w.path, input.userHome);
  });
}

function networkOf(input: SandboxPolicyInput): string[] {
  const custom = input.endpointEnv.map((name) => input.env[name]).flatMap((value) => (value ? [hostOfUrl(value)] : []));
  return unique([...(input.facts?.hosts ?? []), ...custom.filter((h): h is string => h !== undefined), ...input.widen.allow]);
}

/** Build the policy (pure). */
export function buildSandboxPolicy(input: SandboxPolicyInput): SandboxPolicy {
  const widenWrite = input.widen.write.map((p) => expandHome(p, input.userHome));
  const widenRead = input.widen.read.map((p) => expandHome(p, input.userHome));
  const write = unique([input.cwd, input.providerDir, input.eventsDir, input.tempDir, input.sharedDir, ...providerWrites(input), ...widenWrite]);
  const denyRead = unique([...SANDBOX_DENY_READ.map((p) => join(input.userHome, p)), input.stateRoot]);
  // The write paths inside the denied state root (events, provider files, a worktree) are mounted
  // writable after the denies, so they are seen; re-allowing their read would mount them read-only.
  // The hook sink's dir is read (and run) only. The rest of the worker's dir (its meta) stays hidden.
  const allowRead = unique([input.hooksDir, ...widenRead]);
  return {
    write,
    denyRead,
    allowRead,
    network: networkOf(input),
    widened: { write: widenWrite, read: widenRead, allow: [...input.widen.allow] },
  };
}

/** The settings file of `@anthropic-ai/sandbox-runtime` (srt) for the policy. */
export function srtSettings(policy: SandboxPolicy): Record<string, unknown> {
  return {
    network: { allowedDomains: [...policy.network], deniedDomains: [] },
    filesystem: { denyRead: [...policy.denyRead], allowRead: [...policy.allowRead], allowWrite: [...policy.write], denyWrite: [] },
  };
}
