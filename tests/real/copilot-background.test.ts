/**
 * Real-CLI tier (subagents, issue 33): the REAL pinned GitHub Copilot CLI against the chat mock,
 * whose AGENT / BGAGENT call Copilot's `task` tool with `mode: sync` / `background`. Facts:
 * test-fixtures/real/BACKGROUND-FACTS.md §7. A missing install fails (never skips); nothing asserts on time.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM fixture without type declarations
import { readPins } from '../../test-fixtures/real/clis.mjs';
import { until } from '../../test-fixtures/real/umbel-helpers.mjs';
import { T, useCopilotWorld } from './copilot-world.js';

const PIN = readPins().copilot;
const w = useCopilotWorld('umbel-real-copilot-bg-');
const umbel = (argv: string[]) => w.umbel(argv);
const { waitJson, spawn } = w;

const stops = (name: string) => readdirSync(join(w.state, 'workers', name, 'events')).filter((f) => f.endsWith('-stop.json')).length;

describe(`the real GitHub Copilot CLI ${PIN?.version}: subagents of the task tool`, () => {
  it(
    "a sync subagent working 10 s: the turn completes with the main agent's answer, not at the agent's stop (the agent's own prompt and stop take no turn); the next send is turn 2",
    async () => {
      await spawn('cs');
      expect((await umbel(['send', 'cs', 'AGENT DELAY 10000 ECHO sub-done'])).stdout).toBe('1\n');
      // No --idle-timeout here: while the agent waits 10 s on its model, Copilot writes nothing, and its
      // screen may stand still for seconds (a full-suite run saw `idle` under 3 s): the idle net sees a
      // subagent only as it writes, like the main agent (BACKGROUND-FACTS.md §7).
      const first = await waitJson('cs');
      expect(first.outcome).toMatchObject({ reason: 'completed', turn: 1, result: 'TOOL-RESULT: sub-done' });
      expect(first.outcome).not.toHaveProperty('background');
      expect((await umbel(['send', 'cs', 'ECHO two'])).stdout).toBe('2\n');
      expect((await waitJson('cs')).outcome).toMatchObject({ reason: 'completed', turn: 2, result: 'two' });
      expect((await umbel(['read', 'cs', '--turn', '1'])).stdout).toBe('TOOL-RESULT: sub-done\n');
    },
    T,
  );

  it(
    'a background subagent: the turn completes listing it running; the turn Copilot starts when it ends credits no turn; read/wait keep turn 1; the next send is turn 2',
    async () => {
      await spawn('cb');
      await umbel(['send', 'cb', 'BGAGENT DELAY 15000 ECHO bg-done']);
      const first = await waitJson('cb');
      expect(first.outcome).toMatchObject({ reason: 'completed', turn: 1, background: [{ kind: 'subagent', running: true }] });
      expect(first.outcome.result).toMatch(/^TOOL-RESULT: Agent started in background with agent_id: /);
      expect(first.outcome.result).toContain(first.outcome.background[0].id);
      // the agent's stop, then the <system_notification> turn's stop
      await until(() => stops('cb') >= 3, "the notification turn's stop", 240_000);
      expect((await waitJson('cb')).outcome).toMatchObject({ reason: 'completed', turn: 1, result: first.outcome.result });
      expect((await umbel(['read', 'cb', '--turn', '1'])).stdout).toBe(`${first.outcome.result}\n`);
      expect((await umbel(['send', 'cb', 'ECHO after'])).stdout).toBe('2\n');
      expect((await waitJson('cb')).outcome).toMatchObject({ reason: 'completed', turn: 2, result: 'after' });
    },
    T,
  );
});
