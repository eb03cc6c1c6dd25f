/**
 * The fleet tools: `umbel_wait_many` (one outcome per worker, in the order they ended; all or any)
 * and `umbel_events` (the fleet's lifecycle, bounded, with a cursor to continue; it can sleep until
 * the next event). Both send progress notifications when the request carries a progressToken: wait_many
 * one per worker as it ends, and both a heartbeat while they wait. Core does the work (`waitMany`, `engine.events`); this is their MCP shape (a page: core's `eventPage`).
 */
import { DurationSchema, eventPage, VERBS, FleetEventSchema, type Umbel, WaitManyOptionsSchema, waitMany, waitManyExitCode } from '@umbel/core';
import * as z from 'zod';
import { progressNotifier, secondsSince } from './progress.js';
import type { RegisterTool } from './register.js';
import { MCP_WAIT_TIMEOUT_MS, WaitOutputSchema } from './schemas.js';
import { waitResult } from './verb-tools.js';

/** Input of `umbel_wait_many`: core's schema with the MCP-sized default timeout. */
const WaitManyInputSchema = WaitManyOptionsSchema.extend({
  timeout: DurationSchema.default(MCP_WAIT_TIMEOUT_MS).describe(
    `Each worker's wait returns outcome timeout after this long (default ${MCP_WAIT_TIMEOUT_MS / 1000}s, below common MCP client request timeouts); call again for the others`,
  ),
});

const WaitManyOutputSchema = z.object({
  outcomes: z.array(WaitOutputSchema).describe('One outcome per worker, in the order they ended (mode any: the first only)'),
  exitCode: z.number().int().describe("0 when every outcome completed, else the first non-zero outcome's code"),
});

/** The most events one call returns. */
const MAX_EVENTS = 1000;

const EventsInputSchema = VERBS.events.options
  .omit({ follow: true })
  .extend({
    limit: z.number().int().positive().max(MAX_EVENTS).default(100).describe(`At most this many events, oldest first (default 100, at most ${MAX_EVENTS})`),
    wait: DurationSchema.pipe(z.number().max(MCP_WAIT_TIMEOUT_MS))
      .optional()
      .describe(`When there is no event past since yet: sleep until the next one, at most this long (up to ${MCP_WAIT_TIMEOUT_MS / 1000}s)`),
  })
  .strict();

const EventsOutputSchema = z.object({
  events: z.array(FleetEventSchema),
  cursor: z.string().optional().describe('Pass as since to continue after the last event returned'),
  more: z.boolean().describe('More events are past the cursor already: call again with it'),
});

/** What the fleet tools need besides the engine. */
export interface FleetToolContext {
  /** Interval of heartbeat progress notifications while a call waits, in ms. */
  readonly progressIntervalMs: number;
  readonly log: (line: string) => void;
}

/** Register umbel_wait_many and umbel_events. */
export function registerFleetTools(tool: RegisterTool, engine: Umbel, { progressIntervalMs, log }: FleetToolContext): void {
  tool(
    'umbel_wait_many',
    {
      title: 'Wait for several workers',
      description:
        "Wait on several workers at once (each for its latest sent turn): mode all (default) returns when every one ended, any as soon as the first did (the others keep running). outcomes: one per worker in the order they ended, each like umbel_wait's (with next); exitCode: 0 when all completed, else the first non-zero outcome's. Timeout and guardrail apply to each worker's wait.",
      input: WaitManyInputSchema,
      output: WaitManyOutputSchema,
      readOnly: true,
    },
    async (input, extra) => {
      const progress = progressNotifier(extra, log);
      const started = Date.now();
      let ended = 0;
      const stop = progress?.every(progressIntervalMs, () => `${ended} of ${input.names.length} ended: ${secondsSince(started)}`);
      try {
        const outcomes = await waitMany(
          async (options, context) => {
            const outcome = await engine.wait(options, context);
            if (!context.signal?.aborted) progress?.send(`${outcome.worker}: ${outcome.reason} (${++ended} of ${input.names.length} ended)`);
            return outcome;
          },
          input,
          { signal: extra.signal },
        );
        return { outcomes: outcomes.map((o) => waitResult(o, { ...input, name: o.worker }, false)), exitCode: waitManyExitCode(outcomes) };
      } finally {
        stop?.();
      }
    },
  );

  tool(
    VERBS.events.mcp.tool,
    {
      title: "The fleet's events",
      description:
        "The workers' lifecycle from their ledgers, oldest first: spawned, ready, sent (turn), send-failed, needs-input (input, tool), ended (turn, reason, exitCode), dead, killed — each with worker, provider and time. Bounded by limit; pass the returned cursor as since to continue. With wait, an empty answer sleeps until the next event (a cheap way to follow the fleet).",
      input: EventsInputSchema,
      output: EventsOutputSchema,
      readOnly: true,
    },
    async (input, extra) => {
      const started = Date.now();
      const stop = input.wait
        ? progressNotifier(extra, log)?.every(progressIntervalMs, () => `waiting for the next event: ${secondsSince(started)}`)
        : undefined;
      try {
        return await eventPage(engine, input, extra.signal);
      } finally {
        stop?.();
      }
    },
  );
}
