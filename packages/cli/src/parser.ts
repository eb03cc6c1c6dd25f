/** The yargs definition of the command line: verbs, their positionals and options, the help text. */
import { EXIT_CODE_MEANINGS } from '@umbel/core';
import yargs, { type Argv } from 'yargs';
import { poolOptions } from './pool.js';
import { VERSION } from './version.js';

/** Where the documentation lives (packages ship no docs/ folder; the repository has it). */
export const DOCS_URL = 'https://github.com/umbel-dev/umbel/blob/main/docs/cli.md';

/** The exit codes, from core's table (one line each). */
const EXIT_CODES_HELP = ['Exit codes:', ...Object.entries(EXIT_CODE_MEANINGS).map(([code, meaning]) => `  ${code.padEnd(5)}${meaning}`)].join('\n');

const DOCTOR_HELP = [
  'For each provider a checklist: ✓ pass, ✗ fail (with one fix hint), – not checked.',
  'Checks: the CLI binary and its version against the versions the provider was verified on (a newer one is said, not failed); signed in; the billing a worker would get (subscription, or api when a key variable would be passed); a custom endpoint (base URL variables, never a key).',
  "Then a scratch worker (a private temp cwd and state root, its own tmux server) is started to its ready prompt, its startup dialogs answered, to see umbel's session hook fire with a payload umbel can read (session id, transcript path). It is torn down with nothing left, also on Ctrl-C. No model call unless --turn.",
  'Your own CLI configuration is not changed (a CLI may remember the scratch folder, e.g. as trusted). Exit 0 when every checked provider passes, 1 otherwise.',
].join('\n\n');

/** Flags that take no value: `--flag=VALUE` with anything but true/false is a usage error. */
export const BOOLEAN_FLAGS: ReadonlySet<string> = new Set([
  'print',
  'verbose',
  'unattended',
  'json',
  'purge',
  'follow',
  'keep-workers',
  'help',
  'version',
  'command',
  'text',
]);

/** Flags that may be given more than once (each adds a value); every other flag takes one. */
export const REPEATABLE_FLAGS: ReadonlySet<string> = new Set(['env', 'var']);

/** Flags that repeat for one verb only (`doctor --provider claude --provider codex`). */
export const VERB_REPEATABLE_FLAGS: Readonly<Record<string, readonly string[]>> = { doctor: ['provider'] };

/** The verbs and their positionals, in yargs' syntax (`<required>`, `[optional]`, `..` variadic). */
export const COMMANDS = {
  spawn: 'spawn [worker]',
  send: 'send <name> [prompt]',
  wait: 'wait <names..>',
  keys: 'keys <name> <keys..>',
  status: 'status [name]',
  ls: 'ls',
  read: 'read <name>',
  actions: 'actions <name>',
  diff: 'diff <name>',
  kill: 'kill <name>',
  revive: 'revive <name>',
  prune: 'prune',
  attach: 'attach <name>',
  capture: 'capture <name>',
  logs: 'logs <name>',
  events: 'events [names..]',
  top: 'top',
  run: 'run [file]',
  mcp: 'mcp',
  providers: 'providers',
  doctor: 'doctor',
  pool: 'pool <action> [pool]',
} as const;

export type Verb = keyof typeof COMMANDS;
export const VERBS = Object.keys(COMMANDS) as Verb[];

/** The providers the help names: the ones the runtime loaded (or the built-ins, with the problem, when loading failed). */
export interface ProviderHelp {
  readonly providers: readonly { readonly id: string; readonly summary: string }[];
  /** Why provider packages could not be loaded (the help still answers). */
  readonly problem?: string;
}

const BUILT_IN_HELP: ProviderHelp = {
  providers: [
    { id: 'claude', summary: 'Claude Code' },
    { id: 'codex', summary: 'OpenAI Codex' },
    { id: 'gemini', summary: 'Gemini CLI' },
    { id: 'opencode', summary: 'opencode' },
    { id: 'copilot', summary: 'GitHub Copilot CLI' },
  ],
};

const PERMISSION_MODES = 'claude: default (= manual), manual, acceptEdits, plan, auto, dontAsk, bypassPermissions';

