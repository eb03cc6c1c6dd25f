/**
 * Serve an engine over stdio until the client goes away. Used by the `umbel-mcp` bin and by
 * `umbel mcp` in @umbel/cli.
 *
 * The SDK's stdio transport does not watch stdin for EOF, so a server whose parent died would
 * stay up (upstream's orphan busy-looped a core). Here the server stops when stdin ends or
 * closes, when stdout breaks, on SIGTERM/SIGINT, or when the transport closes. Calls in flight
 * are answered first (within a few seconds): a pending `umbel_wait` returns `aborted`, its worker
 * keeps running, so a piped client that closes its input at once still gets every answer.
 */
import type { Readable, Writable } from 'node:stream';
import type { Umbel } from '@umbel/core';
import { createMcpServer, drainMcpServer, type McpServerSettings } from './server.js';
import { LineTransport } from './stdio-transport.js';

/** Why `runMcpServer` returned. */
export type McpStopReason = 'stdin-closed' | 'stdout-error' | 'signal' | 'transport-closed';

/** Options of `runMcpServer`. */
export interface RunMcpServerOptions extends McpServerSettings {
  /** The engine whose verbs are served. */
  readonly engine: Umbel;
  /** Protocol input (default `process.stdin`). */
  readonly stdin?: Readable;
  /** Protocol output (default `process.stdout`). Nothing else is ever written to it. */
  readonly stdout?: Writable;
  /** Stop on SIGTERM/SIGINT (default true). */
  readonly handleSignals?: boolean;
}

/** What `runMcpServer` resolves with once the server has stopped. */
export interface McpStopInfo {
  readonly reason: McpStopReason;
  /** The signal, when `reason` is `signal`. */
  readonly signal?: NodeJS.Signals;
}

/** How long calls in flight may take to answer once the server is stopping. */
const DRAIN_GRACE_MS = 3_000;

/** How long closing the server may take before `runMcpServer` returns anyway. */
const CLOSE_GRACE_MS = 1_500;

/**
 * Run the MCP server on stdio until the client disconnects or a signal arrives. Resolves after
 * the server is closed; the caller decides whether to exit the process (the bin does).
 */
export async function runMcpServer(options: RunMcpServerOptions): Promise<McpStopInfo> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const log = options.log ?? ((line: string) => process.stderr.write(`umbel-mcp: ${line}\n`));
  const server = createMcpServer(options.engine, { ...options, log });
  const transport = new LineTransport(stdin, stdout);

  let stop!: (info: McpStopInfo) => void;
  const stopped = new Promise<McpStopInfo>((resolve) => {
    stop = resolve;
  });
  const onStdinEnd = () => stop({ reason: 'stdin-closed' });
  const onStdoutError = (error: Error) => {
    log(`stdout failed: ${error.message}`);
    stop({ reason: 'stdout-error' });
  };
  const onSignal = (signal: NodeJS.Signals) => stop({ reason: 'signal', signal });
  stdin.once('end', onStdinEnd);
  stdin.once('close', onStdinEnd);
  stdout.on('error', onStdoutError);
  const handleSignals = options.handleSignals ?? true;
  if (handleSignals) {
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  }
  transport.onerror = (error) => log(`transport error: ${error.message}`);
  server.server.onclose = () => stop({ reason: 'transport-closed' });

  try {
    await server.connect(transport);
    const info = await stopped;
    log(`stopping (${info.reason}${info.signal ? ` ${info.signal}` : ''})`);
    return info;
  } finally {
    stdin.off('end', onStdinEnd);
    stdin.off('close', onStdinEnd);
    if (handleSignals) {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    }
    // Answer what is in flight first (waits return `aborted` at once), unless stdout is gone.
    if (!stdout.destroyed && !stdout.writableEnded) await drainMcpServer(server, DRAIN_GRACE_MS);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      server.close().catch((error: unknown) => log(`close failed: ${error instanceof Error ? error.message : String(error)}`)),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, CLOSE_GRACE_MS);
        timer.unref();
      }),
    ]);
    if (timer) clearTimeout(timer);
    stdout.off('error', onStdoutError);
  }
}
