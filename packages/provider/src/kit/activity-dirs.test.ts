import { describe, expect, it } from 'vitest';
import { activityDirsOf } from './activity-dirs.js';

describe('activityDirsOf: where a CLI keeps background work beside a transcript, as data', () => {
  const besides = activityDirsOf({ transcript: /^(.*)\/chats\/([^/]+)\.jsonl$/, dirs: ['$1/subagents/$2'] });
  const bySession = activityDirsOf({ transcript: /^(.*\/chats)\/session-[^/]+\.jsonl$/, dirs: ['$1/{session}'], unsafe: /[^a-zA-Z0-9_-]/ });

  it("fills the dirs from the transcript path's groups", () => {
    expect(besides('/p/chats/s1.jsonl')).toEqual(['/p/subagents/s1']);
    expect(besides('/p/notes.txt')).toEqual([]);
  });

  it('names a session dir only with a session id, made a file name part as the CLI makes it', () => {
    expect(bySession('/t/chats/session-1.jsonl', 'ab-c')).toEqual(['/t/chats/ab-c']);
    expect(bySession('/t/chats/session-1.jsonl', '../x.y')).toEqual(['/t/chats/___x_y']);
    expect(bySession('/t/chats/session-1.jsonl')).toEqual([]);
    expect(bySession('/t/chats/session-1.jsonl', '')).toEqual([]);
  });

  it('never reads a `$` of the session id or the path as a group', () => {
    expect(activityDirsOf({ transcript: /^(.*)\.jsonl$/, dirs: ['$1/{session}'] })('/a$2/t.jsonl', '$1')).toEqual(['/a$2/t/$1']);
  });
});
