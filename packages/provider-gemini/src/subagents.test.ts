// Gemini CLI 0.61.0's subagents (invoke_agent): each records its own chat under
// `chats/<the main session's id>/<its id>.jsonl`, beside the main chat `chats/session-<time>-<id8>.jsonl`
// (test-fixtures/real/BACKGROUND-FACTS.md §8; recorded in ./__fixtures__/real-0.61.0-subagent/).
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { gemini } from './provider.js';

const chats = fileURLToPath(new URL('./__fixtures__/real-0.61.0-subagent/chats', import.meta.url));
const main = `${chats}/session-2026-12-06T04-25-a71d37ce.jsonl`;
const sessionId = JSON.parse(readFileSync(main, 'utf8').split('\n')[0]!).sessionId as string;

describe('doFindActivityDirs (the subagents of a Gemini chat)', () => {
  it("is the chats dir named by the main session's id, where the recorded subagent's chat is", () => {
    const dirs = gemini.doFindActivityDirs?.(main, sessionId);
    expect(dirs).toEqual([`${chats}/${sessionId}`]);
    const [subagent] = readdirSync(dirs![0]!);
    expect(JSON.parse(readFileSync(`${dirs![0]}/${subagent}`, 'utf8').split('\n')[0]!)).toMatchObject({ kind: 'subagent' });
  });

  it('none without the session id or for another file; the id made a file name as the CLI does (sanitizeFilenamePart)', () => {
    expect(gemini.doFindActivityDirs?.(main)).toEqual([]);
    expect(gemini.doFindActivityDirs?.(main, '')).toEqual([]);
    expect(gemini.doFindActivityDirs?.(`${chats}/notes.txt`, sessionId)).toEqual([]);
    expect(gemini.doFindActivityDirs?.(`${chats}/${sessionId}/x.jsonl`, sessionId)).toEqual([]);
    expect(gemini.doFindActivityDirs?.(main, '../../elsewhere')).toEqual([`${chats}/______elsewhere`]);
  });
});
