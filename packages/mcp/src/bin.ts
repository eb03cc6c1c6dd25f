/**
 * The `umbel-mcp` executable (built to dist/bin.js; bin/umbel-mcp.js imports it): the default
 * engine of @umbel/runtime (tmux + the built-in providers + the provider packages of the config
 * file and UMBEL_PROVIDERS) from this process's own environment, served over stdio. Exits when
 * stdin closes or on SIGTERM/SIGINT. Diagnostics go to stderr only. `--help` and `--version`
 * answer before the engine or the server are loaded. A config file or provider package that
 * cannot be loaded is a usage error (exit 2) before the server starts, and so is a missing
 * @umbel/runtime (an optional peer of this package: `umbel mcp` serves the same).
 */
import { binArgs } from './bin-args.js';

/** Hard limit between "stop" and process exit, in case something keeps the loop alive. */
const EXIT_DEADLINE_MS = 2_000;

const early = binArgs(process.argv.slice(2));
if (early) {
  if (early.stdout) process.stdout.write(early.stdout);
  if (early.stderr) process.stderr.write(early.stderr);
  process.exit(early.code);
}

const { UmbelError, errorBody, errorExitCode } = await import('@umbel/core');
try {
  // An optional peer (library users install no tmux, no provider): missing, a usage error saying what to install.
  const { createDefaultUmbel } = await import('@umbel/runtime').catch(async (error: unknown) => {
    throw (await import('./runtime-missing.js')).runtimeMissing(error) ?? error;
  });
  const { runMcpServer } = await import('./run.js');
  const engine = await createDefaultUmbel({ env: process.env, cwd: process.cwd() });
  await runMcpServer({ engine });
  setTimeout(() => process.exit(0), EXIT_DEADLINE_MS).unref();
  process.exit(0);
} catch (error) {
  const body = errorBody(error);
  const text = UmbelError.isInstance(error)
    ? `${body.code}: ${body.message}${body.hint ? `\nhint: ${body.hint}` : ''}`
    : error instanceof Error
      ? (error.stack ?? error.message)
      : String(error);
  process.stderr.write(`umbel-mcp: ${text}\n`);
  process.exit(errorExitCode(error));
}
