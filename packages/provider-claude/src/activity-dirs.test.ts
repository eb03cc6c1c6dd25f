// Claude's background records: its Task subagents' transcripts beside the session's transcript
// (claude-code.md; upstream.md: `<dir>/<uuid>/subagents/agent-*.jsonl`).
import { describe, expect, it } from 'vitest';
import { claude } from './provider.js';

describe('doFindActivityDirs', () => {
  it("is the session's subagents dir beside its transcript", () => {
    expect(claude.doFindActivityDirs?.('/h/.claude/projects/-w/1111-2222.jsonl')).toEqual(['/h/.claude/projects/-w/1111-2222/subagents']);
  });

  it('drops one trailing .jsonl only, keeps any other path whole (a newline in it too), and never needs the session id', () => {
    expect(claude.doFindActivityDirs?.('/h/a.jsonl.jsonl', 'S')).toEqual(['/h/a.jsonl/subagents']);
    expect(claude.doFindActivityDirs?.('/h/transcript')).toEqual(['/h/transcript/subagents']);
    expect(claude.doFindActivityDirs?.('/h/odd\nname.jsonl')).toEqual(['/h/odd\nname/subagents']);
    expect(claude.doFindActivityDirs?.('/h/$1.jsonl')).toEqual(['/h/$1/subagents']);
  });
});
