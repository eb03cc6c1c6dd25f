// Real-CLI tier: `umbel revive` of the BUILT `umbel` bin with the REAL pinned `opencode` against the
// local chat-completions mock on 127.0.0.1 (test-fixtures/real/REVIVE-FACTS.md §3). The CLI is
// killed with SIGKILL after one turn; `revive` starts it again with `--session <id>`, and the next
// request the mock gets carries the earlier conversation. No network, no model service. When the
// binary or the build is missing it FAILS.
import { describe, expect, it } from 'vitest';
import { processesOf } from '../../test-fixtures/real/umbel-helpers.mjs';
import { freshUser, type Json, mock, opencode, spawn, T, waitJson, send } from './opencode-world.js';

/** The text of every message of a chat-completions request. */
const messageTexts = (body: Json): string[] =>
  (body?.messages ?? []).flatMap((m: Json) => (typeof m.content === 'string' ? [m.content] : (m.content ?? []).map((c: Json) => c?.text ?? '')));

describe('revive on the real opencode (chat-completions mock on 127.0.0.1)', () => {
  it('after SIGKILL, revive continues the session: the next request carries the earlier turn', { timeout: T }, async () => {
    const user = await freshUser();
    const json = async (args: string[]) => {
      const r = await user.umbel([...args, '--json']);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      return JSON.parse(r.stdout);
    };
    await spawn(user, 'or');
    expect((await send(user, 'or', 'ECHO alpha answer')).trim()).toBe('1');
    expect((await waitJson(user, 'or')).outcome).toMatchObject({ reason: 'completed', result: 'alpha answer' });
    const before = await json(['status', 'or']);

    const procs = processesOf({ cwd: user.work }).filter((p: { args: string }) => p.args.includes(opencode));
    expect(procs.length).toBeGreaterThan(0);
    for (const p of procs) process.kill(p.pid, 'SIGKILL');
    const deadline = Date.now() + 60_000;
    while ((await json(['status', 'or'])).alive !== false) {
      if (Date.now() > deadline) throw new Error('the worker is still alive after its CLI was killed');
      await new Promise((r) => setTimeout(r, 200));
    }

    const revived = await user.umbel(['revive', 'or', '--startup-timeout', '180s']);
    expect(revived.code, revived.stderr).toBe(0);
    expect((await send(user, 'or', 'ECHO beta answer')).trim()).toBe('2');
    expect((await waitJson(user, 'or')).outcome).toMatchObject({ reason: 'completed', turn: 2, result: 'beta answer' });
    expect(await json(['read', 'or', '--turn', '1'])).toMatchObject({ turn: 1, result: 'alpha answer' });

    const beta = mock.requests().findLast((q) => q.kind === 'turn' && q.prompt === 'ECHO beta answer');
    const texts = messageTexts(beta?.body);
    expect(texts.some((t) => t.includes('ECHO alpha answer'))).toBe(true);
    expect(texts.some((t) => t === 'alpha answer')).toBe(true);
    const after = await json(['status', 'or']);
    expect(after.sessionId).toBe(before.sessionId);
    console.log(`[opencode revive] transcript before ${before.transcriptPath}, after ${after.transcriptPath}`);
  });
});
