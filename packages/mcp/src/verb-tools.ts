/**
 * The supervisor verbs as MCP tools, in groups: driving a worker (spawn, send, wait, keys), reading
 * one (status, list, read, actions, diff), ending one and its evidence (kill, capture, logs, prune),
 * help and doctor. A verb's tool takes its name, input and (unless this face wraps it) output from
 * core's verb table (VERBS), and is registered through ./register.ts; long answers come back
 * shortened with a hint to read them whole.
 */
import { shapeAnswer, type Outcome, type Umbel, VERBS, type WaitProgress } from '@umbel/core';
import { helpFor } from './help.js';
import { progressNotifier, secondsSince } from './progress.js';
import { forMcp } from './mcp-text.js';
import { type PoolToolContext, SpawnInputSchema, spawnFromInput } from './pool-tools.js';
import { idList, type ProviderSummary, spawnInputSchema } from './provider-text.js';
import type { Extra, RegisterTool } from './register.js';
import {
  HelpInputSchema,
  HelpOutputSchema,
  ListOutputSchema,
  LogsOutputSchema,
  MCP_WAIT_TIMEOUT_MS,
  mcpWaitOptionsSchema,
  NEXT_STEP,
  WaitOutputSchema,
} from './schemas.js';

/** What the verb tools need besides the engine. */
export interface VerbToolContext {
  readonly providers: readonly ProviderSummary[];
  readonly pools: PoolToolContext;
  readonly waitTimeoutMs?: number;
  readonly progressIntervalMs: number;
  readonly log: (line: string) => void;
}

/** Register every supervisor verb as a tool, in the order of TOOL_NAMES. */
export function registerVerbTools(tool: RegisterTool, engine: Umbel, context: VerbToolContext): void {
  registerDriveTools(tool, engine, context);
  registerReadTools(tool, engine);
  registerEndTools(tool, engine);
  registerHelpTools(tool, engine, context);
}

/** spawn, send, wait, keys. */
function registerDriveTools(tool: RegisterTool, engine: Umbel, context: VerbToolContext): void {
  const { providers, pools, log, progressIntervalMs } = context;
  tool(
    VERBS.spawn.mcp.tool,
    {
      title: 'Spawn a worker',
      description: `Start an interactive agent CLI (${idList(providers)}) as a named worker and wait until it is ready for a prompt. Returns its status. env values are literals or {"fromEnv": "NAME"} (read from this server's environment; an unset variable is an error, nothing is started).`,
      input: spawnInputSchema(providers).extend({ pool: SpawnInputSchema.shape.pool }).strict(),
      output: VERBS.spawn.result,
    },
    (input, extra) => spawnFromInput(engine, input, extra.signal, pools),
  );

  tool(
    VERBS.send.mcp.tool,
    {
      title: 'Send a prompt',
      description:
        "Type a prompt into a worker and submit it. Does NOT wait for the answer: it returns the turn number at once; follow with umbel_wait. A prompt starting with / or ! reaches the model as text; to run the CLI's own command on purpose (/compact, /clear, !git status) pass command: true — then modelTurn says whether there is a turn to wait for.",
      input: VERBS.send.options,
      output: VERBS.send.result,
    },
    (input, extra) => engine.send(input, { signal: extra.signal }),
  );

  const waitInput = mcpWaitOptionsSchema(context.waitTimeoutMs ?? MCP_WAIT_TIMEOUT_MS);
  tool(
    VERBS.wait.mcp.tool,
    {
      title: 'Wait for a turn',
      description:
        "Wait until a turn ends and return its outcome: reason completed | needs-input | provider-error | rate-limited (resetsAt when known) | auth-failed | idle | timeout | dead | aborted | guardrail-halted | unknown | host-unreachable (until file/pattern: file | pattern), with result (the answer) when completed and a `next` hint. A timeout or a dead worker is a normal result, not an error: on timeout do what next says. An answer over ~2000 tokens comes back as head and tail (elidedTokens; umbel_read with full=true has it whole). until: file (file appears, relative to the worker cwd) or pattern (regex on the worker's screen) end the wait on their own. Sends progress notifications when the request carries a progressToken. Optional guardrail: check/schema/retries (timeout bounds all attempts).",
      input: waitInput,
      output: WaitOutputSchema,
      readOnly: true,
    },
    async (input, extra) => {
      const progress = progressReporter(extra, log);
      const heartbeat = progress ? setInterval(() => progress.beat(), progressIntervalMs) : undefined;
      heartbeat?.unref();
      try {
        const { full, ...options } = input;
        const outcome = await engine.wait(options, { signal: extra.signal, ...(progress ? { onProgress: (p) => progress.report(p) } : {}) });
        return waitResult(outcome, options, full === true);
      } finally {
        if (heartbeat) clearInterval(heartbeat);
      }
    },
  );

  tool(
    VERBS.keys.mcp.tool,
    {
      title: 'Press keys',
      description:
        'Press keys in a worker\'s terminal, e.g. to answer a permission dialog after a needs-input outcome (["1"] or ["Enter"] usually approves, ["Escape"] declines/interrupts). Inspect with umbel_capture first; then umbel_wait again.',
      input: VERBS.keys.options,
      output: VERBS.keys.result,
    },
    (input) => engine.keys(input),
  );
}

