/**
 * The MCP face: umbel's supervisor verbs as MCP tools over an engine passed in by value.
 *
 * - Inputs are @umbel/core's zod schemas (listed as JSON Schema by the SDK) and validated here,
 *   once, so bad input becomes the same typed UsageError (`UMBEL_USAGE`) as everywhere else.
 * - Every success carries `structuredContent` (validated against the tool's `outputSchema`) plus a
 *   JSON text copy; every failure is an `isError: true` result whose text is
 *   `{"error":{"code","name","message","hint?"}}` — never a protocol error.
 * - `umbel_wait` returns the Outcome as data (timeout, dead … are normal results), reports
 *   progress when the client passed a progressToken, and honours cancellation (outcome
 *   `aborted`; the worker keeps running).
 */
import { createRequire } from 'node:module';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CaptureOptionsSchema,
  DoctorOptionsSchema,
  DoctorReportSchema,
  KeysOptionsSchema,
  KillOptionsSchema,
  PruneOptionsSchema,
  ReadOptionsSchema,
  SendOptionsSchema,
  shapeAnswer,
  type Outcome,
  type Umbel,
  UmbelError,
  UmbelErrorCode,
  usageFromZod,
  type WaitProgress,
  WorkerStatusSchema,
} from '@umbel/core';
import type * as z from 'zod';
import { helpFor } from './help.js';
import { idList, providerSummaries, spawnInputSchema } from './provider-text.js';
import { POOL_TOOL_NAMES, type PoolToolContext, registerPoolTools, SpawnInputSchema, spawnFromInput } from './pool-tools.js';
import { SERVER_INSTRUCTIONS } from './instructions.js';
import { forMcp } from './mcp-text.js';
import {
  ActionsInputSchema,
  ActionsOutputSchema,
  CaptureOutputSchema,
  DiffInputSchema,
  DiffOutputSchema,
  EmptyInputSchema,
  HelpInputSchema,
  HelpOutputSchema,
  KeysOutputSchema,
  KillOutputSchema,
  ListOutputSchema,
  LogsOutputSchema,
  MCP_WAIT_TIMEOUT_MS,
  mcpWaitOptionsSchema,
  NEXT_STEP,
  PruneOutputSchema,
  ReadOutputSchema,
  SendOutputSchema,
  WaitOutputSchema,
  WorkerRefSchema,
} from './schemas.js';

/** Names of the tools, in registration order. `umbel_`-prefixed snake case, as upstream had them. */
export const TOOL_NAMES = [
  'umbel_spawn',
  'umbel_send',
  'umbel_wait',
  'umbel_keys',
  'umbel_status',
  'umbel_list',
  'umbel_read',
  'umbel_actions',
  'umbel_diff',
  'umbel_kill',
  'umbel_capture',
  'umbel_logs',
  'umbel_prune',
  'umbel_help',
  'umbel_doctor',
  ...POOL_TOOL_NAMES,
] as const;
/** One tool name. */
export type ToolName = (typeof TOOL_NAMES)[number];

/** Settings of `createMcpServer`. */
export interface McpServerSettings {
  /** Default `timeout` of `umbel_wait` in ms (default {@link MCP_WAIT_TIMEOUT_MS}, 50 s). */
  readonly waitTimeoutMs?: number;
  /** Interval of heartbeat progress notifications during `umbel_wait`, in ms (default 5000). */
  readonly progressIntervalMs?: number;
  /** Where diagnostics go (default: a line on stderr). Never stdout: stdout is the protocol channel. */
  readonly log?: (line: string) => void;
  /** Server name in `initialize` (default `umbel`). */
  readonly name?: string;
}

/** Default interval of heartbeat progress notifications while a wait is pending. */
export const PROGRESS_INTERVAL_MS = 5_000;

/** Version of this package (from its package.json; src/ and dist/ both sit one level below it). */
export const MCP_PACKAGE_VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
type AnyObjectSchema = z.ZodObject;
/** How a tool is registered (what ./pool-tools.ts is handed). */
export type RegisterTool = <I extends AnyObjectSchema, O extends AnyObjectSchema>(
  name: ToolName,
  config: { title: string; description: string; input: I; output: O; readOnly?: boolean; destructive?: boolean },
  run: (input: z.output<I>, extra: Extra) => Promise<DeepReadonly<z.input<O>>>,
) => void;
type DeepReadonly<T> = T extends readonly (infer U)[] ? readonly DeepReadonly<U>[] : T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> } : T;

