// Claude's background records: its Task subagents' transcripts beside the session's transcript
// (claude-code.md; upstream.md: `<dir>/<uuid>/subagents/agent-*.jsonl`).
import { describe, expect, it } from 'vitest';
import { claude } from './provider.js';

describe('doFindActivityDirs', () => {
  it("is the session's subagents dir beside its transcript", () => {
    expect(claude.doFindActivityDirs?.('/h/.claude/projects/-w/1111-2222.jsonl')).toEqual(['/h/.claude/projects/-w/1111-2222/subagents']);
  });
});
