/**
 * The verb table: every verb of the `Umbel` interface declared once — its options schema (one per
 * concept, the same the argv, MCP and YAML faces parse), its result schema, where it runs in a fleet,
 * whether a host serves it over the rpc, and its MCP tool (or why it has none). The engine parses
 * with these schemas; the fleet's routing and the rpc server (@umbel/remote) and the MCP tools
 * (@umbel/mcp) are built from this table, and a test of each iterates it, so a verb added here but
 * not wired fails them. Every verb has one calling shape: `verb(options, context?)`.
 */
import type { ProviderV1Message } from '@umbel/provider';
import * as z from 'zod';
import { DoctorOptionsSchema, DoctorReportSchema } from '../doctor/schema.js';
import {
  ActionsOptionsSchema,
  ActionsResultSchema,
  AttachCommandSchema,
  CaptureOptionsSchema,
  CaptureResultSchema,
  DiffOptionsSchema,
  DiffResultSchema,
  EventsOptionsSchema,
  FleetEventSchema,
  KeysOptionsSchema,
  KeysResultSchema,
  KillOptionsSchema,
  KillResultSchema,
  ListOptionsSchema,
  LogEntrySchema,
  MessagesOptionsSchema,
  OutcomeSchema,
  PruneOptionsSchema,
  PruneResultSchema,
  ReadOptionsSchema,
  ReadResultSchema,
  ReviveOptionsSchema,
  SendOptionsSchema,
  SendResultSchema,
  SpawnOptionsSchema,
  WaitOptionsSchema,
  WorkerRefSchema,
  WorkerStatusSchema,
} from './schemas.js';

/**
 * Where a verb runs in a fleet: `worker` — on the machine of the worker its options name (a local
 * worker directory, else its host record); `host` — on the host its options name (`spawn --host`),
 * else here; `every` — here and on every configured host, merged; `here` — on this machine only.
 */
export type VerbRoute = 'worker' | 'host' | 'every' | 'here';

/** One verb's declaration. */
export interface VerbSpec {
  /** Its options (the argument every face parses). */
  readonly options: z.ZodType;
  /** Its result (of a stream: each item). */
  readonly result: z.ZodType;
  /** The options may be left out (`verb()`): every one has a default. */
  readonly optional?: true;
  /** The verb yields its results one by one (an async iterable), rather than resolving to one. */
  readonly stream?: true;
  readonly route: VerbRoute;
  /** Whether a host's `umbel rpc` serves it (what `worker`/`host`/`every` routes send there). */
  readonly rpc: boolean;
  /** Its MCP tool, or why there is none. */
  readonly mcp: { readonly tool: `umbel_${string}` } | { readonly none: string };
}

