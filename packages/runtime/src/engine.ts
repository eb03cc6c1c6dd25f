/**
 * The default engine of umbel's bins: the tmux substrate, the built-in providers and the provider
 * packages of the config file and `UMBEL_PROVIDERS`. tmux is loaded only here, so reading the
 * providers (for `--help`, `umbel providers`) never loads it.
 */
import { createUmbel, resolveHome, type Umbel } from '@umbel/core';
import type { RuntimeEnv } from './env.js';
import { loadProviders } from './load.js';
import type { LoadedProviders } from './loaded.js';

/** Options of {@link createDefaultUmbel}. */
export interface DefaultUmbelOptions {
  /** umbel's own environment (default `process.env`). */
  readonly env?: RuntimeEnv;
  /** Where relative provider paths and package lookups start (default `process.cwd()`). */
  readonly cwd?: string;
  /** Providers already loaded with {@link loadProviders} (default: load them now). */
  readonly providers?: LoadedProviders;
}

/** Create the engine umbel's faces use. Throws ProviderLoadError / ConfigInvalidError (exit 2). */
export async function createDefaultUmbel(options: DefaultUmbelOptions = {}): Promise<Umbel> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const loaded = options.providers ?? (await loadProviders({ env, cwd }));
  const { createTmuxSubstrate } = await import('@umbel/tmux');
  const home = resolveHome(env);
  return createUmbel({ home, env, substrate: createTmuxSubstrate({ home, env }), providers: loaded.providers.map((p) => p.provider) });
}
