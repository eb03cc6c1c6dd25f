/**
 * How a tool is registered: its input parsed with its core schema here (so bad input is the same
 * typed UsageError as everywhere else, not the SDK's untyped text), its output validated against its
 * output schema, any error mapped once to an `isError` result, and the call tracked so a closing
 * server can still answer it (./calls.ts).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { errorBody, UmbelError, usageFromZod } from '@umbel/core';
import type * as z from 'zod';
import type { CallTracker } from './calls.js';
import { forMcpError } from './mcp-text.js';
import type { ToolName } from './tool-names.js';

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
type AnyObjectSchema = z.ZodObject;
type DeepReadonly<T> = T extends readonly (infer U)[] ? readonly DeepReadonly<U>[] : T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> } : T;

/** How a tool is registered (what ./verb-tools.ts and ./pool-tools.ts are handed). */
export type RegisterTool = <I extends AnyObjectSchema, O extends AnyObjectSchema>(
  name: ToolName,
  config: { title: string; description: string; input: I; output: O; readOnly?: boolean; destructive?: boolean },
  run: (input: z.output<I>, extra: Extra) => Promise<DeepReadonly<z.input<O>>>,
) => void;

/** The registrar of `server`'s tools. */
export function toolRegistrar(server: McpServer, calls: CallTracker, log: (line: string) => void): RegisterTool {
  // The SDK validates tool arguments itself and reports a failure as untyped text. Validation is
  // done below instead; the schemas are still registered, so `tools/list` shows them.
  (server as unknown as { validateToolInput: (tool: unknown, args: unknown) => Promise<unknown> }).validateToolInput = async (_tool, args) => args ?? {};
  return (name, config, run) => {
    server.registerTool(
      name,
      {
        title: config.title,
        description: config.description,
        inputSchema: config.input,
        outputSchema: config.output,
        annotations: { readOnlyHint: config.readOnly ?? false, destructiveHint: config.destructive ?? false, openWorldHint: true },
      },
      // The SDK's handler type is derived from the schema; ours is checked by RegisterTool's own signature.
      (async (args: unknown, requestExtra: Extra): Promise<CallToolResult> => {
        // The call ends early when the client cancels it or when the server is draining.
        const extra: Extra = { ...requestExtra, signal: AbortSignal.any([requestExtra.signal, calls.closing]) };
        return calls.track(
          (async (): Promise<CallToolResult> => {
            try {
              const parsed = config.input.safeParse(args ?? {});
              if (!parsed.success) throw usageFromZod(parsed.error, `${name} input`);
              const output = config.output.parse(await run(parsed.data, extra)) as Record<string, unknown>;
              return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output };
            } catch (error) {
              return errorResult(error, name, log);
            }
          })(),
        );
      }) as never,
    );
  };
}

/** Map any thrown value to an `isError` tool result: core's error body, its texts in the tools' words. */
function errorResult(error: unknown, tool: string, log: (line: string) => void): CallToolResult {
  const body = forMcpError(errorBody(error));
  if (!UmbelError.isInstance(error)) log(`${tool}: internal error: ${error instanceof Error && error.stack ? error.stack : body.message}`);
  return { content: [{ type: 'text', text: JSON.stringify({ error: body }) }], isError: true };
}