function spawnOptions(y: Argv, help: ProviderHelp): Argv {
  const ids = help.providers.map((p) => p.id).join(', ');
  return y
    .option('provider', { type: 'string', describe: `Agent CLI (default claude): ${ids}`, default: undefined })
    .option('cwd', { type: 'string', describe: "Worker's working directory (must exist; default: here)" })
    .option('model', { type: 'string', describe: "Model, passed to the CLI's --model" })
    .option('env', { type: 'string', nargs: 1, describe: 'NAME (value taken from your env, never put on argv) or NAME=VALUE; repeatable' })
    .option('permission-mode', { type: 'string', describe: `The CLI's permission mode (${PERMISSION_MODES})` })
    .option('allowed-tools', { type: 'string', describe: "Tools allowed without asking, in the CLI's syntax (claude: 'Bash(git:*) Edit')" })
    .option('append-system-prompt', { type: 'string', describe: 'Text appended to the system prompt (claude)' })
    .option('unattended', { type: 'boolean', describe: "Never stop for permission prompts (the CLI's own bypass mode)" })
    .option('host', {
      type: 'string',
      describe:
        'Run the worker on this host of the config file (over SSH); later verbs route there by themselves. --cwd is then a path there (default: its home)',
    })
    .option('billing', {
      type: 'string',
      describe: 'subscription: refuse (exit 3, nothing left) a worker that would bill the API instead of your plan login; any (default)',
    })
    .option('max-workers', {
      type: 'string',
      describe: "Refuse (exit 117) when this many workers already live on this state root (this call's limit; the config's limits.maxWorkers otherwise)",
    })
    .option('worktree', {
      type: 'boolean',
      describe: "Run the worker in its own git worktree of --cwd's repository, on a new branch (default umbel/<name>); kill keeps it",
    })
    .option('branch', { type: 'string', describe: '--worktree: the branch (default umbel/<name>; an existing one is checked out on purpose)' })
    .option('base', { type: 'string', describe: '--worktree: the commit, branch or tag it starts from (default HEAD)' })
    .option('sandbox', {
      type: 'boolean',
      describe:
        'Confine the worker in an OS sandbox: it writes only its cwd (or worktree) and its own dirs, reads none of your secrets, reaches only its model hosts (exit 116 where it cannot be had)',
    })
    .option('sandbox-write', { type: 'string', nargs: 1, describe: '--sandbox: also let it write PATH; repeatable' })
    .option('sandbox-read', { type: 'string', nargs: 1, describe: '--sandbox: let it read PATH of the deny list (~/.npmrc); repeatable' })
    .option('sandbox-allow', {
      type: 'string',
      nargs: 1,
      describe: '--sandbox: also let it reach HOST (api.example.com, *.example.com, host:port); repeatable',
    });
}

function waitOptions(y: Argv, what: string): Argv {
  return y
    .option('timeout', { type: 'string', describe: `Give up after this long (default 30m): exit 124` })
    .option('idle-timeout', { type: 'string', describe: `Return idle (123) when ${what} shows no activity for this long` })
    .option('check', {
      type: 'string',
      describe:
        'Guardrail: shell command run in the worker cwd after the turn (answer on stdin and in $UMBEL_ANSWER_FILE); exit 0 accepts, otherwise its output is fed back and the turn retried',
    })
    .option('schema', { type: 'string', describe: 'Guardrail: JSON Schema file the answer (JSON, a ```json block is fine) must match' })
    .option('retries', { type: 'string', describe: 'Guardrail: feedback rounds before halting (default 2)' })
    .option('check-timeout', { type: 'string', describe: 'Guardrail: time limit of one check run (default 5m)' });
}

/** A verb's builder: its own options, without the top-level-only -p and --version in its help. */
function verb(build: (y: Argv) => Argv): (y: Argv) => Argv {
  return (y) => build(y).hide('print').hide('version');
}

const name = (y: Argv) => y.positional('name', { type: 'string', describe: 'Worker name' });
const json =
  (describe = 'Print JSON') =>
  (y: Argv) =>
    y.option('json', { type: 'boolean', describe });

