/**
 * The MCP server's stdio transport: one JSON-RPC message per line, like the SDK's, but hostile
 * input never stops it. The SDK's transport closed itself (the server then exited 0, the calls
 * queued behind lost) on a line over its 10 MiB buffer, and answered invalid JSON-RPC with nothing.
 * Here each bad line gets the JSON-RPC 2.0 error reply and the lines after it are served as usual:
 * - a line over `maxMessageBytes` (10 MiB) is skipped as it streams in, never buffered whole:
 *   -32600 with id null (its id was never read);
 * - a line that is not JSON: -32700 (parse error), id null;
 * - JSON that is no JSON-RPC message (not an object, a batch — MCP has none since 2025-06-18 — no
 *   or another `jsonrpc`, an id that is not a string or an integer, no `method`): -32600, with the
 *   message's id when it is a string or an integer, else null.
 * Blank lines are ignored.
 */
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';

/** The largest message served (the SDK's own limit); a longer line gets an error reply. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

/** One line: the JSON-RPC message it holds, or the error reply it gets. */
export function parseLine(line: string): { message: JSONRPCMessage } | { reply: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { reply: errorReply(null, PARSE_ERROR, `parse error: ${error instanceof Error ? error.message : String(error)}`) };
  }
  if (Array.isArray(value))
    return { reply: errorReply(null, INVALID_REQUEST, 'invalid request: a batch (JSON array) is not supported by MCP; send one message per line') };
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (parsed.success) return { message: parsed.data };
  const id = (value as { id?: unknown } | null)?.id;
  const known = typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
  return { reply: errorReply(known, INVALID_REQUEST, `invalid request: ${whyInvalid(value)}`) };
}

function whyInvalid(value: unknown): string {
  if (typeof value !== 'object' || value === null) return 'not a JSON object';
  const message = value as Record<string, unknown>;
  if (message.jsonrpc !== '2.0') return '"jsonrpc" must be "2.0"';
  if ('id' in message && typeof message.id !== 'string' && !Number.isInteger(message.id)) return '"id" must be a string or an integer';
  if (!('method' in message) && !('result' in message) && !('error' in message)) return 'no "method"';
  return 'not a JSON-RPC 2.0 request, notification or response';
}

function errorReply(id: string | number | null, code: number, message: string): string {
  return `${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`;
}

/** A newline-delimited JSON-RPC transport over `stdin`/`stdout` that answers every bad line. */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private chunks: Buffer[] = [];
  private size = 0;
  private skipping = false;
  private closed = false;
  private readonly onData = (chunk: Buffer | string) => this.take(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  private readonly onError = (error: Error) => this.onerror?.(error);

  private readonly stdin: Readable;
  private readonly stdout: Writable;
  private readonly maxMessageBytes: number;

  constructor(stdin: Readable, stdout: Writable, maxMessageBytes = MAX_MESSAGE_BYTES) {
    this.stdin = stdin;
    this.stdout = stdout;
    this.maxMessageBytes = maxMessageBytes;
  }

  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(`${JSON.stringify(message)}\n`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.chunks = [];
    this.onclose?.();
  }

  private write(text: string): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(text)) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  /** Split `chunk` into lines; a line growing past the limit is dropped as it streams in. */
  private take(chunk: Buffer): void {
    let rest = chunk;
    for (let nl = rest.indexOf(0x0a); nl !== -1; nl = rest.indexOf(0x0a)) {
      this.append(rest.subarray(0, nl));
      this.endLine();
      rest = rest.subarray(nl + 1);
    }
    this.append(rest);
  }

  private append(part: Buffer): void {
    if (this.skipping || part.length === 0) return;
    if (this.size + part.length > this.maxMessageBytes) {
      this.skipping = true;
      this.chunks = [];
      this.size = 0;
      return;
    }
    this.chunks.push(part);
    this.size += part.length;
  }

  private endLine(): void {
    const skipped = this.skipping;
    const line = Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
    this.chunks = [];
    this.size = 0;
    this.skipping = false;
    if (skipped) {
      const mib = this.maxMessageBytes / (1024 * 1024);
      void this.write(errorReply(null, INVALID_REQUEST, `invalid request: a message over the ${mib} MiB limit (${this.maxMessageBytes} bytes) was skipped`));
      return;
    }
    if (line.trim() === '') return;
    const parsed = parseLine(line);
    if ('reply' in parsed) void this.write(parsed.reply);
    else this.onmessage?.(parsed.message);
  }
}
