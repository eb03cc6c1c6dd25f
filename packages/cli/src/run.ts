/**
 * `run(argv, io)`: parse with yargs, dispatch, map errors once to exit codes. The only
 * `process.exit` lives in ./cli.ts.
 */
import { UsageError } from '@umbel/core';
import yargs, { type Argv } from 'yargs';
import type { CliIo } from './io.js';
import { reportError } from './output.js';
import { runPrint } from './print.js';
import { type Args, runVerb } from './verbs.js';
import { VERSION } from './version.js';

const EXIT_CODES_HELP = `Exit codes:
  0    success (wait: the turn completed)
  1    error (worker not found, spawn failed, send not submitted, tmux failure; -p: model error)
  2    usage error (bad flag, name, duration, provider, cwd, unresolved --env NAME)
  122  wait: provider-error     123  wait: idle          124  wait: timeout
  125  wait: dead               126  wait: needs-input (also: spawn found a sign-in screen)
  127  wait: guardrail-halted   130  aborted (SIGINT)`;

function spawnOptions(y: Argv): Argv {
  return y
    .option('provider', { type: 'string', describe: 'Agent CLI: claude, codex or gemini', default: undefined })
    .option('cwd', { type: 'string', describe: "Worker's working directory (must exist; default: here)" })
    .option('model', { type: 'string', describe: "Model, passed to the CLI's --model" })
    .option('env', { type: 'string', nargs: 1, describe: 'NAME (value taken from your env, never put on argv) or NAME=VALUE; repeatable' })
    .option('permission-mode', { type: 'string', describe: "The CLI's permission mode (claude: default, acceptEdits, plan, auto, dontAsk, bypassPermissions)" })
    .option('allowed-tools', { type: 'string', describe: "Tools allowed without asking, in the CLI's syntax (claude: 'Bash(git:*) Edit')" })
    .option('append-system-prompt', { type: 'string', describe: 'Text appended to the system prompt (claude)' })
    .option('unattended', { type: 'boolean', describe: "Never stop for permission prompts (the CLI's own bypass mode)" });
}

function guardOptions(y: Argv): Argv {
  return y
    .option('check', {
      type: 'string',
      describe:
        'Guardrail: shell command run in the worker cwd after the turn (answer on stdin and in $UMBEL_ANSWER_FILE); exit 0 accepts, otherwise its output is fed back and the turn retried',
    })
    .option('schema', { type: 'string', describe: 'Guardrail: JSON Schema file the answer (JSON, a ```json block is fine) must match' })
    .option('retries', { type: 'number', describe: 'Guardrail: feedback rounds before halting (default 2)' })
    .option('check-timeout', { type: 'string', describe: 'Guardrail: time limit of one check run (default 5m)' });
}

