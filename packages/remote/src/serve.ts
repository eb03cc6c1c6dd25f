/**
 * The host side of the wire (`umbel rpc`): one request line in, the engine called, one response
 * line out. Every failure, bad requests included, is a response with a typed error; nothing is
 * thrown past here.
 */
import { type CallContext, eventPage, type RpcVerb, UmbelErrorCode, UmbelError, UsageError, type Umbel, type WaitProgress } from '@umbel/core';
import { encodeError, type Hello, RPC_OPS, RPC_VERSION, type RpcOp, RpcRequestSchema, type RpcResponse } from './wire.js';

/** What the caller of {@link serveRpc} gives it. */
export interface ServeContext {
  /** Fires when the caller went away (the SSH connection closed): the call is cancelled. */
  readonly signal?: AbortSignal;
  /** Progress of a wait, when the request asked for it. */
  readonly onProgress?: (progress: WaitProgress) => void;
  /** This umbel's version (for `hello`). */
  readonly version: string;
}

type Call = (engine: Umbel, options: unknown, context: ServeContext & { progress: boolean }) => Promise<unknown>;

/** The ops that are more than their verb called with the request's options (the options are parsed by the engine with core's schemas). */
const OWN_CALLS: Partial<Record<RpcOp, Call>> = {
  hello: async (engine, _options, { version }): Promise<Hello> => ({ umbel: version, rpc: RPC_VERSION, home: engine.home, providers: [...engine.providerIds] }),
  wait: (engine, options, context) => serveWait(engine, options, context),
  events: (engine, options, { signal }) => servePage(engine, options, signal),
};

/** How `op` is served: its own call, else the verb of that name with the request's options. */
function callOf(op: RpcOp): Call {
  const own = OWN_CALLS[op];
  if (own) return own;
  return (engine, options, { signal }) =>
    (engine[op as RpcVerb] as (options: unknown, context: CallContext) => Promise<unknown>).call(engine, options, { signal });
}

/** The longest a page may sleep for the next event. */
const MAX_PAGE_WAIT_MS = 60_000;

/** One page of the host's events (`wait`: sleep that long, at most a minute, for the next one). */
function servePage(engine: Umbel, input: unknown, signal: AbortSignal | undefined) {
  const { limit, wait, ...options } = (input ?? {}) as { limit?: unknown; wait?: unknown };
  const page = { ...(options as object), limit: typeof limit === 'number' && limit > 0 ? Math.min(limit, 1000) : 500 };
  const waitMs = typeof wait === 'number' && wait > 0 ? Math.min(wait, MAX_PAGE_WAIT_MS) : 0;
  return eventPage(engine, { ...page, ...(waitMs ? { wait: waitMs } : {}) }, signal);
}

/**
 * A wait. With progress asked for, the first line names the turn awaited (the latest sent, when
 * the request names none): if the connection drops, the caller still knows which turn to wait for.
 */
async function serveWait(engine: Umbel, input: unknown, { signal, onProgress, progress }: ServeContext & { progress: boolean }) {
  let options = input as { name?: unknown; turn?: unknown };
  if (progress && onProgress && options && typeof options === 'object' && typeof options.name === 'string') {
    const turn = typeof options.turn === 'number' ? options.turn : (await engine.status({ name: options.name })).turn;
    if (turn > 0) {
      options = { ...options, turn };
      onProgress({ worker: options.name as string, turn, elapsedMs: 0 });
    }
  }
  return engine.wait(options as never, { signal, ...(progress && onProgress ? { onProgress } : {}) });
}

/** Parse one request line; a typed error when it is not one this umbel serves. */
function parseRequest(line: string): { op: RpcOp; options: unknown; progress: boolean } {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    throw new UsageError('umbel rpc: the request is not JSON (one JSON object on one line of stdin)');
  }
  const parsed = RpcRequestSchema.safeParse(json);
  if (!parsed.success) throw new UsageError(`umbel rpc: not a request (${parsed.error.issues[0]?.message ?? 'invalid'})`);
  const { v, op, options, progress } = parsed.data;
  if (v !== RPC_VERSION) {
    throw new UmbelError({
      code: UmbelErrorCode.HostIncompatible,
      name: 'HostIncompatibleError',
      message: `it speaks rpc version ${RPC_VERSION}, the request is version ${v}`,
      hint: 'install the same umbel version on both machines',
    });
  }
  if (!(RPC_OPS as readonly string[]).includes(op)) {
    throw new UmbelError({ code: UmbelErrorCode.HostIncompatible, name: 'HostIncompatibleError', message: `it does not serve '${op}'` });
  }
  return { op: op as RpcOp, options, progress: progress === true };
}

/** Serve one request line with `engine`. Never throws: failures are error responses. */
export async function serveRpc(engine: Umbel, line: string, context: ServeContext): Promise<RpcResponse> {
  try {
    const request = parseRequest(line);
    const value = await callOf(request.op)(engine, request.options, { ...context, progress: request.progress });
    return { ok: true, value: value ?? null };
  } catch (error) {
    return { ok: false, error: encodeError(error) };
  }
}
