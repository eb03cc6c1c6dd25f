// Real-CLI tier (subagents, issue 33): the REAL pinned opencode against the chat-completions mock,
// whose AGENT calls opencode's `task` tool (a `general` subagent in a child session of the
// worker's; the parent's tool call waits for it). Facts: test-fixtures/real/BACKGROUND-FACTS.md §6.
// When the binary or the build is missing it FAILS. Nothing asserts on time. The idle timeout (10 s)
// leaves opencode room to draw nothing for a while on a loaded box: CI saw it still for 3 s, then for
// 5.3 s. Measured here: three such workers beside two busy loops on 2 cores left opencode's screen
// still for 1.5-3.3 s several times per half minute (its log silent meanwhile); idle, never > 0.7 s.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freshUser, type Json, PIN, spawn, T, waitJson, send } from './opencode-world.js';

describe(`real opencode ${PIN.version}: a subagent (the task tool) in a child session`, () => {
  it(
    "a subagent working 20 s under --idle-timeout 10s: not idle; the turn completes with the parent's answer at the parent's own end; the child's prompt is self-started, its session never the worker's; the next send is turn 2",
    { timeout: T },
    async () => {
      const user = await freshUser();
      await spawn(user, 'ot');
      expect(await send(user, 'ot', 'AGENT DELAY 20000 ECHO sub-done')).toBe('1\n');
      const r = await user.umbel(['wait', 'ot', '--json', '--timeout', '150s', '--idle-timeout', '10s']);
      const first = JSON.parse(r.stdout);
      const seen = first.reason === 'completed' ? '' : `\n--- the screen now ---\n${(await user.umbel(['capture', 'ot'])).stdout}`;
      expect(first, `${first.message}${seen}`).toMatchObject({ reason: 'completed', turn: 1 });
      expect(first.result).toMatch(/^TOOL-RESULT: <task id="ses_\w+" state="completed">\n<task_result>\nsub-done\n<\/task_result>\n<\/task>$/);
      const child = /<task id="(ses_\w+)"/.exec(first.result)?.[1];
      expect(first.sessionId).not.toBe(child);
      // the hook events: the child's prompt and stop (their own session id) beside the worker's
      const dir = join(user.state, 'workers', 'ot', 'events');
      const stops = readdirSync(dir)
        .filter((f) => f.endsWith('-stop.json'))
        .map((f) => ({ ns: f.split('-')[0], payload: JSON.parse(readFileSync(join(dir, f), 'utf8')) as Json }));
      const childStop = stops.find((s) => s.payload.sessionID === child);
      expect(childStop?.payload).toMatchObject({ event: 'session.idle', parentSessionID: first.sessionId });
      const events = (await user.umbel(['events', 'ot', '--json'])).stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Json);
      expect(events.filter((e) => e.kind === 'self-started')).toHaveLength(1);
      // turn 1 ended at the worker's own stop, never at the child's
      const ended = events.find((e) => e.kind === 'ended' && e.turn === 1);
      expect(String(ended?.cursor).split('.')[0]).not.toBe(childStop?.ns);
      const status = JSON.parse((await user.umbel(['status', 'ot', '--json'])).stdout);
      expect(status).toMatchObject({ sessionId: first.sessionId, transcriptPath: first.transcriptPath });
      expect(await send(user, 'ot', 'ECHO after')).toBe('2\n');
      expect((await waitJson(user, 'ot')).outcome).toMatchObject({ reason: 'completed', turn: 2, result: 'after' });
      expect((await user.umbel(['read', 'ot', '--turn', '1'])).stdout).toBe(`${first.result}\n`);
    },
  );
});
