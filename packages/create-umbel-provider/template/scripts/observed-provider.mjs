// The provider as built (dist/), watched: each screen umbel's startup hands to doDetectStartup is
// appended to the file named in $UMBEL_RECORD_SCREENS, with the time (wall-clock nanoseconds, like
// umbel's event files) and the state the provider made of it. Nothing else changes.
// scripts/record-conformance.mjs loads it into umbel through UMBEL_PROVIDERS.
import { appendFileSync } from 'node:fs';
import provider from '../dist/index.js';

const log = process.env.UMBEL_RECORD_SCREENS;
const hrStart = process.hrtime.bigint();
const epochStart = BigInt(Date.now()) * 1_000_000n;
const nowNs = () => epochStart + (process.hrtime.bigint() - hrStart);

export default {
  ...provider,
  doDetectStartup(input) {
    const state = provider.doDetectStartup(input);
    if (log) appendFileSync(log, `${JSON.stringify({ at: String(nowNs()), screen: input.screen, state })}\n`);
    return state;
  },
};