/** status, list, read, actions, diff. */
function registerReadTools(tool: RegisterTool, engine: Umbel): void {
  tool(
    VERBS.status.mcp.tool,
    {
      title: 'Worker status',
      description: 'The derived state of one worker: starting, ready, busy, needs-input, exited, dead or killed, with its turn counters.',
      input: VERBS.status.options,
      output: VERBS.status.result,
      readOnly: true,
    },
    (input) => engine.status(input),
  );

  tool(
    VERBS.list.mcp.tool,
    {
      title: 'List workers',
      description: 'The status of every worker under this umbel home (live ones and tombstones).',
      input: VERBS.list.options,
      output: ListOutputSchema,
      readOnly: true,
    },
    async (input) => ({ workers: await engine.list(input) }),
  );

  tool(
    VERBS.read.mcp.tool,
    {
      title: 'Read an answer',
      description:
        "The final answer of a turn (default: the latest completed), from the CLI's transcript. An answer over ~2000 tokens comes back as its head and tail with the middle elided (elidedTokens says how much); ask for full=true, a section ('## Findings'), head or tail (~tokens) instead.",
      input: VERBS.read.options,
      output: VERBS.read.result,
      readOnly: true,
    },
    async (input) => {
      const read = await engine.read(input);
      if (input.full === true || input.section !== undefined || input.head !== undefined || input.tail !== undefined) return read;
      const shaped = shapeAnswer(read.result, { auto: true, hint: 'call umbel_read with full=true to see all' });
      return shaped.elidedTokens ? { ...read, result: shaped.text, elidedTokens: shaped.elidedTokens } : read;
    },
  );

  tool(
    VERBS.actions.mcp.tool,
    {
      title: 'What a worker did',
      description:
        "What a worker did in a turn (default: the latest sent; turn: 'all' for every turn), from its transcript: toolsUsed (name → calls), filesRead / filesEdited / filesWritten (absolute, deduplicated, first-seen order), shellCommands, errors (failed tool calls), finalMessage, turnCount. complete is false while a turn still runs.",
      input: VERBS.actions.options,
      output: VERBS.actions.result,
      readOnly: true,
    },
    async (input) => {
      const actions = await engine.actions(input);
      if (actions.finalMessage === undefined) return actions;
      const last = actions.turns[actions.turns.length - 1];
      const shaped = shapeAnswer(actions.finalMessage, { auto: true, hint: readHint(actions.worker, last) });
      return shaped.elidedTokens ? { ...actions, finalMessage: shaped.text } : actions;
    },
  );

  tool(
    VERBS.diff.mcp.tool,
    {
      title: 'What a turn changed',
      description:
        "The file changes a turn made in the worker's cwd (default: the latest sent): in a git work tree a unified diff against a snapshot taken when the turn was sent (files + patch; the user's index and stash are never touched); elsewhere (method transcript) the files the transcript says were written, with note saying why. text: true diffs two turns' answers instead (from/to: turn numbers, or -1, -2 … back from the latest completed). A patch over ~2000 tokens comes back as head and tail unless full.",
      input: VERBS.diff.options,
      output: VERBS.diff.result,
      readOnly: true,
    },
    async (input) => {
      const diff = await engine.diff(input);
      if (input.full === true) return diff;
      const shaped = shapeAnswer(diff.patch, { auto: true, hint: 'call umbel_diff with full=true to see all' });
      return shaped.elidedTokens ? { ...diff, patch: shaped.text, elidedTokens: shaped.elidedTokens } : diff;
    },
  );
}

