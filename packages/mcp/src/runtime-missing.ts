/**
 * The `umbel-mcp` bin composes the default engine from @umbel/runtime, an optional peer of this
 * package: a library user installs neither tmux nor a provider. Installed without it, the bin says
 * what to install instead of printing a module-resolution stack.
 */
import { UsageError } from '@umbel/core';

/** A failed import of @umbel/runtime itself (not of a package it imports) as a usage error; anything else: undefined. */
export function runtimeMissing(error: unknown): UsageError | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' || typeof message !== 'string' || !message.includes("Cannot find package '@umbel/runtime'")) return undefined;
  return new UsageError('umbel-mcp needs @umbel/runtime (the default engine: tmux and the providers), which is not installed beside @umbel/mcp', {
    hint: 'run the server as `umbel mcp` (npx -y umbel mcp), or install @umbel/runtime beside @umbel/mcp',
    cause: error,
  });
}