function printCommand(y: Argv, help: ProviderHelp): Argv {
  return waitOptions(spawnOptions(y, help), 'the worker')
    .positional('prompt', { type: 'string', describe: 'The prompt (stdin is appended when piped)' })
    .option('output-format', { type: 'string', describe: 'text, json or stream-json (like claude -p)' })
    .option('verbose', { type: 'boolean', describe: 'Required with --output-format stream-json (as in claude -p)' })
    .option('name', { type: 'string', describe: 'Use (or create) this named worker and keep it for later turns' })
    .option('resume', { type: 'string', describe: 'Send into this existing worker' })
    .option('pool', { type: 'string', describe: "Take a warm worker from this pool, or 'none' for a cold start (default: any matching pool)" })
    .option('startup-timeout', { type: 'string', describe: 'A cold start: how long to wait for the ready prompt (default 60s)' });
}

/** The supervisor verbs, in three groups. */
function verbs(y: Argv, help: ProviderHelp): Argv {
  return toolVerbs(maintenanceVerbs(inspectionVerbs(workVerbs(y, help))), help);
}

/** A worker and its turns: spawn, send, wait, keys, status, ls. */
function workVerbs(y: Argv, help: ProviderHelp): Argv {
  return y
    .command(
      COMMANDS.spawn,
      'Start a worker and wait until its CLI is ready; prints its name',
      verb((v) =>
        json('Print the worker status as JSON')(spawnOptions(v, help))
          .positional('worker', { type: 'string', describe: 'Worker name (a-z, 0-9, -); anonymous when omitted' })
          .option('name', { type: 'string', describe: 'Worker name (instead of the positional)' })
          .option('startup-timeout', { type: 'string', describe: 'How long to wait for the ready prompt (default 60s)' }),
      ),
    )
    .command(
      COMMANDS.send,
      'Deliver a prompt (exactly as given) and confirm it was submitted; prints the turn number. Does not wait.',
      verb((v) =>
        json()(name(v))
          .positional('prompt', {
            type: 'string',
            describe: "The prompt; '-' or omitted with piped stdin reads stdin; after -- it may start with -",
          })
          .option('command', {
            type: 'boolean',
            describe:
              "Run the text as the CLI's own command on purpose (/compact, !git status): sent as typed, never escaped; prints a turn only when the command starts a model turn",
          }),
      ),
    )
    .command(
      COMMANDS.wait,
      'Wait for a turn to end; prints the answer (the exit code tells the outcome). Several workers: one outcome each, in the order they ended',
      verb((v) =>
        json('Print the whole Outcome as JSON (several workers: an array)')(
          waitOptions(v.positional('names', { type: 'string', array: true, describe: 'Worker name(s)' }), 'the worker'),
        )
          .option('turn', {
            type: 'string',
            describe: 'Turn to wait for (default: the latest sent model turn; one worker only)',
          })
          .option('all', { type: 'boolean', describe: 'Several workers: return when every one ended (default)' })
          .option('any', { type: 'boolean', describe: 'Several workers: return when the first one ended (the others keep running)' })
          .conflicts('any', 'all')
          .option('until', {
            type: 'string',
            describe:
              'What ends the wait: stop (the turn ends; default), file (--file exists), pattern (--pattern matches the screen); file/pattern exit 0 like a completed turn',
          })
          .option('file', { type: 'string', describe: "--until file: the path to wait for (relative to the worker's cwd)" })
          .option('pattern', {
            type: 'string',
            describe: "--until pattern: a JavaScript regular expression tested against the worker's screen (^/$ match at line ends)",
          }),
      ),
    )
    .command(
      COMMANDS.keys,
      "Press keys in the worker's terminal (Enter, Escape, Up, Down, Tab, C-c, 1, …), e.g. to answer a permission prompt",
      verb((v) => json()(name(v)).positional('keys', { type: 'string', array: true, describe: 'Key names or characters' })),
    )
    .command(
      COMMANDS.status,
      'Show one worker, or all of them',
      verb((v) => json()(v.positional('name', { type: 'string', describe: 'Worker name' }))),
    )
    .command(COMMANDS.ls, 'List every worker (tombstones included)', verb(json()));
}

