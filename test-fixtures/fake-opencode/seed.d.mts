// Types of seed.mjs (plain ESM), for the TypeScript tests that import it.
export function opencodeMockConfig(baseUrl: string, options?: { models?: string[]; model?: string; apiKey?: string }): Record<string, unknown>;
export function markInstalled(dir: string, version?: string): void;
export function seedOpencodeUser(options: { home: string; baseUrl: string; installed?: boolean; config?: Record<string, unknown> }): Record<string, string>;