/**
 * Create an MCP server exposing the supervisor verbs of `engine` as tools. Connect it to a
 * transport yourself (`await server.connect(transport)`), or use `runMcpServer` for stdio.
 */
export function createMcpServer(engine: Umbel, settings: McpServerSettings = {}): McpServer {
  const log = settings.log ?? ((line: string) => process.stderr.write(`umbel-mcp: ${line}\n`));
  const progressIntervalMs = settings.progressIntervalMs ?? PROGRESS_INTERVAL_MS;
  const providers = providerSummaries(engine);
  const server = new McpServer(
    { name: settings.name ?? 'umbel', version: MCP_PACKAGE_VERSION },
    { capabilities: { tools: {} }, instructions: SERVER_INSTRUCTIONS },
  );

  // The SDK validates tool arguments itself and reports a failure as untyped text. Validation is
  // done in `tool()` below instead, so bad input carries the same code (UMBEL_USAGE) and issue
  // list as on the CLI. The schemas are still registered, so `tools/list` shows them.
  (server as unknown as { validateToolInput: (tool: unknown, args: unknown) => Promise<unknown> }).validateToolInput = async (_tool, args) => args ?? {};

  // In-flight calls, so a server whose client closed its input can still answer them (a piped
  // `printf … | umbel-mcp` must not lose its answers) before it shuts down: see drainMcpServer().
  const closing = new AbortController();
  const inFlight = new Set<Promise<unknown>>();
  drains.set(server, async (graceMs: number) => {
    closing.abort();
    const deadline = Date.now() + graceMs;
    let timer: NodeJS.Timeout | undefined;
    // Not unref'd: the drain itself keeps the process alive until it is done.
    const pause = (ms: number) =>
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.max(0, ms));
      });
    // Requests read just before stdin ended may not have reached their handler yet: let them
    // start, then wait until nothing is in flight (or the grace runs out).
    await pause(50);
    while (inFlight.size > 0 && Date.now() < deadline) {
      await Promise.race([Promise.allSettled([...inFlight]), pause(deadline - Date.now())]);
      clearTimeout(timer);
      await pause(10);
    }
  });

  // Background work (a pool's refill after a claim) is drained like a call: cancelled, then awaited.
  const pools: PoolToolContext = {
    closing: closing.signal,
    background(work) {
      inFlight.add(work);
      void work.finally(() => inFlight.delete(work));
    },
  };

  /** Register one tool: parse input with `input`, run, validate output, map errors. */
  function tool<I extends AnyObjectSchema, O extends AnyObjectSchema>(
    name: ToolName,
    config: { title: string; description: string; input: I; output: O; readOnly?: boolean; destructive?: boolean },
    run: (input: z.output<I>, extra: Extra) => Promise<DeepReadonly<z.input<O>>>,
  ): void {
    server.registerTool(
      name,
      {
        title: config.title,
        description: config.description,
        inputSchema: config.input,
        outputSchema: config.output,
        annotations: { readOnlyHint: config.readOnly ?? false, destructiveHint: config.destructive ?? false, openWorldHint: true },
      },
      // The SDK's handler type is derived from the schema; ours is checked by `tool()`'s own signature.
      (async (args: unknown, requestExtra: Extra): Promise<CallToolResult> => {
        // The call ends early when the client cancels it or when the server is draining.
        const extra: Extra = { ...requestExtra, signal: AbortSignal.any([requestExtra.signal, closing.signal]) };
        const call = (async (): Promise<CallToolResult> => {
          try {
            const parsed = config.input.safeParse(args ?? {});
            if (!parsed.success) throw usageFromZod(parsed.error, `${name} input`);
            const output = config.output.parse(await run(parsed.data as z.output<I>, extra)) as Record<string, unknown>;
            return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output };
          } catch (error) {
            return errorResult(error, name, log);
          }
        })();
        inFlight.add(call);
        try {
          return await call;
        } finally {
          inFlight.delete(call);
        }
      }) as never,
    );
  }

  tool(
    'umbel_spawn',
    {
      title: 'Spawn a worker',
      description: `Start an interactive agent CLI (${idList(providers)}) as a named worker and wait until it is ready for a prompt. Returns its status. env values are literals or {"fromEnv": "NAME"} (read from this server's environment; an unset variable is an error, nothing is started).`,
      input: spawnInputSchema(providers).extend({ pool: SpawnInputSchema.shape.pool }).strict(),
      output: WorkerStatusSchema,
    },
    (input, extra) => spawnFromInput(engine, input, extra.signal, pools),
  );

  tool(
    'umbel_send',
    {
      title: 'Send a prompt',
      description:
        "Type a prompt into a worker and submit it. Does NOT wait for the answer: it returns the turn number at once; follow with umbel_wait. A prompt starting with / or ! reaches the model as text; to run the CLI's own command on purpose (/compact, /clear, !git status) pass command: true — then modelTurn says whether there is a turn to wait for.",
      input: SendOptionsSchema,
      output: SendOutputSchema,
    },
    (input, extra) => engine.send(input, { signal: extra.signal }),
  );

  const waitInput = mcpWaitOptionsSchema(settings.waitTimeoutMs ?? MCP_WAIT_TIMEOUT_MS);
  tool(
    'umbel_wait',
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
    'umbel_keys',
    {
      title: 'Press keys',
      description:
        'Press keys in a worker\'s terminal, e.g. to answer a permission dialog after a needs-input outcome (["1"] or ["Enter"] usually approves, ["Escape"] declines/interrupts). Inspect with umbel_capture first; then umbel_wait again.',
      input: KeysOptionsSchema,
      output: KeysOutputSchema,
    },
    (input) => engine.keys(input),
  );

  tool(
    'umbel_status',
    {
      title: 'Worker status',
      description: 'The derived state of one worker: starting, ready, busy, needs-input, exited, dead or killed, with its turn counters.',
      input: WorkerRefSchema,
      output: WorkerStatusSchema,
      readOnly: true,
    },
    (input) => engine.status(input.name),
  );

  tool(
    'umbel_list',
    {
      title: 'List workers',
      description: 'The status of every worker under this umbel home (live ones and tombstones).',
      input: EmptyInputSchema,
      output: ListOutputSchema,
      readOnly: true,
    },
    async () => ({ workers: await engine.list() }),
  );

  tool(
    'umbel_read',
    {
      title: 'Read an answer',
      description:
        "The final answer of a turn (default: the latest completed), from the CLI's transcript. An answer over ~2000 tokens comes back as its head and tail with the middle elided (elidedTokens says how much); ask for full=true, a section ('## Findings'), head or tail (~tokens) instead.",
      input: ReadOptionsSchema,
      output: ReadOutputSchema,
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
    'umbel_actions',
    {
      title: 'What a worker did',
      description:
        "What a worker did in a turn (default: the latest sent; turn: 'all' for every turn), from its transcript: toolsUsed (name → calls), filesRead / filesEdited / filesWritten (absolute, deduplicated, first-seen order), shellCommands, errors (failed tool calls), finalMessage, turnCount. complete is false while a turn still runs.",
      input: ActionsInputSchema,
      output: ActionsOutputSchema,
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
    'umbel_diff',
    {
      title: 'What a turn changed',
      description:
        "The file changes a turn made in the worker's cwd (default: the latest sent): in a git work tree a unified diff against a snapshot taken when the turn was sent (files + patch; the user's index and stash are never touched); elsewhere (method transcript) the files the transcript says were written, with note saying why. text: true diffs two turns' answers instead (from/to: turn numbers, or -1, -2 … back from the latest completed). A patch over ~2000 tokens comes back as head and tail unless full.",
      input: DiffInputSchema,
      output: DiffOutputSchema,
      readOnly: true,
    },
    async (input) => {
      const diff = await engine.diff(input);
      if (input.full === true) return diff;
      const shaped = shapeAnswer(diff.patch, { auto: true, hint: 'call umbel_diff with full=true to see all' });
      return shaped.elidedTokens ? { ...diff, patch: shaped.text, elidedTokens: shaped.elidedTokens } : diff;
    },
  );

  tool(
    'umbel_kill',
    {
      title: 'Kill a worker',
      description: "End a worker's session. Its state stays as a tombstone for read/status/logs unless purge is true.",
      input: KillOptionsSchema,
      output: KillOutputSchema,
      destructive: true,
    },
    (input) => engine.kill(input),
  );

  tool(
    'umbel_capture',
    {
      title: 'Capture the screen',
      description:
        "The worker's current terminal screen (or the last one saved when it died), for inspecting a needs-input, idle or dead outcome. Evidence only: read answers with umbel_read.",
      input: CaptureOptionsSchema,
      output: CaptureOutputSchema,
      readOnly: true,
    },
    (input) => engine.capture(input),
  );

  tool(
    'umbel_logs',
    {
      title: 'Worker event log',
      description: "The worker's event history (session, prompt, stop, notify, exit, dead …) with times; the first place to look after a dead outcome.",
      input: WorkerRefSchema,
      output: LogsOutputSchema,
      readOnly: true,
    },
    async (input) => ({ worker: input.name, entries: await engine.logs(input.name) }),
  );

  tool(
    'umbel_prune',
    {
      title: 'Prune dead workers',
      description: 'Remove the state of dead/killed workers (optionally only those dead for at least olderThan). Live workers are kept.',
      input: PruneOptionsSchema,
      output: PruneOutputSchema,
      destructive: true,
    },
    (input) => engine.prune(input),
  );

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
    'umbel_doctor',
    {
      title: 'Check the installed CLIs',
      description: `Check that the installed agent CLIs (${idList(providers)}) still behave as umbel expects: for each provider (default: every one whose binary is found) a checklist of pass/fail/skip items with one fix hint per failure — the binary and its version against the verified ones (newer is said, not failed), signed in, billing (subscription or api), custom endpoint, and a scratch worker (private temp cwd and state root, torn down after) that must reach its prompt and fire umbel's session hook with a readable payload. No model call unless turn: true, which makes ONE small model request on the user's account. ok is true when every checked provider passes.`,
      input: DoctorOptionsSchema,
      output: DoctorReportSchema,
    },
    (input, extra) => engine.doctor(input, { signal: extra.signal }),
  );

  registerPoolTools(tool, engine);
  return server;
}