/** What a worker did: read, actions, diff. */
function inspectionVerbs(y: Argv): Argv {
  return y
    .command(
      COMMANDS.read,
      'Print the answer of a turn, from the transcript',
      verb((v) =>
        json()(name(v))
          .option('turn', { type: 'string', describe: 'Turn (default: the latest completed)' })
          .option('section', { type: 'string', describe: "Only this markdown section: '## Findings' (that level) or 'Findings' (any level)" })
          .option('head', { type: 'string', describe: 'Only the first ~N tokens (4 characters each), cut at a line boundary' })
          .option('tail', { type: 'string', describe: 'Only the last ~N tokens; with --head, both ends' }),
      ),
    )
    .command(
      COMMANDS.actions,
      'What the worker did in a turn, from its transcript: tools, files read/edited/written, shell commands, errors, final message',
      verb((v) => json('Print the manifest as JSON')(name(v)).option('turn', { type: 'string', describe: "Turn (default: the latest sent), or 'all'" })),
    )
    .command(
      COMMANDS.diff,
      "The file changes a turn made in the worker's cwd (git: against a snapshot taken when the turn was sent; else the files the transcript says were written)",
      verb((v) =>
        json()(name(v))
          .option('turn', { type: 'string', describe: 'Turn (default: the latest sent); with --text, the newer answer' })
          .option('text', { type: 'boolean', describe: "Diff two turns' answers instead (the earlier umbel's diff)" })
          .option('from', {
            type: 'string',
            describe: '--text: the older turn (default: the completed one before); -1, -2 … count back from the latest completed',
          })
          .option('to', { type: 'string', describe: '--text: the newer turn (default: the latest completed); negative counts back' })
          .option('against', {
            type: 'string',
            describe: "base: a worktree worker's whole change (commits and uncommitted files) against the commit it was made from",
          }),
      ),
    );
}

/** Ending and watching workers: kill, prune, attach, capture, logs, events. */
function maintenanceVerbs(y: Argv): Argv {
  return y
    .command(
      COMMANDS.kill,
      'End a worker; its state stays as a tombstone unless --purge',
      verb((v) =>
        json()(name(v))
          .option('purge', { type: 'boolean', describe: 'Also remove its state, and its worktree when that holds no work (else refused)' })
          .option('discard-worktree', { type: 'boolean', describe: 'Purge, and remove its worktree and branch even with work in them' }),
      ),
    )
    .command(
      COMMANDS.revive,
      'Start a dead or killed worker again, resuming its conversation (same cwd, provider, options and env names)',
      verb((v) =>
        json()(name(v))
          .option('startup-timeout', { type: 'string', describe: 'How long to wait for the ready prompt (default 60s)' })
          .option('max-workers', { type: 'string', describe: "Refuse (exit 117) when this many workers already live (this call's limit)" }),
      ),
    )
    .command(
      COMMANDS.prune,
      'Remove dead workers (and orphan sessions)',
      verb((v) => json()(v).option('older-than', { type: 'string', describe: 'Only those dead for at least this long' })),
    )
    .command(COMMANDS.attach, "Watch a worker's terminal (detach with Ctrl-b d)", verb(name))
    .command(
      COMMANDS.capture,
      "Print the worker's screen (for people; answers come from `read`)",
      verb((v) => json()(name(v)).option('lines', { type: 'string', describe: 'Lines (default 100)' })),
    )
    .command(
      COMMANDS.logs,
      "Print the worker's event log, one line per event",
      verb((v) => json('Print JSON lines')(name(v)).option('follow', { alias: 'f', type: 'boolean', describe: 'Keep printing new events until Ctrl-C' })),
    )
    .command(
      COMMANDS.events,
      "The fleet's lifecycle, one line per event: spawned, ready, sent, send-failed, needs-input, ended, dead, killed (from the ledger)",
      verb((v) =>
        json('Print JSON lines')(v)
          .positional('names', { type: 'string', array: true, describe: 'Only these workers (default: every one)' })
          .option('follow', { alias: 'f', type: 'boolean', describe: 'Keep printing new events as they happen, until Ctrl-C' })
          .option('since', { type: 'string', describe: "Only events after this: an event's cursor, an ISO time, or a duration back from now (10m)" }),
      ),
    );
}

