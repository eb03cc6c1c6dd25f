/**
 * @umbel/provider-opencode — umbel's provider for opencode (`opencode`, verified on 1.18.33), written on
 * `@umbel/provider` only: its CLI's facts, its per-worker config dir and plugin,
 * its model check and its stored-session transcript reader.
 */
export * from './config-dir.js';
export * from './facts.js';
export * from './plugin.js';
export * from './provider.js';
export * from './screens.js';
export * from './transcript.js';

/** Version of this package. */
export const VERSION = '0.1.0';
