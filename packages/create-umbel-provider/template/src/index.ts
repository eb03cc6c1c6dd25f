/**
 * {{name}}: an umbel provider for {{bin}}. umbel loads it with `UMBEL_PROVIDERS={{name}}` (or the
 * `providers` list of its config file) and takes the provider from the default export.
 */
import { defineProvider } from '@umbel/provider';
import { facts } from './facts.js';

const provider = defineProvider(facts);

export default provider;
export { BUNDLED_AGENT, facts } from './facts.js';
export { parseTranscript, readTurn } from './transcript.js';