const drains = new WeakMap<McpServer, (graceMs: number) => Promise<void>>();

/**
 * Finish the calls in flight before closing: pending waits and spawns are cancelled (a wait
 * answers `aborted`, its worker keeps running) and every call gets `graceMs` to send its answer.
 */
export async function drainMcpServer(server: McpServer, graceMs: number): Promise<void> {
  await drains.get(server)?.(graceMs);
}

// --- internal ---

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
function waitResult(outcome: Outcome, options: Parameters<typeof nextFor>[1], full: boolean) {
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

/** Map any thrown value to an `isError` tool result with a machine-readable code. */
function errorResult(error: unknown, tool: string, log: (line: string) => void): CallToolResult {
  let body: { code: string; name: string; message: string; hint?: string; issues?: readonly { path: string; message: string }[] };
  if (UmbelError.isInstance(error)) {
    const issues = (error as { issues?: readonly { path: string; message: string }[] }).issues;
    const json = error.toJSON();
    body = {
      ...json,
      message: forMcp(json.message),
      ...(json.hint !== undefined ? { hint: forMcp(json.hint) } : {}),
      ...(issues?.length ? { issues: issues.map((i) => ({ ...i, message: forMcp(i.message) })) } : {}),
    };
  } else {
    const message = error instanceof Error ? error.message : String(error);
    log(`${tool}: internal error: ${error instanceof Error && error.stack ? error.stack : message}`);
    body = { code: UmbelErrorCode.Internal, name: 'Error', message };
  }
  return { content: [{ type: 'text', text: JSON.stringify({ error: body }) }], isError: true };
}

/** Progress notifications for one wait, or undefined when the client did not ask for them. */
function progressReporter(extra: Extra, log: (line: string) => void): { beat(): void; report(progress: WaitProgress): void } | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  const started = Date.now();
  let count = 0;
  let last: WaitProgress | undefined;
  const send = (message: string): void => {
    if (extra.signal.aborted) return;
    count += 1;
    extra
      .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: count, message } })
      .catch((error: unknown) => log(`progress notification failed: ${error instanceof Error ? error.message : String(error)}`));
  };
  const describe = (elapsedMs: number): string => {
    const head = last ? `${last.worker} turn ${last.turn}` : 'waiting';
    return `${head}: ${Math.round(elapsedMs / 1000)}s${last?.activity ? `, ${last.activity}` : ''}`;
  };
  return {
    beat: () => send(describe(Date.now() - started)),
    report: (progress) => {
      last = progress;
      send(describe(progress.elapsedMs));
    },
  };
}
