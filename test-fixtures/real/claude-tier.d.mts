// Types of claude-tier.mjs (plain ESM), for the TypeScript tests that import it.
import type { UmbelRun, UmbelStart } from './umbel-helpers.mjs';

export interface AnthropicMock {
  url: string;
  requests(): Array<Record<string, any>>;
  close(): Promise<void>;
}

export interface ClaudeTier {
  claude: string;
  root: string;
  home: string;
  mock: AnthropicMock;
  env: Record<string, string>;
  run: UmbelRun;
  start: UmbelStart;
}

export function claudeTier(prefix: string, options?: { built?: string[] }): Promise<ClaudeTier>;