/** kill, then the evidence of a worker (capture, logs) and the removal of dead ones (prune). */
function registerEndTools(tool: RegisterTool, engine: Umbel): void {
  tool(
    VERBS.kill.mcp.tool,
    {
      title: 'Kill a worker',
      description: "End a worker's session. Its state stays as a tombstone for read/status/logs unless purge is true.",
      input: VERBS.kill.options,
      output: VERBS.kill.result,
      destructive: true,
    },
    (input) => engine.kill(input),
  );

  tool(
    VERBS.revive.mcp.tool,
    {
      title: 'Revive a worker',
      description:
        "Start a dead or killed (not purged) worker again in its cwd with its provider, options and env names (values read again from this server's environment), resuming its CLI's conversation: the next turn sees the earlier ones, turn numbers go on. Refused for a provider that cannot resume (never a silent fresh conversation) and for a live worker. Returns its status.",
      input: VERBS.revive.options,
      output: VERBS.revive.result,
    },
    (input, extra) => engine.revive(input, { signal: extra.signal }),
  );

  tool(
    VERBS.capture.mcp.tool,
    {
      title: 'Capture the screen',
      description:
        "The worker's current terminal screen (or the last one saved when it died), for inspecting a needs-input, idle or dead outcome. Evidence only: read answers with umbel_read.",
      input: VERBS.capture.options,
      output: VERBS.capture.result,
      readOnly: true,
    },
    (input) => engine.capture(input),
  );

  tool(
    VERBS.logs.mcp.tool,
    {
      title: 'Worker event log',
      description: "The worker's event history (session, prompt, stop, notify, exit, dead …) with times; the first place to look after a dead outcome.",
      input: VERBS.logs.options,
      output: LogsOutputSchema,
      readOnly: true,
    },
    async (input) => ({ worker: input.name, entries: await engine.logs(input) }),
  );

  tool(
    VERBS.prune.mcp.tool,
    {
      title: 'Prune dead workers',
      description: 'Remove the state of dead/killed workers (optionally only those dead for at least olderThan). Live workers are kept.',
      input: VERBS.prune.options,
      output: VERBS.prune.result,
      destructive: true,
    },
    (input) => engine.prune(input),
  );
}

/** help and doctor. */
function registerHelpTools(tool: RegisterTool, engine: Umbel, context: VerbToolContext): void {
  const { providers } = context;
  tool(
    'umbel_help',
    {
      title: 'Help',
      description: `How to use umbel, as markdown: topic lifecycle (spawn → send → wait → read → kill and what to do after each outcome), workflow (umbel run workflow.yaml) or providers (${providers.map((p) => p.id).join(', ')}: what each is and the env each needs). No topic: the index.`,
      input: HelpInputSchema,
      output: HelpOutputSchema,
      readOnly: true,
    },
    async (input) => helpFor(input.topic, providers),
  );

  tool(
    VERBS.doctor.mcp.tool,
    {
      title: 'Check the installed CLIs',
      description: `Check that the installed agent CLIs (${idList(providers)}) still behave as umbel expects: for each provider (default: every one whose binary is found) a checklist of pass/fail/skip items with one fix hint per failure — the binary and its version against the verified ones (newer is said, not failed), signed in, billing (subscription, api, or unknown with the reason), custom endpoint, and a scratch worker (private temp cwd and state root, torn down after) that must reach its prompt and fire umbel's session hook with a readable payload. No model call unless turn: true, which makes ONE small model request on the user's account. ok is true when every checked provider passes.`,
      input: VERBS.doctor.options,
      output: VERBS.doctor.result,
    },
    (input, extra) => engine.doctor(input, { signal: extra.signal }),
  );
}