/** The verbs, in the order of the `Umbel` interface. */
export const VERBS = {
  spawn: { options: SpawnOptionsSchema, result: WorkerStatusSchema, route: 'host', rpc: true, mcp: { tool: 'umbel_spawn' } },
  /** Deliver a prompt (or, with `command: true`, run the CLI's own command) and confirm it was taken. */
  send: { options: SendOptionsSchema, result: SendResultSchema, route: 'worker', rpc: true, mcp: { tool: 'umbel_send' } },
  /** Press keys in the worker's terminal (e.g. answer a permission dialog); a pending needs-input counts as answered. */
  keys: { options: KeysOptionsSchema, result: KeysResultSchema, route: 'worker', rpc: true, mcp: { tool: 'umbel_keys' } },
  /** Wait for a turn to end (or, with `until`, for a file to appear or the screen to match). */
  wait: { options: WaitOptionsSchema, result: OutcomeSchema, route: 'worker', rpc: true, mcp: { tool: 'umbel_wait' } },
  read: { options: ReadOptionsSchema, result: ReadResultSchema, route: 'worker', rpc: true, mcp: { tool: 'umbel_read' } },
  /**
   * The lifecycle of the workers (all, or `names`) as one ordered stream, from their ledgers:
   * spawned, ready, sent, send-failed, needs-input, ended, dead, killed. With `follow`, it goes on
   * with each new event as it is written (woken by file-system notifications) until cancelled.
   */
  events: { options: EventsOptionsSchema, optional: true, result: FleetEventSchema, stream: true, route: 'every', rpc: true, mcp: { tool: 'umbel_events' } },
  status: { options: WorkerRefSchema, result: WorkerStatusSchema, route: 'worker', rpc: true, mcp: { tool: 'umbel_status' } },
  list: { options: ListOptionsSchema, optional: true, result: z.array(WorkerStatusSchema), route: 'every', rpc: true, mcp: { tool: 'umbel_list' } },
  /**
   * Start a dead or killed (not purged) worker again with its provider, options, cwd and env names,
   * resuming its CLI's conversation (`ResumeUnsupportedError` where the provider cannot); turn numbers go on.
   */
  revive: { options: ReviveOptionsSchema, result: WorkerStatusSchema, route: 'worker', rpc: true, mcp: { tool: 'umbel_revive' } },
  kill: { options: KillOptionsSchema, result: KillResultSchema, route: 'worker', rpc: true, mcp: { tool: 'umbel_kill' } },
  prune: { options: PruneOptionsSchema, optional: true, result: PruneResultSchema, route: 'every', rpc: true, mcp: { tool: 'umbel_prune' } },
  capture: { options: CaptureOptionsSchema, result: CaptureResultSchema, route: 'worker', rpc: true, mcp: { tool: 'umbel_capture' } },
  logs: { options: WorkerRefSchema, result: z.array(LogEntrySchema), route: 'worker', rpc: true, mcp: { tool: 'umbel_logs' } },
  /** Transcript messages of a turn (default the latest sent), for stream output. */
  messages: {
    options: MessagesOptionsSchema,
    result: z.array(z.custom<ProviderV1Message>()),
    route: 'worker',
    rpc: true,
    mcp: { none: 'stream output of a turn (`umbel -p --output-format stream-json`); an MCP client reads umbel_read and umbel_actions' },
  },
  /** What the worker did in a turn (default the latest sent), or in every turn (`turn: 'all'`), from its transcript. */
  actions: { options: ActionsOptionsSchema, result: ActionsResultSchema, route: 'worker', rpc: true, mcp: { tool: 'umbel_actions' } },
  /** The file changes a turn made in the worker's cwd (git snapshot, else the transcript's list), or (`text`) how two answers differ. */
  diff: { options: DiffOptionsSchema, result: DiffResultSchema, route: 'worker', rpc: true, mcp: { tool: 'umbel_diff' } },
  /** The command a person runs to watch the worker (`umbel attach`). */
  attachCommand: {
    options: WorkerRefSchema,
    result: AttachCommandSchema,
    route: 'worker',
    // a remote worker's is `ssh -t HOST umbel attach NAME`, built here, never a request
    rpc: false,
    mcp: { none: 'a terminal for a person (`umbel attach`), not a call' },
  },
  /**
   * Check that the installed CLIs still behave as umbel expects (binary, version, login, billing,
   * endpoint, and a scratch worker's hooks; with `turn`, one small model request). Touches none of
   * this engine's workers. Cancelling tears the scratch worker down.
   */
  doctor: {
    options: DoctorOptionsSchema,
    optional: true,
    result: DoctorReportSchema,
    route: 'here',
    rpc: false,
    mcp: { tool: 'umbel_doctor' },
  },
} as const satisfies Record<string, VerbSpec>;

/** A verb's name. */
export type VerbName = keyof typeof VERBS;

/** Every verb's name, in the table's order. */
export const VERB_NAMES = Object.keys(VERBS) as VerbName[];

/** The verbs of one route. */
export type VerbOfRoute<R extends VerbRoute> = { [V in VerbName]: (typeof VERBS)[V]['route'] extends R ? V : never }[VerbName];

/** The verbs a host serves over the rpc. */
export type RpcVerb = { [V in VerbName]: (typeof VERBS)[V]['rpc'] extends true ? V : never }[VerbName];

/** The verbs of `route`, in the table's order. */
export function verbsOfRoute<R extends VerbRoute>(route: R): VerbOfRoute<R>[] {
  return VERB_NAMES.filter((verb) => VERBS[verb].route === route) as VerbOfRoute<R>[];
}

/** The verbs a host serves over the rpc, in the table's order. */
export const RPC_VERBS = VERB_NAMES.filter((verb) => VERBS[verb].rpc) as RpcVerb[];

/** The MCP tools of the verbs, in the table's order. */
export const VERB_TOOLS = VERB_NAMES.flatMap((verb) => {
  const mcp: VerbSpec['mcp'] = VERBS[verb].mcp;
  return 'tool' in mcp ? [{ verb, tool: mcp.tool }] : [];
});
