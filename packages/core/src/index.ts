export * from './contract/errors.js';
export * from './contract/error-body.js';
export * from './contract/exit-codes.js';
export * from './contract/outcome.js';
export * from './contract/schemas.js';
export * from './contract/verbs.js';
export * from '@umbel/provider';
export * from './contract/substrate.js';
export type * from './contract/umbel.js';
export { createUmbel, DEFAULT_STARTUP_TIMEOUT_MS } from './engine/engine.js';
export * from './doctor/index.js';
export { resolveHome, statePaths, sessionName, type StatePaths, type WorkerPaths } from './engine/paths.js';
export { BASE_ENV_ALLOWLIST, resolveWorkerEnv, resolveExplicitEnv, finalizeWorkerEnv, UMBEL_WORKER_ENV } from './engine/env.js';
export { HOOK_SINK_SCRIPT, HOOK_SINK_VERSION, installHookSink, hookCommandFor } from './engine/hook-sink.js';
export { nowNs, isoOf } from './engine/clock.js';

export { INPUT_PROMPT_SETTLE_MS } from './wait/wait-decision.js';
export { compareEvents, stampEvent } from './ledger/fleet-events.js';
export { FIRST_TURN, LAUNCH_PROMPT_MAX_BYTES } from './operations/first-prompt.js';
export { eventPage, type EventPage, type EventPageOptions } from './operations/event-page.js';
export { waitMany, waitManyDone, waitManyExitCode } from './wait/wait-many.js';
export { STOP_SETTLE_MS } from './engine/context.js';
export { formatMs } from './engine/util.js';
export { checkStateRoot, readStateFile, readStateFileSync, STATE_FILE_MAX_BYTES } from './engine/state-file.js';
export { ajvValidator, extractJson } from './wait/json-schema.js';
export { feedbackPrompt, CHECK_OUTPUT_TAIL } from './wait/check-runner.js';
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
} from './ledger/own-events.js';
export { VERSION } from './contract/version.js';
export { AUTO_KEEP_TOKENS, AUTO_TRUNCATE_TOKENS, shapeAnswer, type ShapeAnswerOptions, type ShapedAnswer } from './operations/answer.js';
export { pruneSpares, reserveSpare, sparesDir, takeSpare, type ReserveOutcome } from './git/spare.js';
