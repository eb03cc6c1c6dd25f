/**
 * @umbel/mcp — umbel's supervisor verbs as MCP tools. Embed with `createMcpServer(engine)`, serve
 * stdio with `runMcpServer({ engine })`, or run the `umbel-mcp` bin. As a library it imports only
 * @umbel/core: no tmux, no provider (the default engine is @umbel/runtime's `createDefaultUmbel`).
 */
export { createMcpServer, TOOL_NAMES, PROGRESS_INTERVAL_MS, MCP_PACKAGE_VERSION, type McpServerSettings, type ToolName } from './server.js';
export { runMcpServer, type RunMcpServerOptions, type McpStopInfo, type McpStopReason } from './run.js';
export { SERVER_INSTRUCTIONS } from './instructions.js';
export {
  MCP_WAIT_TIMEOUT_MS,
  NEXT_STEP,
  WorkerRefSchema,
  EmptyInputSchema,
  mcpWaitOptionsSchema,
  WaitOutputSchema,
  SendOutputSchema,
  KeysOutputSchema,
  ReadOutputSchema,
  KillOutputSchema,
  PruneOutputSchema,
  CaptureOutputSchema,
  LogsOutputSchema,
  ListOutputSchema,
  HelpInputSchema,
  HelpOutputSchema,
} from './schemas.js';
export { helpFor, HELP_TOPICS, HELP_SUMMARIES, type HelpAnswer, type HelpTopic } from './help.js';
export { providerSummaries, type ProviderSummary } from './provider-text.js';
