/**
 * What `umbel providers` reports: each provider's id, names, origin, the CLI binary it would
 * launch (its `doFindBinary`, then `<binary> --version` run directly — never through a shell —
 * with a short timeout) and the CLI versions it was verified against. One schema for `--json`.
 */
import { tmpdir } from 'node:os';
import { probeVersion, probeVersionIn, UmbelError, VERSION_TIMEOUT_MS } from '@umbel/core';
import * as z from 'zod';
import type { RuntimeEnv } from './env.js';
import type { LoadedProvider, LoadedProviders } from './loaded.js';

/** The probe moved to @umbel/core (`umbel doctor` runs it too); re-exported for this package's users. */
export { probeVersion, VERSION_TIMEOUT_MS };

/** The binary of one provider: found (with its `--version` output), not found (where it looked), or unknown. */
export const BinaryReportSchema = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('found'),
    path: z.string(),
    /** First line of `<path> --version`. */
    version: z.string().optional(),
    /** Why there is no version (timed out, exit code, no output). */
    versionError: z.string().optional(),
  }),
  z.object({ status: z.literal('not-found'), message: z.string(), hint: z.string().optional() }),
  z.object({ status: z.literal('unknown'), message: z.string() }),
]);

export const ProviderReportSchema = z.object({
  id: z.string(),
  displayName: z.string(),
  description: z.string().optional(),
  source: z.enum(['built-in', 'config', 'env']),
  /** As written in UMBEL_PROVIDERS or the config file. */
  specifier: z.string().optional(),
  packageName: z.string().optional(),
  packageVersion: z.string().optional(),
  /** The module file it was imported from. */
  module: z.string().optional(),
  binary: BinaryReportSchema,
  verifiedVersions: z.array(z.string()),
});

/** A provider package that could not be loaded: only its own providers are missing. */
export const ProviderFailureSchema = z.object({
  /** As written in UMBEL_PROVIDERS or the config file. */
  specifier: z.string(),
  source: z.enum(['config', 'env']),
  /** Why, without the package and the source. */
  reason: z.string(),
  /** The whole sentence: the package, where it was named and why. */
  message: z.string(),
  hint: z.string().optional(),
});

export const ProvidersReportSchema = z.object({
  config: z.object({ path: z.string(), exists: z.boolean() }),
  providers: z.array(ProviderReportSchema),
  failures: z.array(ProviderFailureSchema).optional(),
});

export type BinaryReport = z.infer<typeof BinaryReportSchema>;
export type ProviderReport = z.infer<typeof ProviderReportSchema>;
export type ProvidersReport = z.infer<typeof ProvidersReportSchema>;

async function binaryOf(entry: LoadedProvider, env: RuntimeEnv, timeoutMs: number): Promise<BinaryReport> {
  const { provider } = entry;
  if (typeof provider.doFindBinary !== 'function') return { status: 'unknown', message: 'the provider does not say how it finds its CLI (no doFindBinary)' };
  let path: string;
  try {
    path = await provider.doFindBinary(env);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const hint = UmbelError.isInstance(error) ? error.hint : undefined;
    return { status: 'not-found', message, ...(hint ? { hint } : {}) };
  }
  // (its own temp dir, removed after: some CLIs leave files in TMPDIR even for --version)
  return { status: 'found', path, ...(await probeVersionIn(env.TMPDIR || tmpdir(), path, env, timeoutMs)) };
}

/** The report of every loaded provider (binaries probed in parallel). */
export async function inspectProviders(
  loaded: LoadedProviders,
  options: { readonly env: RuntimeEnv; readonly versionTimeoutMs?: number },
): Promise<ProvidersReport> {
  const timeoutMs = options.versionTimeoutMs ?? VERSION_TIMEOUT_MS;
  const providers = await Promise.all(
    loaded.providers.map(async (entry): Promise<ProviderReport> => {
      const { provider } = entry;
      return {
        id: provider.providerId,
        displayName: provider.displayName,
        ...(provider.description ? { description: provider.description } : {}),
        source: entry.source,
        ...(entry.specifier !== undefined ? { specifier: entry.specifier } : {}),
        ...(entry.packageName !== undefined ? { packageName: entry.packageName } : {}),
        ...(entry.packageVersion !== undefined ? { packageVersion: entry.packageVersion } : {}),
        ...(entry.module !== undefined ? { module: entry.module } : {}),
        binary: await binaryOf(entry, options.env, timeoutMs),
        verifiedVersions: [...(provider.verifiedVersions ?? [])],
      };
    }),
  );
  const failures = (loaded.failures ?? []).map(({ specifier, source, reason, message, hint }) => ({
    specifier,
    source,
    reason,
    message,
    ...(hint ? { hint } : {}),
  }));
  return ProvidersReportSchema.parse({
    config: { path: loaded.config.path, exists: loaded.config.exists },
    providers,
    ...(failures.length > 0 ? { failures } : {}),
  });
}
