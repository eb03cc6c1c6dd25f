import { readFileSync } from 'node:fs';
import type { HookEvent } from '@umbel/core';
import { describe, expect, it } from 'vitest';
import { claude } from './provider.js';

const parseClaudeEvent = (event: HookEvent) => claude.doParseEvent(event);

const base = { session_id: 'sid-1', transcript_path: '/cfg/projects/-w/sid-1.jsonl', cwd: '/w' };
const event = (kind: string, payload: unknown): HookEvent => ({ kind, at: 1n, payload });

describe('parseClaudeEvent', () => {
  it('reads session id and transcript path from SessionStart (no prompt_id yet)', () => {
    expect(parseClaudeEvent(event('session', { ...base, hook_event_name: 'SessionStart', source: 'startup', model: 'claude-opus-5-5' }))).toEqual({
      sessionId: 'sid-1',
      transcriptPath: '/cfg/projects/-w/sid-1.jsonl',
    });
  });

  it('maps prompt_id to turnKey', () => {
    expect(parseClaudeEvent(event('prompt', { ...base, hook_event_name: 'UserPromptSubmit', prompt_id: 'p1', prompt: 'hi' })).turnKey).toBe('p1');
  });

  it('PermissionRequest → needsInput permission with tool and "Tool: arg" message', () => {
    const info = parseClaudeEvent(
      event('permission', {
        ...base,
        prompt_id: 'p1',
        tool_name: 'Bash',
        tool_input: { command: 'touch x', description: 'Create x' },
        permission_suggestions: [],
      }),
    );
    expect(info.needsInput).toEqual({ kind: 'permission', tool: 'Bash', message: 'Bash: touch x' });
    expect(info.turnKey).toBe('p1');
  });

  it.each([
    ['permission_prompt', 'Claude needs your permission', 'permission'],
    ['idle_prompt', 'Claude is waiting for your input', 'idle'],
    ['elicitation_dialog', 'Claude has a question', 'question'],
  ] as const)('Notification %s → %s', (type, message, kind) => {
    expect(parseClaudeEvent(event('notify', { ...base, notification_type: type, message })).needsInput).toEqual({ kind, message });
  });

  it('worker_permission_prompt carries the tool in its message', () => {
    expect(
      parseClaudeEvent(event('notify', { ...base, notification_type: 'worker_permission_prompt', message: 'worker needs permission for Bash' })).needsInput,
    ).toEqual({
      kind: 'permission',
      tool: 'Bash',
      message: 'worker needs permission for Bash',
    });
  });

  it('other notifications are informational', () => {
    expect(parseClaudeEvent(event('notify', { ...base, notification_type: 'auth_success', message: 'ok' })).needsInput).toBeUndefined();
  });

  it('StopFailure → error from last_assistant_message, else error', () => {
    expect(parseClaudeEvent(event('stop-failure', { ...base, error: 'server_error', last_assistant_message: 'API Error: 500 boom' })).error).toBe(
      'API Error: 500 boom',
    );
    expect(parseClaudeEvent(event('stop-failure', { ...base, error: 'rate_limit' })).error).toBe('rate_limit');
  });

  it('Stop → lastMessage (even empty), turnKey', () => {
    expect(parseClaudeEvent(event('stop', { ...base, prompt_id: 'p2', stop_hook_active: false, last_assistant_message: 'done' }))).toMatchObject({
      lastMessage: 'done',
      turnKey: 'p2',
    });
    expect(parseClaudeEvent(event('stop', { ...base, last_assistant_message: '' })).lastMessage).toBe('');
  });

  it('PreToolUse → activity like Bash(ls -la)', () => {
    expect(parseClaudeEvent(event('tool', { ...base, tool_name: 'Bash', tool_input: { command: 'ls -la', description: 'List' } })).activity).toBe(
      'Bash(ls -la)',
    );
    expect(parseClaudeEvent(event('tool', { ...base, tool_name: 'Read', tool_input: { file_path: '/w/a.ts' } })).activity).toBe('Read(/w/a.ts)');
    expect(parseClaudeEvent(event('tool', { ...base, tool_name: 'TodoWrite', tool_input: { todos: [] } })).activity).toBe('TodoWrite');
  });

  it('PreToolUse of a long tool name → one line of at most 120 characters', () => {
    const tool = `mcp__${'x'.repeat(60)}__navigate`;
    const activity = parseClaudeEvent(event('tool', { ...base, tool_name: tool, tool_input: { url: `https://example.com/${'p'.repeat(100)}` } })).activity;
    expect(activity).toHaveLength(120);
    expect(activity).toMatch(new RegExp(`^${tool}\\(https://example\\.com/p+…$`));
  });

  it('tolerates payloads that are not objects', () => {
    expect(parseClaudeEvent(event('stop', undefined))).toEqual({});
    expect(parseClaudeEvent(event('stop', 'garbage'))).toEqual({});
  });
});

