/**
 * The arguments of the `umbel-mcp` executable, answered before anything heavy is loaded: `--help`
 * and `--version` print and exit 0; any other argument is a usage error (exit 2); no arguments
 * start the server.
 */
import { createRequire } from 'node:module';

const VERSION = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

const HELP = `Usage: umbel-mcp [--help | --version]

Serves umbel's supervisor verbs (umbel_spawn, umbel_send, umbel_wait, umbel_read, umbel_kill, …)
as MCP tools over stdio: JSON-RPC on stdin/stdout, diagnostics on stderr. Exits when stdin closes
or on SIGTERM/SIGINT. Add it to a host, e.g. Claude Code:

  claude mcp add umbel -- npx -y umbel mcp

Environment (of this process; workers get only an allowlist plus their provider's variables):
  UMBEL_HOME          state root (default $XDG_STATE_HOME/umbel, else ~/.local/state/umbel)
  UMBEL_TMUX_SOCKET   tmux socket name (default: derived from the state root)
  UMBEL_CLAUDE_BIN, UMBEL_CODEX_BIN, UMBEL_GEMINI_BIN   the CLI binaries (default: on PATH)
  UMBEL_PROVIDERS     provider packages to load, comma-separated names or paths
  UMBEL_CONFIG        the config file (default $XDG_CONFIG_HOME/umbel/config.json, else
                      ~/.config/umbel/config.json); its "providers" list is loaded too

Options:
  -h, --help      print this help
  -V, --version   print the version

Docs: https://github.com/umbel-dev/umbel/blob/main/docs/mcp.md
`;

/** What the bin does with `argv` (without node and the script): print and exit, or serve. */
export function binArgs(argv: readonly string[]): { code: number; stdout?: string; stderr?: string } | undefined {
  if (argv.length === 0) return undefined;
  const [first] = argv;
  if (argv.length === 1 && (first === '--help' || first === '-h')) return { code: 0, stdout: HELP };
  if (argv.length === 1 && (first === '--version' || first === '-V')) return { code: 0, stdout: `umbel-mcp ${VERSION}\n` };
  const unknown = argv.find((a) => !['--help', '-h', '--version', '-V'].includes(a)) ?? argv.join(' ');
  return { code: 2, stderr: `umbel-mcp: unknown argument '${unknown}'\n  hint: run 'umbel-mcp --help'\n` };
}
