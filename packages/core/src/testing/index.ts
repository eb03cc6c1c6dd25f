/** Test helpers for umbel providers and embedders: a mock provider, an in-memory substrate (which can replay a provider's recorded fixtures) and the provider conformance suite. */
export { classifyMockTool, createMockProvider, readMockTurn, type MockProvider, type MockProviderSettings, type MockTranscriptLine } from './mock-provider.js';
export { createMemorySubstrate, type MemorySubstrate, type MemorySubstrateSettings } from './memory-substrate.js';
export {
  testProvider,
  FORBIDDEN_INHERITED_ENV,
  type ConformanceContext,
  type ConformanceFixtures,
  type TestProviderInput,
} from './conformance.js';
export { NEUTRAL_USAGE_NAMES } from './conformance-behaviour.js';
export { createWorld, type BehaviourSettings, type ConformanceWorld } from './conformance-world.js';
export { fillPayload, fillRecorded, type ProviderRecording, type RecordedScenario, type RecordedStep } from './recording.js';
export { expectReadsFromOneParse } from './one-parse.js';
export { installedPackageDir, recordConformance, umbelBin, type RecordConformanceOptions } from './record-conformance.js';
export { hookSteps, orderSteps, screenSteps, transcriptSteps, withPlaceholders, type ObservedScreen, type TimedStep } from './record-steps.js';
