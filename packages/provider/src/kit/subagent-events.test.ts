import { describe, expect, it } from 'vitest';
import type { HookEvent } from '../spec.js';
import { subagentEvents } from './subagent-events.js';

const event = (kind: HookEvent['kind']) => ({ kind }) as HookEvent;
const info = { sessionId: 's-child', transcriptPath: '/t/child.json', turnKey: 'm1', activity: 'bash: ls' };

describe('subagentEvents', () => {
  it("a subagent's events name no session or transcript; its prompt is self-started, keyed like its stop", () => {
    const refine = subagentEvents({ field: 'parentSessionID' });
    const p = { parentSessionID: 'ses_1' };
    expect(refine(event('prompt'), p, info)).toEqual({ turnKey: 'm1', activity: 'bash: ls', selfStarted: true });
    expect(refine(event('stop'), p, info)).toEqual({ turnKey: 'm1', activity: 'bash: ls' });
    expect(refine(event('tool'), p, info)).toEqual({ turnKey: 'm1', activity: 'bash: ls' });
  });

  it("the worker's own events pass unchanged (the field absent or empty)", () => {
    const refine = subagentEvents({ field: 'agent.id' });
    expect(refine(event('prompt'), {}, info)).toBe(info);
    expect(refine(event('stop'), { agent: { id: '' } }, info)).toBe(info);
  });

  it('keys its prompt and stop by the field when told how', () => {
    const refine = subagentEvents({ field: 'agent.id', turnKey: (id) => `agent:${id}` });
    const p = { agent: { id: 'a7' } };
    expect(refine(event('prompt'), p, info)).toEqual({ turnKey: 'agent:a7', activity: 'bash: ls', selfStarted: true });
    expect(refine(event('stop'), p, info)).toEqual({ turnKey: 'agent:a7', activity: 'bash: ls' });
    expect(refine(event('tool'), p, info)).toEqual({ turnKey: 'm1', activity: 'bash: ls' });
  });
});
