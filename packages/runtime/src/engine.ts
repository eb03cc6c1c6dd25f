/**
 * The default engine of umbel's bins: the tmux substrate, the built-in providers and the provider
 * packages of the config file and `UMBEL_PROVIDERS`, as a fleet over the config file's `hosts`
 * (workers on other machines, over SSH: @umbel/remote). tmux and the fleet are loaded only here, so
 * reading the providers (for `--help`, `umbel providers`) never loads them.
 */
import { checkStateRoot, createUmbel, resolveHome, type Umbel, type UmbelSettings } from '@umbel/core';
import type { RuntimeEnv } from './env.js';
import { loadProviders } from './load.js';
import { withSandboxDefault } from './sandbox-default.js';
import type { LoadedProviders } from './loaded.js';

/** Options of {@link createDefaultUmbel}. */
export interface DefaultUmbelOptions {
  /** umbel's own environment (default `process.env`). */
  readonly env?: RuntimeEnv;
  /** Where relative provider paths and package lookups start (default `process.cwd()`). */
  readonly cwd?: string;
  /** Providers already loaded with {@link loadProviders} (default: load them now). */
  readonly providers?: LoadedProviders;
  /** How a `--worktree` spawn's repository reserve is filled (default: in the background of this process). */
  readonly reserveWorktree?: UmbelSettings['reserveWorktree'];
}

/** Create the engine umbel's faces use (a package that failed to load is named, never fatal). Throws ConfigInvalidError (exit 2). */
export async function createDefaultUmbel(options: DefaultUmbelOptions = {}): Promise<Umbel> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const loaded = options.providers ?? (await loadProviders({ env, cwd }));
  const [{ createTmuxSubstrate }, { createFleet }] = await Promise.all([import('@umbel/tmux'), import('@umbel/remote')]);
  const home = resolveHome(env);
  await checkStateRoot(home);
  // doctor's scratch roots get their own tmux server (never the user's socket override) and end it.
  const { UMBEL_TMUX_SOCKET: _socket, ...scratchEnv } = env;
  const scratch = (scratchHome: string) => {
    const substrate = createTmuxSubstrate({ home: scratchHome, env: scratchEnv });
    return { substrate, dispose: () => substrate.killServer() };
  };
  const unloadedProviders = (loaded.failures ?? []).map((f) => ({
    package: `'${f.specifier}' (${f.source === 'env' ? 'UMBEL_PROVIDERS' : 'the config file'})`,
    reason: f.reason,
  }));
  const providers = loaded.providers.map((p) => p.provider);
  const limits = loaded.config.config.limits;
  const substrate = createTmuxSubstrate({ home, env });
  const reserve = options.reserveWorktree ? { reserveWorktree: options.reserveWorktree } : {};
  const local = createUmbel({ home, env, substrate, providers, scratch, unloadedProviders, ...(limits ? { limits } : {}), ...reserve });
  return withSandboxDefault(createFleet({ local, hosts: loaded.config.config.hosts ?? {}, env, home }), loaded.config.config.sandbox);
}