/** How to get a whole answer back. */
function readHint(worker: string, turn: number | undefined): string {
  return `call umbel_read with ${JSON.stringify({ name: worker, ...(turn ? { turn } : {}), full: true })} to see all`;
}

/** What to call after a wait, with the input that goes on from here. */
function nextFor(outcome: Outcome, options: { name: string; retries?: number; until?: string; file?: string; pattern?: string }): string {
  if (outcome.reason === 'rate-limited' && outcome.resetsAt) {
    return `The account hit a rate or usage limit (HTTP 429); the worker is alive. Retry with umbel_send after ${outcome.resetsAt} (resetsAt); not before.`;
  }
  if (outcome.reason !== 'timeout') return NEXT_STEP[outcome.reason];
  const again: Record<string, unknown> = { name: options.name, turn: outcome.turn };
  if (options.until && options.until !== 'stop') Object.assign(again, { until: options.until, file: options.file, pattern: options.pattern });
  const attempts = outcome.attempts?.length ?? 0;
  if (attempts > 0) {
    again.retries = Math.max(0, (options.retries ?? 2) - (attempts - 1));
    return `Still running (guardrail attempt ${attempts}, turn ${outcome.turn}): call umbel_wait again with ${JSON.stringify(again)} plus the same check/schema to go on.`;
  }
  return `Still working: call umbel_wait again with ${JSON.stringify(again)} to keep waiting (the worker keeps going).`;
}

/** The wait's result for an MCP client: long answers shortened (unless full), hints in MCP terms. */
export function waitResult(outcome: Outcome, options: Parameters<typeof nextFor>[1], full: boolean) {
  const hint = readHint(outcome.worker, outcome.turn);
  const shorten = (text: string) => (full ? { text } : shapeAnswer(text, { auto: true, hint }));
  const result = outcome.result === undefined ? undefined : shorten(outcome.result);
  const attempts = outcome.attempts?.map((a) => {
    if (a.answer === undefined) return a;
    const shaped = full ? { text: a.answer } : shapeAnswer(a.answer, { auto: true, hint: readHint(outcome.worker, a.turn) });
    return { ...a, answer: shaped.text };
  });
  return {
    ...outcome,
    ...(result ? { result: result.text } : {}),
    ...(result && 'elidedTokens' in result && result.elidedTokens ? { elidedTokens: result.elidedTokens } : {}),
    ...(attempts ? { attempts } : {}),
    ...(outcome.message !== undefined ? { message: forMcp(outcome.message) } : {}),
    next: nextFor(outcome, options),
  };
}

/** Progress notifications for one wait, or undefined when the client did not ask for them. */
function progressReporter(extra: Extra, log: (line: string) => void): { beat(): void; report(progress: WaitProgress): void } | undefined {
  const notifier = progressNotifier(extra, log);
  if (!notifier) return undefined;
  const started = Date.now();
  let last: WaitProgress | undefined;
  const describe = (elapsed: string): string => {
    const head = last ? `${last.worker} turn ${last.turn}` : 'waiting';
    return `${head}: ${elapsed}${last?.activity ? `, ${last.activity}` : ''}`;
  };
  return {
    beat: () => notifier.send(describe(secondsSince(started))),
    report: (progress) => {
      last = progress;
      notifier.send(describe(`${Math.round(progress.elapsedMs / 1000)}s`));
    },
  };
}
