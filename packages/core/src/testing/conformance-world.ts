/**
 * One world of the behavioural conformance suite: a private state root, a worker directory and a
 * user home (all `mkdtemp`), the memory substrate replaying one recorded scenario, and an engine
 * (`createUmbel`) with only the provider under test.
 */
import { lstat, mkdtemp, readdir, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUmbel } from '../engine/engine.js';
import { hookCommandFor } from '../engine/hook-sink.js';
import { statePaths } from '../engine/paths.js';
import type { ProviderV1 } from '@umbel/provider';
import type { Umbel } from '../contract/umbel.js';
import { createMemorySubstrate, type MemorySubstrate } from './memory-substrate.js';
import type { RecordedScenario } from './recording.js';

/** Knobs of the behavioural suite. */
export interface BehaviourSettings {
  /** How long a spawn may take to reach ready. Default 20 s. */
  readonly startupTimeout?: string;
  /** How long a wait may take. Default 20 s. */
  readonly waitTimeout?: string;
  /** The engine's hold for a final message after a stop (short, so an answer that never comes shows). Default 1500 ms. */
  readonly stopSettleMs?: number;
}

/** A world to drive a provider in. */
export interface ConformanceWorld {
  readonly umbel: Umbel;
  readonly substrate: MemorySubstrate;
  /** umbel's state root. */
  readonly home: string;
  /** The worker's cwd. */
  readonly work: string;
  /** Remove everything (sessions first). */
  close(): Promise<void>;
}

/** Create a world replaying `scenario` for `provider`; `callerEnv` is laid over `{ PATH, HOME }`. */
export async function createWorld(
  provider: ProviderV1,
  scenario: RecordedScenario,
  callerEnv: Readonly<Record<string, string | undefined>>,
  settings: BehaviourSettings = {},
): Promise<ConformanceWorld> {
  const root = await realpath(await mkdtemp(join(tmpdir(), `umbel-conformance-${provider.providerId}-`)));
  const home = join(root, 'state');
  const work = await mkdtemp(join(root, 'work-'));
  const userHome = await mkdtemp(join(root, 'home-'));
  const substrate = createMemorySubstrate({ replay: scenario });
  const env = { PATH: process.env.PATH, HOME: userHome, ...callerEnv };
  const umbel = createUmbel({ substrate, providers: [provider], home, env, stopSettleMs: settings.stopSettleMs ?? 1500 });
  return {
    umbel,
    substrate,
    home,
    work,
    async close() {
      for (const session of await substrate.list()) await substrate.kill(session).catch(() => undefined);
      await rm(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
    },
  };
}

async function filesUnder(dir: string, depth = 6): Promise<string[]> {
  if (depth === 0) return [];
  const entries = await readdir(dir).catch(() => [] as string[]);
  const out: string[] = [];
  for (const name of entries) {
    const path = join(dir, name);
    const info = await lstat(path).catch(() => undefined);
    if (info?.isDirectory()) out.push(...(await filesUnder(path, depth - 1)));
    else if (info?.isFile() && info.size < 1_000_000) out.push(path);
  }
  return out;
}

/** The text of every regular file under `dirs` (symlinks not followed). */
export async function textsUnder(dirs: readonly string[]): Promise<string[]> {
  const files = (await Promise.all(dirs.map((dir) => filesUnder(dir)))).flat();
  return Promise.all(files.map((f) => readFile(f, 'utf8').catch(() => '')));
}

/** Everything a launch wired: argv, env values, and the provider's files (the worker's and the shared ones). */
export async function launchWiring(world: ConformanceWorld, provider: ProviderV1, worker: string): Promise<string> {
  const paths = statePaths(world.home);
  const launch = world.substrate.launches.at(-1);
  const texts = await textsUnder([paths.worker(worker).provider, paths.providerShared(provider.providerId)]);
  return [...(launch?.argv ?? []), ...Object.values(launch?.env ?? {}), ...texts].join('\n');
}

/** The command that delivers a hook of `kind` in a world. */
export function hookCommandIn(world: ConformanceWorld, kind: string): string {
  return hookCommandFor(statePaths(world.home).hookSink, kind);
}
