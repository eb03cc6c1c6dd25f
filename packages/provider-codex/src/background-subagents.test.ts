import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readCodexTurn } from './rollout.js';

// Recorded from the real codex 0.171.0 (multi_agent on by default) against
// test-fixtures/mock-servers/openai-responses.mjs (long texts trimmed; BACKGROUND-FACTS.md §9):
// "BGAGENT DELAY 20000 ECHO sub-done" — the mock calls spawn_agent (namespace multi_agent_v1),
// codex answers {agent_id, nickname}, records a CollabAgentToolCall item (agents_states
// {<id>: "pending_init"}), and the turn ends (task_complete) while the agent runs; 20 s later it
// appends a `<subagent_notification>` user message {agent_path: <id>, status: {completed: …}}.
// The agent's own rollout (…-subagent-child.jsonl) is a thread of its own whose id is that agent id.
const real = readFileSync(new URL('./__fixtures__/real-0.171.0-subagent.jsonl', import.meta.url), 'utf8');
const child = readFileSync(new URL('./__fixtures__/real-0.171.0-subagent-child.jsonl', import.meta.url), 'utf8');
const lines = real.trimEnd().split('\n');
const taskComplete = lines.findIndex((l) => l.includes('"type":"task_complete"'));
const notification = lines.findIndex((l) => l.includes('<subagent_notification>'));
const AGENT = '01a2499a-fc0a-7b40-ace4-7eb8e33798e8';
const subagent = [{ kind: 'subagent', id: AGENT, running: true }];
const read = (ls: readonly string[]) => readCodexTurn({ content: `${ls.join('\n')}\n`, ordinal: 1, stopSeen: true });

describe('a subagent in the rollout (codex 0.171.0, spawn_agent)', () => {
  it('the recorded agent id is the thread id of its own rollout', () => {
    expect(JSON.parse(child.split('\n')[0]!).payload).toMatchObject({ id: AGENT, parent_thread_id: JSON.parse(lines[0]!).payload.id });
  });

  it('a turn that ended while an agent it spawned still ran lists that agent, running', () => {
    // at the Stop hook (no task_complete yet), at the turn's end, and read after the agent's notification
    for (const upTo of [taskComplete, taskComplete + 1, lines.length]) {
      expect(read(lines.slice(0, upTo)), `${upTo} lines`).toMatchObject({ status: 'completed', background: subagent });
    }
  });

  it('an agent whose final status came before the turn ended is not listed (its notification; a wait that saw it done)', () => {
    const early = [...lines.slice(0, taskComplete), lines[notification]!, ...lines.slice(taskComplete, notification)];
    expect(read(early)).not.toHaveProperty('background');
    const waited = lines.map((l) => l.replace(`"agents_states":{"${AGENT}":"pending_init"}`, `"agents_states":{"${AGENT}":{"completed":"sub-done"}}`));
    expect(read(waited)).not.toHaveProperty('background');
    const stillRunning = early.map((l) => l.replace('{\\"completed\\":\\"sub-done\\"}', '\\"running\\"'));
    expect(read(stillRunning)).toMatchObject({ background: subagent });
  });
});
