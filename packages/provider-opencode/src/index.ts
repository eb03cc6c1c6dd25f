/** @umbel/provider-opencode — umbel's provider for opencode: its facts, its per-worker config dir and plugin, its transcript reader. */
export * from './config-dir.js';
export * from './plugin.js';
export * from './provider.js';
export * from './screens.js';
export * from './transcript.js';

/** Version of this package. */
export const VERSION = '0.1.0';
