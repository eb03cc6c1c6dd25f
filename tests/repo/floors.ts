/**
 * The package graph, declared once. A package may import another only from a lower floor and
 * only if it also lists it in package.json; `only` narrows a package further (the architecture's
 * "workflow: no tmux, no provider imports").
 */
export const FLOORS: Readonly<Record<string, number>> = {
  '@umbel/core': 1,
  '@umbel/tmux': 2,
  '@umbel/provider-claude': 2,
  '@umbel/provider-codex': 2,
  '@umbel/provider-gemini': 2,
  '@umbel/workflow': 3,
  '@umbel/mcp': 3,
  '@umbel/cli': 4,
  umbel: 5,
};

/** Packages that may depend on nothing of ours but these (beyond the floor rule). */
export const ONLY: Readonly<Record<string, readonly string[]>> = {
  '@umbel/tmux': ['@umbel/core'],
  '@umbel/provider-claude': ['@umbel/core'],
  '@umbel/provider-codex': ['@umbel/core'],
  '@umbel/provider-gemini': ['@umbel/core'],
  '@umbel/workflow': ['@umbel/core'],
};
