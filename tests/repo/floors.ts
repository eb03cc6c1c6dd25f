/**
 * The package graph, declared once. A package may import another only from a lower floor and
 * only if it also lists it in package.json; `only` narrows a package further (the architecture's
 * "workflow: no tmux, no provider imports"); `LIBRARY_ONLY` narrows a package's library part
 * (everything but its bins and tests) when its bin composes more.
 */
export const FLOORS: Readonly<Record<string, number>> = {
  '@umbel/core': 1,
  '@umbel/tmux': 2,
  '@umbel/provider-claude': 2,
  '@umbel/provider-codex': 2,
  '@umbel/provider-gemini': 2,
  '@umbel/provider-opencode': 2,
  '@umbel/runtime': 3,
  '@umbel/workflow': 3,
  '@umbel/mcp': 4,
  '@umbel/cli': 5,
  umbel: 6,
};

/** Packages that may depend on nothing of ours but these (beyond the floor rule). */
export const ONLY: Readonly<Record<string, readonly string[]>> = {
  '@umbel/tmux': ['@umbel/core'],
  '@umbel/provider-claude': ['@umbel/core'],
  '@umbel/provider-codex': ['@umbel/core'],
  '@umbel/provider-gemini': ['@umbel/core'],
  '@umbel/provider-opencode': ['@umbel/core'],
  '@umbel/runtime': ['@umbel/core', '@umbel/tmux', '@umbel/provider-claude', '@umbel/provider-codex', '@umbel/provider-gemini', '@umbel/provider-opencode'],
  '@umbel/workflow': ['@umbel/core'],
};

/**
 * Packages whose library part may import only these of ours; `bins` (paths from the repository
 * root) may import anything the floor rule allows. `@umbel/mcp` as a library loads neither tmux nor
 * a provider: only its `umbel-mcp` bin composes the default engine through @umbel/runtime.
 */
export const LIBRARY_ONLY: Readonly<Record<string, { readonly only: readonly string[]; readonly bins: readonly string[] }>> = {
  '@umbel/mcp': { only: ['@umbel/core'], bins: ['packages/mcp/src/bin.ts', 'packages/mcp/bin/umbel-mcp.js'] },
};
