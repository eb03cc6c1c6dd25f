/**
 * The wire between a fleet and a host: ONE request (a JSON line on the SSH connection's stdin) to
 * the hidden `umbel rpc` verb there, and ONE response (a JSON line on its stdout), optionally
 * preceded by progress lines of a wait. Typed errors cross it as core's `errorBody` (code, name,
 * message, hint and the error's facts) and come back as the same code with the same facts, so exit
 * codes are the same as for local workers. Secrets (env values, prompts) travel only inside the
 * request, never on a command line.
 */
import { errorBody, RPC_VERBS, type RpcVerb, type UmbelErrorCode, UmbelError, type WaitProgress } from '@umbel/core';
import * as z from 'zod';

/** The protocol version this umbel speaks. */
export const RPC_VERSION = 1;

/** The operations a host serves: `hello`, and every verb core's table serves over the rpc (attach is `ssh -t`, not a request). */
export const RPC_OPS: readonly RpcOp[] = ['hello', ...RPC_VERBS];
export type RpcOp = 'hello' | RpcVerb;

/** One request. `options` is what the engine's method takes; the host parses it with core's schemas. */
export const RpcRequestSchema = z
  .object({
    v: z.number().int().positive(),
    op: z.string(),
    options: z.unknown().optional(),
    progress: z.boolean().optional().describe('wait: write progress lines before the response'),
  })
  .strict();
export type RpcRequest = { readonly v: number; readonly op: RpcOp; readonly options?: unknown; readonly progress?: boolean };

/** A typed error as it crosses the wire: core's `errorBody`, its facts (worker, paneTail, …) kept. */
export const WireErrorSchema = z
  .object({
    code: z.string(),
    name: z.string(),
    message: z.string(),
    hint: z.string().optional(),
    paneTail: z.string().optional(),
    issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .catchall(z.unknown());
export type WireError = z.infer<typeof WireErrorSchema>;

/** One line of the host's stdout: a progress report, or the response (the last line). */
export const RpcLineSchema = z.union([
  z.object({ progress: z.record(z.string(), z.unknown()) }).strict(),
  z.object({ ok: z.literal(true), value: z.unknown() }).strict(),
  z.object({ ok: z.literal(false), error: WireErrorSchema }).strict(),
]);
export type RpcLine = z.infer<typeof RpcLineSchema>;
export type RpcResponse = Exclude<RpcLine, { progress: unknown }>;

/** What a host says about itself (`hello`). */
export const HelloSchema = z.object({ umbel: z.string(), rpc: z.number().int(), home: z.string(), providers: z.array(z.string()) });
export type Hello = z.infer<typeof HelloSchema>;

/** A thrown value as it crosses the wire. */
export function encodeError(error: unknown): WireError {
  return errorBody(error) as WireError;
}

/** What a host's error body may not set on the error rebuilt from it. */
const NOT_FACTS: ReadonlySet<string> = new Set(['code', 'name', 'message', 'hint', 'stack', 'cause', 'host', '__proto__', 'constructor', 'prototype']);

/** A typed error that came back from a host: the host's code, name, hint and facts, and the host. */
export class RemoteError extends UmbelError {
  readonly host: string;
  readonly paneTail: string | undefined;
  readonly issues: readonly { path: string; message: string }[];
  constructor(host: string, wire: WireError) {
    super({ name: wire.name, code: wire.code as UmbelErrorCode, message: `host ${host}: ${wire.message}`, hint: wire.hint });
    for (const [key, value] of Object.entries(wire)) {
      if (!NOT_FACTS.has(key)) Object.defineProperty(this, key, { value, enumerable: true, configurable: true, writable: true });
    }
    this.host = host;
    this.paneTail = wire.paneTail;
    this.issues = wire.issues ?? [];
  }
}

/** A wait progress report from a progress line (unknown fields dropped). */
export function progressOf(raw: Record<string, unknown>): WaitProgress | undefined {
  const parsed = z
    .object({
      worker: z.string(),
      turn: z.number(),
      elapsedMs: z.number(),
      activity: z.string().optional(),
      messages: z.array(z.any()).optional(),
      attempt: z.number().optional(),
    })
    .safeParse(raw);
  return parsed.success ? (parsed.data as WaitProgress) : undefined;
}
