export * from './errors.js';
export * from './schemas.js';
export * from './provider.js';
export * from './substrate.js';
export type * from './umbel.js';
export { createUmbel, DEFAULT_STARTUP_TIMEOUT_MS } from './engine.js';
export { resolveHome, statePaths, sessionName, type StatePaths, type WorkerPaths } from './paths.js';
export { BASE_ENV_ALLOWLIST, resolveWorkerEnv, resolveExplicitEnv, finalizeWorkerEnv, UMBEL_WORKER_ENV } from './env.js';
export { HOOK_SINK_SCRIPT, HOOK_SINK_VERSION, installHookSink, hookCommandFor, shellQuote } from './hook-sink.js';
export { nowNs, isoOf } from './clock.js';
export { writeFileAtomic, readJson } from './fs-atomic.js';
export { INPUT_PROMPT_SETTLE_MS } from './wait-decision.js';
export { STOP_SETTLE_MS } from './context.js';
export { formatMs } from './util.js';
export { ajvValidator, extractJson } from './json-schema.js';
export { feedbackPrompt, CHECK_OUTPUT_TAIL } from './check-runner.js';
export {
  OWN_EVENT_SCHEMAS,
  SentEventSchema,
  SendFailedEventSchema,
  ReadyEventSchema,
  KeysEventSchema,
  EndedEventSchema,
  DeadEventSchema,
  ExitEventSchema,
  SnapshotEventSchema,
  type OwnEvent,
  type OwnKind,
} from './own-events.js';
export { VERSION } from './version.js';
export { AUTO_KEEP_TOKENS, AUTO_TRUNCATE_TOKENS, shapeAnswer, type ShapeAnswerOptions, type ShapedAnswer } from './answer.js';
