/**
 * The default engine: the tmux substrate and the three first-party providers. Shared by the
 * standalone MCP bin and `@umbel/cli` (which sits above this package).
 */
import { createUmbel, type Umbel } from '@umbel/core';
import { claude } from '@umbel/provider-claude';
import { codex } from '@umbel/provider-codex';
import { gemini } from '@umbel/provider-gemini';
import { createTmuxSubstrate } from '@umbel/tmux';
import { resolveHome } from '@umbel/core';

/** Create the engine umbel's faces use, from an environment (default `process.env`). */
export function createDefaultUmbel(env: Readonly<Record<string, string | undefined>> = process.env): Umbel {
  const home = resolveHome(env);
  return createUmbel({ home, env, substrate: createTmuxSubstrate({ home, env }), providers: [claude, codex, gemini] });
}
