/**
 * The config file's `sandbox` default (`sandbox: true | {write, read, allow}`): every spawn that
 * does not say — CLI, `-p`, MCP, YAML, local or `--host` — is confined with it; `sandbox: false`
 * (`--no-sandbox`) opts one out. A call's own widenings come on top of the default's, and every
 * one is recorded by spawn as today. Pools too: `pool start` confines its members with it and a
 * claim asks for it, so `-p` takes only a member confined like it (else it spawns its own).
 */
import type { SandboxRequest, Umbel } from '@umbel/core';

type Widening = Exclude<SandboxRequest, boolean>;

function union(a: readonly string[] | undefined, b: readonly string[] | undefined): string[] | undefined {
  return a || b ? [...new Set([...(a ?? []), ...(b ?? [])])] : undefined;
}

/** The sandbox a spawn gets: its own word (false opts out), else the default; widenings add up. Pure. */
export function effectiveSandbox(own: SandboxRequest | undefined, fallback: SandboxRequest | undefined): SandboxRequest | undefined {
  if (own === false) return false;
  if (fallback === undefined || fallback === false) return own;
  if (own === undefined || own === true) return fallback;
  if (fallback === true) return own;
  const out: Widening = {};
  for (const key of ['write', 'read', 'allow'] as const) {
    const both = union(fallback[key], own[key]);
    if (both) out[key] = both;
  }
  return out;
}

/** The engine with the default applied (the same engine when there is none). */
export function withSandboxDefault(engine: Umbel, fallback: SandboxRequest | undefined): Umbel {
  if (fallback === undefined || fallback === false) return engine;
  return {
    ...engine,
    spawn: (input, context) => engine.spawn({ ...input, sandbox: effectiveSandbox(input.sandbox, fallback) }, context),
    pool: {
      ...engine.pool,
      start: (input, context) => engine.pool.start({ ...input, sandbox: effectiveSandbox(input.sandbox, fallback) }, context),
      claim: (input) => engine.pool.claim({ ...input, sandbox: effectiveSandbox(input.sandbox, fallback) }),
    },
  };
}
