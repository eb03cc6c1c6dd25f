/**
 * The package graph, declared once. A package may import another only from a lower floor and
 * only if it also lists it in package.json; `only` narrows a package further (the architecture's
 * "workflow: no tmux, no provider imports"); `LIBRARY_ONLY` narrows a package's library part
 * (everything but its bins and tests) when its bin composes more.
 */
export const FLOORS: Readonly<Record<string, number>> = {
  // the scaffold generates a provider package; it depends on nothing of ours (ONLY below)
  'create-umbel-provider': 0,
  '@umbel/provider': 1,
  '@umbel/core': 2,
  // the providers' library code imports only @umbel/provider (ONLY below); their tests drive them
  // through the engine, so they sit above core
  '@umbel/tmux': 3,
  // workers on other machines (fleet, SSH, rpc): core only; the composition root wires it in
  '@umbel/remote': 3,
  '@umbel/provider-claude': 3,
  '@umbel/provider-codex': 3,
  '@umbel/provider-gemini': 3,
  '@umbel/provider-opencode': 3,
  '@umbel/provider-copilot': 3,
  '@umbel/provider-qwen': 3,
  '@umbel/runtime': 4,
  '@umbel/workflow': 4,
  '@umbel/mcp': 5,
  // `umbel top` (ink + React), loaded by the CLI on demand like mcp and workflow
  '@umbel/top': 5,
  '@umbel/cli': 6,
  umbel: 7,
};

/** Packages that may depend on (and, but for their tests, import) nothing of ours but these (beyond the floor rule). */
export const ONLY: Readonly<Record<string, readonly string[]>> = {
  'create-umbel-provider': [],
  '@umbel/core': ['@umbel/provider'],
  '@umbel/tmux': ['@umbel/core', '@umbel/provider'],
  '@umbel/remote': ['@umbel/core', '@umbel/provider'],
  '@umbel/provider-claude': ['@umbel/provider'],
  '@umbel/provider-codex': ['@umbel/provider'],
  '@umbel/provider-gemini': ['@umbel/provider'],
  '@umbel/provider-opencode': ['@umbel/provider'],
  '@umbel/provider-copilot': ['@umbel/provider'],
  '@umbel/provider-qwen': ['@umbel/provider'],
  '@umbel/runtime': [
    '@umbel/provider',
    '@umbel/core',
    '@umbel/tmux',
    '@umbel/remote',
    '@umbel/provider-claude',
    '@umbel/provider-codex',
    '@umbel/provider-gemini',
    '@umbel/provider-opencode',
    '@umbel/provider-copilot',
    '@umbel/provider-qwen',
  ],
  '@umbel/workflow': ['@umbel/core'],
  '@umbel/top': ['@umbel/core'],
};

/**
 * Packages whose library part may import only these of ours; `bins` (paths from the repository
 * root) may import anything the floor rule allows, and what only they need must be an optional peer
 * (graph.ts). `@umbel/mcp` as a library loads and installs neither tmux nor a provider: only its
 * `umbel-mcp` bin composes the default engine through @umbel/runtime.
 */
export const LIBRARY_ONLY: Readonly<Record<string, { readonly only: readonly string[]; readonly bins: readonly string[] }>> = {
  '@umbel/mcp': { only: ['@umbel/core'], bins: ['packages/mcp/src/bin.ts', 'packages/mcp/bin/umbel-mcp.js'] },
};