/** The tools around workers: run, pool, mcp, doctor, providers. */
function toolVerbs(y: Argv, help: ProviderHelp): Argv {
  return y
    .command(
      COMMANDS.top,
      'A live full-screen view of the fleet: select, attach, send, answer, kill (q quits)',
      verb((v) => v),
    )
    .command(
      COMMANDS.run,
      'Run a workflow YAML',
      verb((v) =>
        json('Print one summary object')(v)
          .positional('file', { type: 'string', describe: 'The workflow file' })
          .option('var', { type: 'string', nargs: 1, describe: 'K=V for {{ vars.K }}; repeatable' })
          .option('keep-workers', { type: 'boolean', describe: "Don't kill the run's workers at the end" })
          .option('max-workers', { type: 'string', describe: "This run's fleet limit: a spawn past it fails its step (exit 117), or waits with limits.queue" })
          .option('resume', { type: 'string', describe: 'Continue a failed run from its first unfinished step' }),
      ),
    )
    .command(
      COMMANDS.pool,
      'Keep warm workers for `umbel -p`: pool start [--size N] [spawn options], pool status [NAME], pool stop [NAME]',
      verb((v) => json()(poolOptions(spawnOptions(v, help)))),
    )
    .command(
      COMMANDS.mcp,
      'Serve the supervisor verbs as MCP tools on stdio',
      verb((v) => v),
    )
    .command(
      COMMANDS.doctor,
      'Check that the installed CLIs still behave as umbel expects: binary, version, login, billing, endpoint, hooks',
      verb((v) =>
        json('Print one JSON report')(v)
          .option('provider', { type: 'string', nargs: 1, describe: 'Check this provider (repeatable; default: every one whose CLI is found)' })
          .option('turn', {
            type: 'boolean',
            describe: 'Also run one tiny turn end to end: this makes ONE small model request on your account (billed as your login or key is)',
          })
          .option('env', { type: 'string', nargs: 1, describe: 'For the scratch worker, as for spawn: NAME or NAME=VALUE; repeatable' })
          .option('startup-timeout', { type: 'string', describe: 'How long the scratch worker may take to reach its prompt (default 30s)' })
          .epilogue(DOCTOR_HELP),
      ),
    )
    .command(
      COMMANDS.providers,
      'List the providers (built-in and loaded packages): origin, version, the CLI binary found, versions verified',
      verb(json('Print one JSON report')),
    );
}

/** The epilogue's list of providers, one line each. */
function providersHelp(help: ProviderHelp): string {
  const width = Math.max(...help.providers.map((p) => p.id.length));
  const lines = help.providers.map((p) => `  ${p.id.padEnd(width)}   ${p.summary}`);
  if (help.problem) lines.push(`  (provider packages not loaded: ${help.problem})`);
  return `Providers (umbel providers for details):\n${lines.join('\n')}`;
}

/**
 * The parser. yargs prints nothing itself: help and version text come back as `output`. `help`
 * names the providers in the help text (default: the built-ins).
 */
export function parser(argv: readonly string[], help: ProviderHelp = BUILT_IN_HELP): Argv {
  return verbs(
    yargs([...argv])
      .scriptName('umbel')
      .usage(
        `umbel — drive Claude Code, Codex, Gemini CLI, opencode, GitHub Copilot CLI (or a provider package) through their interactive TUIs.

Usage:
  umbel -p [PROMPT] [options]        one prompt, printed like \`claude -p\`
  umbel <verb> [args] [options]      supervise workers (spawn → send → wait → read → kill)
  --                                 ends the options: what follows is text (a prompt starting with -)`,
      )
      .command('$0 [prompt]', false, (y) => printCommand(y, help)),
    help,
  )
    .option('print', { alias: 'p', type: 'boolean', describe: 'Print mode: run one prompt like `claude -p`' })
    .version('version', 'Show the version', `umbel ${VERSION}`)
    .help('help')
    .alias('help', 'h')
    .epilogue(
      `${providersHelp(help)}\n\n${EXIT_CODES_HELP}\n\nEnvironment: UMBEL_HOME (state root), UMBEL_TMUX_SOCKET, UMBEL_TMUX_BIN, UMBEL_CLAUDE_BIN, UMBEL_CODEX_BIN, UMBEL_GEMINI_BIN, UMBEL_OPENCODE_BIN,\nUMBEL_PROVIDERS (provider packages: names or paths, comma-separated), UMBEL_CONFIG (default ~/.config/umbel/config.json),\nUMBEL_CODE_CACHE (the bin's compiled code, default ~/.cache/umbel/code-cache; off: none).\nDocs: ${DOCS_URL}`,
    )
    .strict()
    .exitProcess(false)
    .wrap(Math.min(110, process.stdout.columns || 100));
}
