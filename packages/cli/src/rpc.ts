/**
 * The hidden `umbel rpc` verb: what a fleet on another machine runs here over SSH. It reads ONE
 * request (a JSON line) from stdin, calls this machine's engine, and writes ONE response line on
 * stdout (a wait may write progress lines first). Env values and prompts arrive inside the request,
 * so they never appear on a command line. When stdin closes before the call is done (the caller,
 * or its SSH connection, went away), the call is cancelled: a wait returns, a spawn unwinds.
 */
import type { Readable } from 'node:stream';
import type { Umbel } from '@umbel/core';
import type { Out } from './io.js';

/** What the verb needs from the process. */
export interface RpcIo {
  readonly stdin: Readable;
  readonly stdout: Out;
  createEngine(): Umbel | Promise<Umbel>;
  /** Registers an interrupt handler (SIGINT/SIGTERM/SIGHUP); returns an unregister function. */
  onSignal(handler: () => void): () => void;
}

/** The first line of stdin; `closed` fires when stdin ends after it (or at once when it ended first). */
function readRequest(stdin: Readable): { line: Promise<string>; closed: AbortSignal } {
  const closed = new AbortController();
  let text = '';
  let done = false;
  const line = new Promise<string>((resolve) => {
    const finish = () => {
      if (!done) {
        done = true;
        resolve(text);
      }
      closed.abort();
    };
    stdin.setEncoding('utf8');
    stdin.on('data', (chunk: string) => {
      if (done) return;
      text += chunk;
      const at = text.indexOf('\n');
      if (at !== -1) {
        done = true;
        resolve(text.slice(0, at));
      }
    });
    stdin.on('end', finish);
    stdin.on('close', finish);
    stdin.on('error', finish);
  });
  return { line, closed: closed.signal };
}

/** Run the verb. Exit 0 once a response was written (the response carries any error). */
export async function runRpc(io: RpcIo): Promise<number> {
  const { line, closed } = readRequest(io.stdin);
  const interrupted = new AbortController();
  const off = io.onSignal(() => interrupted.abort());
  const signal = AbortSignal.any([closed, interrupted.signal]);
  try {
    const [{ encodeError, serveRpc }, { VERSION }] = await Promise.all([import('@umbel/remote'), import('./version.js')]);
    let response: unknown;
    try {
      const engine = await io.createEngine();
      response = await serveRpc(engine, await line, {
        signal,
        version: VERSION,
        onProgress: (progress) => io.stdout.write(`${JSON.stringify({ progress })}\n`),
      });
    } catch (error) {
      response = { ok: false, error: encodeError(error) };
    }
    io.stdout.write(`${JSON.stringify(response)}\n`);
    return 0;
  } finally {
    off();
    // Do not wait for the caller to close stdin: the response is out.
    io.stdin.destroy();
  }
}
