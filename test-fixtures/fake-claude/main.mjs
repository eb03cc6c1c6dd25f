#!/usr/bin/env node
// Fake Claude Code 2.1.328 for umbel's tests. See README.md beside this file for knobs and
// directives; behaviour follows /work/shared/reference/claude-code.md (sections cited per module).
import { realpathSync } from 'node:fs';
import { parseArgs } from './args.mjs';
import { configPaths, FakeExit, VERSION } from './config.mjs';
import { runPrint } from './print-mode.mjs';
import { checkRootBypass } from './session.mjs';

async function main() {
  const env = process.env;
  const opts = parseArgs(process.argv.slice(2));
  if (opts.version) {
    process.stdout.write(`${env.FAKE_CLAUDE_VERSION || VERSION} (Claude Code)\n`);
    return 0;
  }
  if (opts.help) {
    process.stdout.write(
      'Usage: claude [options] [command] [prompt]\n\nClaude Code (fake) - starts an interactive session by default, use -p/--print for non-interactive output\n',
    );
    return 0;
  }
  checkRootBypass(opts, env);
  let cwd = process.cwd();
  try {
    cwd = realpathSync(cwd);
  } catch {
    // keep as is
  }
  const paths = configPaths(env);
  // Non-TTY stdout means print mode (§7).
  if (opts.print || !process.stdout.isTTY) return runPrint(opts, env, cwd, paths);
  const { runTui } = await import('./tui.mjs');
  return runTui(opts, env, cwd, paths);
}

main().then(
  (code) => {
    if (typeof code === 'number') process.exitCode = code;
  },
  (err) => {
    if (err instanceof FakeExit) {
      (err.stream === 'stdout' ? process.stdout : process.stderr).write(`${err.text}\n`);
      process.exitCode = err.code;
      return;
    }
    process.stderr.write(`fake-claude: internal error: ${err?.stack ?? err}\n`);
    process.exitCode = 70;
  },
);
