/** Test helpers for umbel providers and embedders: a mock provider, an in-memory substrate and the provider conformance suite. */
export { classifyMockTool, createMockProvider, readMockTurn, type MockProvider, type MockProviderSettings, type MockTranscriptLine } from './mock-provider.js';
export { createMemorySubstrate, type MemorySubstrate } from './memory-substrate.js';
export { testProvider, FORBIDDEN_INHERITED_ENV, type ConformanceFixtures } from './conformance.js';
