/**
 * `run(argv, io)`: parse with yargs, dispatch, map errors once to exit codes. The only
 * `process.exit` lives in ./cli.ts.
 */
import { UsageError } from '@umbel/core';
import { type Args, maxWorkersFromArgs } from './args.js';
import { checkBooleanValues, checkRepeats, checkVerbWord, missingArgument, type Protected, protectDashDash, unknownVerb } from './argv.js';
import { type CliIo, type Interrupt, interruptExitCode } from './io.js';
import { reportError } from './output.js';
import { type ProviderHelp, parser } from './parser.js';
import { runDoctor } from './doctor.js';
import { runPool } from './pool.js';
import { HURRY_MS, runPrint } from './print.js';
import { providerHelp, runProviders } from './providers.js';
import { runVerb } from './verbs.js';
import { runWorkflowCommand } from './workflow-command.js';
import { retiredOptionHint, warnRetiredEnv } from './retired.js';

interface Parsed {
  args?: Args;
  output: string;
  error?: Error;
}

/** Parse argv; yargs prints nothing itself (help/version text comes back as `output`). */
function parseArgs(words: Protected, help: ProviderHelp | undefined): Promise<Parsed> {
  return new Promise((resolve) => {
    parser(words.argv, help).parse([...words.argv], {}, (error: Error | undefined, args: unknown, output: string) => {
      resolve({ args: words.restore(args as Args), output, error: error ? new Error(words.restore(error.message)) : undefined });
    });
  });
}

/** Parse and apply the argv rules; throws a UsageError for bad input. Help/version: `output`. */
async function parse(argv: readonly string[], io: CliIo): Promise<{ args?: Args; output?: string }> {
  const words = protectDashDash(argv);
  checkBooleanValues(words.options);
  checkVerbWord(words.options);
  // Only a help text names the loaded providers: load them for it (never tmux), not for every parse.
  const wantsHelp = words.options.some((w) => w === '--help' || w === '-h' || w.startsWith('--help='));
  const parsed = await parseArgs(words, wantsHelp ? await providerHelp(io) : undefined);
  if (parsed.error) {
    const verb = words.options[0] ?? '';
    const missing = missingArgument(verb, parsed.error.message);
    if (missing) throw missing;
    const message = parsed.error.message.replace(/^Unknown arguments?: /, 'unknown option or argument: ');
    throw new UsageError(message, { hint: retiredOptionHint(parsed.error.message) ?? "run 'umbel --help' (or 'umbel <verb> --help')" });
  }
  if (parsed.output) return { output: parsed.output };
  const args = parsed.args as Args;
  checkRepeats(args);
  return { args };
}

/** Run the CLI. Returns the exit code. */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv.length === 0) {
    const { output } = await parse(['--help'], io);
    io.stderr.write(`${output}\n`);
    return 2;
  }
  warnRetiredEnv(io);
  const json = protectDashDash(argv).options.includes('--json');
  let parsed: { args?: Args; output?: string };
  try {
    parsed = await parse(argv, io);
  } catch (error) {
    return reportError(error, io, json);
  }
  if (parsed.output !== undefined) {
    io.stdout.write(`${parsed.output}\n`);
    return 0;
  }
  const args = parsed.args as Args;
  // The first interrupt aborts the command; a later signal hurries its cleanup.
  const controller = new AbortController();
  const hurry = new AbortController();
  const off = io.onSignal((signal: Interrupt) => {
    if (!controller.signal.aborted) controller.abort(signal);
    else if (signal !== 'SIGPIPE' && !hurry.signal.aborted) hurry.abort(signal);
  });
  try {
    return await dispatch(args, io, json, controller.signal, hurry.signal);
  } catch (error) {
    return reportError(error, io, json);
  } finally {
    off();
  }
}

async function dispatch(args: Args, io: CliIo, json: boolean, signal: AbortSignal, hurry: AbortSignal): Promise<number> {
  const verb = args._[0] === undefined ? undefined : String(args._[0]);
  if (verb === undefined) {
    if (args.print !== true) {
      if (args.prompt === undefined) throw new UsageError('no verb given: umbel <verb> …, or umbel -p "PROMPT"', { hint: "run 'umbel --help'" });
      throw unknownVerb(String(args.prompt));
    }
    return await runPrint(args, io, () => io.createEngine(io.env), signal, hurry);
  }
  if (args.print === true) throw new UsageError(`-p cannot be combined with the verb '${verb}'`, { hint: 'umbel -p "PROMPT", or umbel <verb> …' });
  return unlessHurried(runCommand(verb, args, io, json, signal), hurry, signal);
}

async function runCommand(verb: string, args: Args, io: CliIo, json: boolean, signal: AbortSignal): Promise<number> {
  if (verb === 'providers') return await runProviders(io, json);
  if (verb === 'doctor') return await runDoctor(args, io, await io.createEngine(io.env), signal);
  if (verb === 'mcp') {
    const { runMcpServer } = await (await import('@umbel/runtime')).importModule<typeof import('@umbel/mcp')>('@umbel/mcp');
    await runMcpServer({ engine: await io.createEngine(io.env) });
    return 0;
  }
  if (verb === 'top') return await runTopCommand(io, signal);
  if (verb === 'run') {
    const workflow = await (await import('@umbel/runtime')).importModule<typeof import('@umbel/workflow')>('@umbel/workflow');
    const vars = args.var === undefined ? [] : (Array.isArray(args.var) ? args.var : [args.var]).map(String);
    return await runWorkflowCommand(workflow, {
      engine: await io.createEngine(io.env),
      file: args.file === undefined ? undefined : String(args.file),
      resume: args.resume === undefined ? undefined : String(args.resume),
      vars,
      env: io.env,
      json,
      keepWorkers: args.keepWorkers === true,
      ...maxWorkersFromArgs(args),
      isTTY: io.stderr.isTTY === true,
      stdout: io.stdout,
      stderr: io.stderr,
      signal,
    });
  }
  if (verb === 'pool') return await runPool(args, io, await io.createEngine(io.env), signal);
  return await runVerb(verb, args, io, await io.createEngine(io.env), signal);
}

/** `umbel top`: @umbel/top (ink, React) is loaded on demand, never bundled into the bin. */
async function runTopCommand(io: CliIo, signal: AbortSignal): Promise<number> {
  if (io.stdout.isTTY !== true || !process.stdin.isTTY)
    throw new UsageError('umbel top needs a terminal', { hint: "for scripts: 'umbel events --follow', 'umbel ls'" });
  const { runTop } = await (await import('@umbel/runtime')).importModule<typeof import('@umbel/top')>('@umbel/top');
  const code = await runTop({ engine: await io.createEngine(io.env), stdin: process.stdin, stdout: process.stdout, signal });
  return signal.aborted ? interruptExitCode(signal) : code;
}

/** `work`'s code; after a second signal, what it reaches within HURRY_MS, else the interrupt's code. */
async function unlessHurried(work: Promise<number>, hurry: AbortSignal, signal: AbortSignal): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  let go: (() => void) | undefined;
  const hurried = new Promise<number>((resolve) => {
    go = () => {
      timer = setTimeout(() => resolve(interruptExitCode(signal)), HURRY_MS);
    };
    if (hurry.aborted) go();
    else hurry.addEventListener('abort', go, { once: true });
  });
  try {
    return await Promise.race([work, hurried]);
  } finally {
    clearTimeout(timer);
    if (go) hurry.removeEventListener('abort', go);
  }
}
