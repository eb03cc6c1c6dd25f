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
import type { Umbel } from '@umbel/core';
import { createCallTracker } from './calls.js';
import { SERVER_INSTRUCTIONS } from './instructions.js';
import { registerFleetTools } from './fleet-tools.js';
import { registerPoolTools } from './pool-tools.js';
import { providerSummaries } from './provider-text.js';
import { toolRegistrar } from './register.js';
import { registerVerbTools } from './verb-tools.js';

export type { RegisterTool } from './register.js';

export { TOOL_NAMES, type ToolName } from './tool-names.js';

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

/**
 * Create an MCP server exposing the supervisor verbs of `engine` as tools. Connect it to a
 * transport yourself (`await server.connect(transport)`), or use `runMcpServer` for stdio.
 */
export function createMcpServer(engine: Umbel, settings: McpServerSettings = {}): McpServer {
  const log = settings.log ?? ((line: string) => process.stderr.write(`umbel-mcp: ${line}\n`));
  const server = new McpServer(
    { name: settings.name ?? 'umbel', version: MCP_PACKAGE_VERSION },
    { capabilities: { tools: {} }, instructions: SERVER_INSTRUCTIONS },
  );
  const calls = createCallTracker();
  drains.set(server, (graceMs) => calls.drain(graceMs));
  const tool = toolRegistrar(server, calls, log);
  registerVerbTools(tool, engine, {
    providers: providerSummaries(engine),
    // a pool's refill after a claim runs in the background, drained like a call
    pools: { closing: calls.closing, background: (work) => calls.background(work) },
    ...(settings.waitTimeoutMs !== undefined ? { waitTimeoutMs: settings.waitTimeoutMs } : {}),
    progressIntervalMs: settings.progressIntervalMs ?? PROGRESS_INTERVAL_MS,
    log,
  });
  registerFleetTools(tool, engine, { progressIntervalMs: settings.progressIntervalMs ?? PROGRESS_INTERVAL_MS, log });
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
