#!/usr/bin/env node
// Fake Claude Code 2.1.328 for umbel's tests. See README.md beside this file for knobs and
// directives; behaviour follows /work/shared/reference/claude-code.md (sections cited per module).
import { realpathSync } from 'node:fs';
import { parseArgs } from './args.mjs';
import { authStatusJson, authStatusText, authWorld } from './account.mjs';
import { configPaths, FakeExit, readJson, VERSION } from './config.mjs';
import { runPrint } from './print-mode.mjs';
import { checkRootBypass } from './session.mjs';

/** `claude auth status [--json|--text]` (real 2.1.328: JSON by default, exit 1 when not logged in). */
function authCommand(args, env) {
  const paths = configPaths(env);
  if (args[0] !== 'status') {
    process.stdout.write('Usage: claude auth [options] [command]\n\nManage authentication\n\nCommands:\n  status [options]  Show authentication status\n');
    return args[0] === undefined || args[0] === '--help' || args[0] === '-h' ? 0 : 1;
  }
  const world = authWorld({ env, paths, global: readJson(paths.globalFile, {}) ?? {}, print: true });
  if (args.includes('--text')) process.stdout.write(`${authStatusText(world, env)}\n`);
  else process.stdout.write(`${JSON.stringify(authStatusJson(world, paths, env), null, 2)}\n`);
  return world.method === 'none' ? 1 : 0;
}

async function main() {
  const env = process.env;
  if (process.argv[2] === 'auth') return authCommand(process.argv.slice(3), env);
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
