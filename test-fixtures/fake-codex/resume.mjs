// `codex resume <id>` in the fake TUI, as the real 0.171.0 does it (test-fixtures/real/REVIVE-FACTS.md §1):
// the thread's rollout file under $CODEX_HOME/sessions is found by its id and appended to (no new
// session_meta, the ordinal goes on); the earlier turns are the conversation the next request
// carries; an unknown id is refused before the TUI with the real message and exit 1.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isWrapperText } from '../mock-servers/openai-responses.mjs';

/** The rollout file of thread `id` under `<home>/sessions/YYYY/MM/DD/`, or undefined. */
export function findRollout(home, id) {
  const root = join(home, 'sessions');
  if (!existsSync(root)) return undefined;
  const suffix = `-${id}.jsonl`;
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        const found = walk(path);
        if (found) return found;
      } else if (entry.name.startsWith('rollout-') && entry.name.endsWith(suffix)) return path;
    }
    return undefined;
  };
  return walk(root);
}

/** The records of a rollout file (a partial last line skipped). */
export function rolloutRecords(path) {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .flatMap((line) => {
      try {
        return [JSON.parse(line)];
      } catch {
        return [];
      }
    });
}

/** The user's own prompts of a rollout, oldest first (codex's wrapper messages left out). */
export function rolloutPrompts(path) {
  return rolloutRecords(path)
    .filter((r) => r.type === 'response_item' && r.payload?.type === 'message' && r.payload.role === 'user')
    .map((r) => (r.payload.content ?? []).map((c) => c?.text ?? '').join(''))
    .filter((text) => !isWrapperText(text));
}

/** Exit like the real TUI when no rollout of `id` exists. */
export function noSuchSession(id) {
  process.stderr.write(`ERROR: No saved session found with ID ${id}. Run \`codex resume\` without an ID to choose from existing sessions.\n`);
  process.exit(1);
}
