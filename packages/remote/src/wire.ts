/**
 * The wire between a fleet and a host: ONE request (a JSON line on the SSH connection's stdin) to
 * the hidden `umbel rpc` verb there, and ONE response (a JSON line on its stdout), optionally
 * preceded by progress lines of a wait. Typed errors cross it as `{code, name, message, hint}` and
 * come back as the same code, so exit codes are the same as for local workers. Secrets (env values,
 * prompts) travel only inside the request, never on a command line.
 */
import { type UmbelErrorCode, UmbelError, type WaitProgress } from '@umbel/core';
import * as z from 'zod';

/** The protocol version this umbel speaks. */
export const RPC_VERSION = 1;

/** The operations a host serves (attach is `ssh -t`, not a request). */
export const RPC_OPS = [
  'hello',
  'spawn',
  'send',
  'keys',
  'wait',
  'read',
  'status',
  'list',
  'kill',
  'revive',
  'prune',
  'capture',
  'logs',
  'messages',
  'actions',
  'diff',
  'events',
] as const;
export type RpcOp = (typeof RPC_OPS)[number];

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

/** A typed error as it crosses the wire. */
export const WireErrorSchema = z.object({
  code: z.string(),
  name: z.string(),
  message: z.string(),
  hint: z.string().optional(),
  paneTail: z.string().optional(),
  issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});
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
  if (!UmbelError.isInstance(error)) {
    return { code: 'UMBEL_INTERNAL', name: 'Error', message: error instanceof Error ? error.message : String(error) };
  }
  const extra = error as { paneTail?: unknown; issues?: unknown };
  const issues = Array.isArray(extra.issues) && extra.issues.length > 0 ? (extra.issues as WireError['issues']) : undefined;
  return {
    ...error.toJSON(),
    ...(typeof extra.paneTail === 'string' ? { paneTail: extra.paneTail } : {}),
    ...(issues ? { issues } : {}),
  };
}

/** A typed error that came back from a host: the host's code, name, hint and evidence. */
export class RemoteError extends UmbelError {
  readonly host: string;
  readonly paneTail: string | undefined;
  readonly issues: readonly { path: string; message: string }[];
  constructor(host: string, wire: WireError) {
    super({ name: wire.name, code: wire.code as UmbelErrorCode, message: `host ${host}: ${wire.message}`, hint: wire.hint });
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
