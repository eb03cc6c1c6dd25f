/**
 * umbel-provider-echo: an umbel provider package for echo-agent (shipped in bin/). umbel loads it
 * from `UMBEL_PROVIDERS=umbel-provider-echo` or the `providers` list of its config file, and takes
 * the provider from the default export.
 */
import { echo } from './provider.js';

export default echo;
export { echo, ECHO_HOOK_EVENTS } from './provider.js';
export { BUNDLED_AGENT, findEchoAgent } from './binary.js';
export { parseTranscript, readMessages, readTurn } from './transcript.js';
