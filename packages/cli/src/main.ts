/**
 * The bin's entry: a light module. `--version` answers without loading yargs or the engine, and
 * SIGINT/SIGTERM are taken over before anything slow is loaded.
 */
import { captureSignals, processIo } from './process-io.js';
import { VERSION } from './version.js';

/** Run with the real process; returns the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  captureSignals();
  if (argv.length === 1 && argv[0] === '--version') {
    process.stdout.write(`umbel ${VERSION}\n`);
    return 0;
  }
  const { run } = await import('./run.js');
  return run(argv, processIo());
}