function parser(argv: readonly string[]): Argv {
  return yargs([...argv])
    .scriptName('umbel')
    .usage(
      `umbel — drive Claude Code, Codex and Gemini CLI through their interactive TUIs.

Usage:
  umbel -p [PROMPT] [options]        one prompt, printed like \`claude -p\`
  umbel <verb> [args] [options]      supervise workers (spawn → send → wait → read → kill)`,
    )
    .command('$0 [prompt]', false, (y) =>
      guardOptions(spawnOptions(y))
        .positional('prompt', { type: 'string', describe: 'The prompt (stdin is appended when piped)' })
        .option('output-format', { type: 'string', describe: 'text, json or stream-json (like claude -p)' })
        .option('verbose', { type: 'boolean', describe: 'Required with --output-format stream-json (as in claude -p)' })
        .option('timeout', { type: 'string', describe: 'Give up after this long (default 30m): exit 124' })
        .option('name', { type: 'string', describe: 'Use (or create) this named worker and keep it for later turns' })
        .option('resume', { type: 'string', describe: 'Send into this existing worker' }),
    )
    .command('spawn [name]', 'Start a worker and wait until its CLI is ready; prints its name', (y) =>
      spawnOptions(y)
        .positional('name', { type: 'string', describe: 'Worker name (a-z, 0-9, -); anonymous when omitted' })
        .option('name', { type: 'string', describe: 'Worker name (same as the positional)' })
        .option('startup-timeout', { type: 'string', describe: 'How long to wait for the ready prompt (default 60s)' })
        .option('json', { type: 'boolean', describe: 'Print the worker status as JSON' }),
    )
    .command('send <name> [prompt]', 'Deliver a prompt (exactly as given) and confirm it was submitted; prints the turn number. Does not wait.', (y) =>
      y
        .positional('name', { type: 'string' })
        .positional('prompt', { type: 'string', describe: "The prompt; '-' or omitted with piped stdin reads stdin" })
        .option('json', { type: 'boolean' }),
    )
    .command('wait <name>', 'Wait for a turn to end; prints the answer (the exit code tells the outcome)', (y) =>
      guardOptions(
        y
          .positional('name', { type: 'string' })
          .option('turn', { type: 'number', describe: 'Turn to wait for (default: the latest sent)' })
          .option('timeout', { type: 'string', describe: 'Give up after this long (default 30m)' })
          .option('idle-timeout', { type: 'string', describe: 'Return idle (123) when nothing moves for this long' })
          .option('json', { type: 'boolean', describe: 'Print the whole Outcome as JSON' }),
      ),
    )
    .command('keys <name> <keys..>', "Press keys in the worker's terminal (Enter, Escape, Up, Down, Tab, C-c, 1, …), e.g. to answer a permission prompt", (y) =>
      y.positional('name', { type: 'string' }).positional('keys', { type: 'string', array: true }).option('json', { type: 'boolean' }),
    )
    .command('status [name]', 'Show one worker, or all of them', (y) => y.positional('name', { type: 'string' }).option('json', { type: 'boolean' }))
    .command('ls', 'List every worker (tombstones included)', (y) => y.option('json', { type: 'boolean' }))
    .command('read <name>', 'Print the answer of a turn, from the transcript', (y) =>
      y
        .positional('name', { type: 'string' })
        .option('turn', { type: 'number', describe: 'Turn (default: the latest completed)' })
        .option('section', { type: 'string', describe: "Only this markdown section: '## Findings' (that level) or 'Findings' (any level)" })
        .option('head', { type: 'number', describe: 'Only the first ~N tokens (4 characters each), cut at a line boundary' })
        .option('tail', { type: 'number', describe: 'Only the last ~N tokens; with --head, both ends' })
        .option('json', { type: 'boolean' }),
    )
    .command('kill <name>', 'End a worker; its state stays as a tombstone unless --purge', (y) =>
      y.positional('name', { type: 'string' }).option('purge', { type: 'boolean', describe: 'Also remove its state' }).option('json', { type: 'boolean' }),
    )
    .command('prune', 'Remove dead workers (and orphan sessions)', (y) =>
      y.option('older-than', { type: 'string', describe: 'Only those dead for at least this long' }).option('json', { type: 'boolean' }),
    )
    .command('attach <name>', "Watch a worker's terminal (detach with Ctrl-b d)", (y) => y.positional('name', { type: 'string' }))
    .command('capture <name>', "Print the worker's screen (for people; answers come from `read`)", (y) =>
      y.positional('name', { type: 'string' }).option('lines', { type: 'number', describe: 'Lines (default 100)' }).option('json', { type: 'boolean' }),
    )
    .command('logs <name>', "Print the worker's event log", (y) =>
      y
        .positional('name', { type: 'string' })
        .option('follow', { alias: 'f', type: 'boolean', describe: 'Keep printing new events until Ctrl-C' })
        .option('json', { type: 'boolean' }),
    )
    .command('run [file]', 'Run a workflow YAML', (y) =>
      y
        .positional('file', { type: 'string' })
        .option('var', { type: 'string', nargs: 1, describe: 'K=V for {{ vars.K }}; repeatable' })
        .option('json', { type: 'boolean', describe: 'Print one summary object' })
        .option('keep-workers', { type: 'boolean', describe: "Don't kill the run's workers at the end" })
        .option('resume', { type: 'string', describe: 'Continue a failed run from its first unfinished step' }),
    )
    .command('mcp', 'Serve the supervisor verbs as MCP tools on stdio')
    .option('print', { alias: 'p', type: 'boolean', describe: 'Print mode: run one prompt like `claude -p`' })
    .version('version', 'Show the version', `umbel ${VERSION}`)
    .help('help')
    .alias('help', 'h')
    .epilogue(
      `${EXIT_CODES_HELP}\n\nEnvironment: UMBEL_HOME (state root), UMBEL_TMUX_SOCKET, UMBEL_CLAUDE_BIN, UMBEL_CODEX_BIN, UMBEL_GEMINI_BIN.\nDocs: docs/cli.md`,
    )
    .strict()
    .exitProcess(false)
    .wrap(Math.min(110, process.stdout.columns || 100));
}