// The real 2.1.332's hooks around a Bash call with run_in_background (test-fixtures/real/REVIVE-FACTS.md §4).
const recorded = JSON.parse(readFileSync(new URL('./__fixtures__/hooks/real-2.1.332-background.json', import.meta.url), 'utf8'));

describe('parseClaudeEvent: background work at Stop (Stop `background_tasks`, recorded on 2.1.332)', () => {
  it('a Stop while a background shell still runs names it: kind, id, running', () => {
    expect(parseClaudeEvent(event('stop', recorded.stopWhileRunning)).background).toEqual([{ kind: 'shell', id: 'b77k061wj', running: true }]);
  });

  it('a Stop with no background work (an empty list, or none) has no background', () => {
    expect(parseClaudeEvent(event('stop', recorded.stopAfterNotification)).background).toBeUndefined();
    expect(parseClaudeEvent(event('stop', { ...base, hook_event_name: 'Stop', prompt_id: 'p1' })).background).toBeUndefined();
  });

  it('a finished task listed at Stop is not running; an entry without an id is skipped; other events never carry it', () => {
    const stop = {
      ...recorded.stopWhileRunning,
      background_tasks: [
        { id: 't1', type: 'shell', status: 'completed' },
        { type: 'shell', status: 'running' },
      ],
    };
    expect(parseClaudeEvent(event('stop', stop)).background).toEqual([{ kind: 'shell', id: 't1', running: false }]);
    expect(
      parseClaudeEvent(event('tool', { ...recorded.preToolUse, background_tasks: recorded.stopWhileRunning.background_tasks })).background,
    ).toBeUndefined();
  });
});

// The real 2.1.332's hooks around a background subagent (Agent tool) and the turn it started by itself (BACKGROUND-FACTS.md §1–2).
const subagent = JSON.parse(readFileSync(new URL('./__fixtures__/hooks/real-2.1.332-subagent.json', import.meta.url), 'utf8'));

describe('parseClaudeEvent: a background subagent and the turn Claude Code starts by itself (recorded on 2.1.332)', () => {
  it('a Stop while a background subagent still runs names it: kind subagent, its agent id, running', () => {
    expect(parseClaudeEvent(event('stop', subagent.stopWhileRunning)).background).toEqual([{ kind: 'subagent', id: 'aa51eca65c311d253', running: true }]);
  });

  it('the <task-notification> prompt is self-started (shell and subagent alike); a prompt someone sent is not', () => {
    expect(parseClaudeEvent(event('prompt', subagent.taskNotificationPrompt))).toMatchObject({
      selfStarted: true,
      turnKey: subagent.taskNotificationPrompt.prompt_id,
    });
    expect(parseClaudeEvent(event('prompt', recorded.taskNotificationPrompt)).selfStarted).toBe(true);
    expect(parseClaudeEvent(event('prompt', subagent.humanPrompt)).selfStarted).toBeUndefined();
    expect(parseClaudeEvent(event('prompt', { ...subagent.humanPrompt, prompt: 'explain <task-notification>' })).selfStarted).toBeUndefined();
  });
});
