/**
 * @umbel/provider-copilot — umbel's provider for GitHub Copilot CLI (`copilot`, verified on
 * 1.0.102), written on `@umbel/provider` only: its CLI's facts, its per-worker hooks plugin and its
 * session-events reader.
 */
export { COPILOT_VERIFIED_VERSIONS, type CopilotSettings, copilot, createCopilot } from './provider.js';
export * from './facts.js';
export * from './plugin-dir.js';
export * from './events.js';

/** Version of this package. */
export const VERSION = '0.1.0';
