// Real-CLI tier (background agents, issue 33): the REAL pinned Qwen Code 0.15.10 against the
// chat-completions mock (the world: ./qwen-world.ts). Facts: test-fixtures/real/BACKGROUND-FACTS.md §4,
// test-fixtures/real/QWEN-FACTS.md.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM fixture without type declarations
import { readPins } from '../../test-fixtures/real/clis.mjs';
import { until } from '../../test-fixtures/real/umbel-helpers.mjs';
import { Q, T, useQwenWorld } from './qwen-world.js';

const w = useQwenWorld();
const waitJson = (name: string) => w.waitJson(name);

describe(`real Qwen Code ${readPins().qwen.version}: a background agent and the turn it starts by itself`, () => {
  it(
    'turn 1 completes; the <task-notification> turn Qwen Code runs when the agent ends (a Stop with no prompt) credits no turn; wait/read of turn 1 keep its answer; the next send is turn 2',
    async () => {
      const spawned = await w.umbel(['spawn', 'bg', ...Q, '--json']);
      expect(spawned.code, spawned.stderr).toBe(0);
      await w.umbel(['send', 'bg', 'BGAGENT DELAY 8000 ECHO sub-done']);
      const first = await waitJson('bg');
      expect(first.code).toBe(0);
      expect(first.outcome).toMatchObject({ reason: 'completed', turn: 1 });
      expect(first.outcome.result).toContain('Background agent launched successfully');
      const stops = () => readdirSync(join(w.home, 'workers', 'bg', 'events')).filter((f) => f.endsWith('-stop.json')).length;
      await until(() => stops() >= 2, "the notification turn's stop", 240_000);
      const again = await waitJson('bg');
      expect(again.outcome).toMatchObject({ reason: 'completed', turn: 1, result: first.outcome.result });
      const read = await w.umbel(['read', 'bg', '--turn', '1', '--json']);
      expect(read.code, read.stderr).toBe(0);
      expect(JSON.parse(read.stdout).result).toBe(first.outcome.result);
      const sent = await w.umbel(['send', 'bg', 'ECHO after the notification', '--json']);
      expect(JSON.parse(sent.stdout)).toMatchObject({ turn: 2 });
      const second = await waitJson('bg');
      expect(second.outcome).toMatchObject({ reason: 'completed', turn: 2, result: 'after the notification' });
      const ended = (await w.umbel(['events', 'bg', '--json'])).stdout
        .trim()
        .split('\n')
        .filter((line) => JSON.parse(line).kind === 'ended');
      expect(ended.map((line) => JSON.parse(line).turn)).toEqual([1, 2]);
    },
    T,
  );

  it(
    "a send while Qwen Code runs its <task-notification> turn (it queues the prompt; the turn fires no prompt hook, a bare Stop) is turn 2, and wait of turn 2 gives turn 2's answer",
    async () => {
      const spawned = await w.umbel(['spawn', 'bgq', ...Q, '--json']);
      expect(spawned.code, spawned.stderr).toBe(0);
      // the agent answers `DELAY 15000 ECHO notified` at once; the mock answers the notification by its <result>: 15 s
      await w.umbel(['send', 'bgq', 'BGAGENT ECHO DELAY 15000 ECHO notified']);
      const first = await waitJson('bgq');
      expect(first.outcome).toMatchObject({ reason: 'completed', turn: 1 });
      const chat = first.outcome.transcriptPath as string;
      await until(() => readFileSync(chat, 'utf8').includes('"subtype":"notification"'), 'the notification turn', 240_000);
      const sent = await w.umbel(['send', 'bgq', 'ECHO two', '--json']);
      expect(sent.code, sent.stderr).toBe(0);
      expect(JSON.parse(sent.stdout)).toMatchObject({ turn: 2 });
      const second = await waitJson('bgq');
      expect(second.outcome).toMatchObject({ reason: 'completed', turn: 2, result: 'two' });
      expect(w.mock.requests().some((r) => r.prompt?.includes('<result>DELAY 15000 ECHO notified</result>'))).toBe(true);
      const read = await w.umbel(['read', 'bgq', '--turn', '1', '--json']);
      expect(JSON.parse(read.stdout).result).toBe(first.outcome.result);
    },
    T,
  );

  it(
    'a foreground agent (run_in_background: false): the turn waits for it and, under --idle-timeout 5s, completes with the answer after it, never idle',
    async () => {
      const spawned = await w.umbel(['spawn', 'fg', ...Q, '--json']);
      expect(spawned.code, spawned.stderr).toBe(0);
      await w.umbel(['send', 'fg', 'AGENT DELAY 12000 ECHO fg-sub-done']);
      const r = await w.umbel(['wait', 'fg', '--json', '--timeout', '180s', '--idle-timeout', '5s']);
      expect(r.code, r.stderr).toBe(0);
      const outcome = JSON.parse(r.stdout);
      expect(outcome).toMatchObject({ reason: 'completed', turn: 1 });
      expect(outcome.result).toContain('fg-sub-done');
    },
    T,
  );
});