/** Parse argv; yargs prints nothing itself (help/version text comes back as `output`). */
function parseArgs(argv: readonly string[]): Promise<{ args?: Args; output: string; error?: Error }> {
  return new Promise((resolve) => {
    parser(argv).parse([...argv], {}, (error: Error | undefined, args: unknown, output: string) => {
      resolve({ args: args as Args, output, error: error ?? undefined });
    });
  });
}

/** Run the CLI. Returns the exit code. */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv.length === 0) {
    const { output } = await parseArgs(['--help']);
    io.stderr.write(`${output}\n`);
    return 2;
  }
  const parsed = await parseArgs(argv);
  const json = argv.includes('--json');
  if (parsed.error) {
    const message = parsed.error.message.replace(/^Unknown arguments?: /, 'unknown option or verb: ');
    return reportError(new UsageError(message, { hint: "run 'umbel --help' (or 'umbel <verb> --help')" }), io, json);
  }
  if (parsed.output) {
    io.stdout.write(`${parsed.output}\n`);
    return 0;
  }
  const args = parsed.args as Args;
  const verb = args._[0] === undefined ? undefined : String(args._[0]);
  const controller = new AbortController();
  const off = io.onSignal((signal) => controller.abort(signal));
  try {
    if (verb === undefined) {
      if (args.print !== true) {
        return reportError(
          new UsageError(`'${String(args.prompt)}' is not a verb; to run a prompt use umbel -p "PROMPT"`, { hint: "run 'umbel --help'" }),
          io,
          json,
        );
      }
      return await runPrint(args, io, await io.createEngine(io.env), controller.signal);
    }
    if (args.print === true) return reportError(new UsageError(`-p cannot be combined with the verb '${verb}'`), io, json);
    if (verb === 'mcp') {
      const { runMcpServer } = await import('@umbel/mcp');
      await runMcpServer({ engine: await io.createEngine(io.env) });
      return 0;
    }
    if (verb === 'run') {
      const { runWorkflowCommand } = await import('@umbel/workflow');
      const vars = args.var === undefined ? [] : (Array.isArray(args.var) ? args.var : [args.var]).map(String);
      return await runWorkflowCommand({
        engine: await io.createEngine(io.env),
        file: args.file === undefined ? undefined : String(args.file),
        resume: args.resume === undefined ? undefined : String(args.resume),
        vars,
        env: io.env,
        json,
        keepWorkers: args.keepWorkers === true,
        isTTY: io.stderr.isTTY === true,
        stdout: io.stdout,
        stderr: io.stderr,
        signal: controller.signal,
      });
    }
    return await runVerb(verb, args, io, await io.createEngine(io.env), controller.signal);
  } catch (error) {
    return reportError(error, io, json);
  } finally {
    off();
  }
}
