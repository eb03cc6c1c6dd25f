/** Test helper: the first turn of a recorded real-codex world (test-fixtures/real/recorded/account/codex-<name>.json), read as umbel reads it. */
import { readFileSync } from 'node:fs';
import { readCodexTurn } from '../rollout.js';

interface Recording {
  readonly turns: readonly { readonly rollout: readonly Record<string, unknown>[] }[];
}

/** The recorded first turn's rollout, read by `readCodexTurn`. */
export function readRecorded(name: string) {
  const path = new URL(`../../../../test-fixtures/real/recorded/account/codex-${name}.json`, import.meta.url);
  const turn = (JSON.parse(readFileSync(path, 'utf8')) as Recording).turns[0];
  if (!turn) throw new Error(`${name}: no turn`);
  const content = `${turn.rollout.map(({ ordinal: _, ...record }) => JSON.stringify(record)).join('\n')}\n`;
  return readCodexTurn({ content, ordinal: 1, stopSeen: false });
}
