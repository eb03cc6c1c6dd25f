import { afterAll, describe, expect, it } from 'vitest';
import { privateTmux, running } from './private-tmux.mjs';

describe('privateTmux', () => {
  const server = privateTmux('private-tmux-test');
  afterAll(() => server.dispose());

  // A server that exits with its last session races the next call: a client connecting while it
  // goes reads "server exited unexpectedly" (seen once in CI: kill-session, then new-session).
  it('keeps its server when the last session goes, so the next call cannot meet a server on its way out', async () => {
    server.run('new-session', '-d', '-s', 'only', 'sleep', '100');
    const pid = Number(server.run('display', '-p', '-t', 'only', '#{pid}').trim());
    expect(running(pid)).toBe(true);
    server.run('kill-session', '-t', 'only');
    await new Promise((r) => setTimeout(r, 500));
    expect(running(pid)).toBe(true);
    server.run('new-session', '-d', '-s', 'next', 'sleep', '100');
    expect(Number(server.run('display', '-p', '-t', 'next', '#{pid}').trim())).toBe(pid);
  });

  it('dispose stops that server', async () => {
    const other = privateTmux('private-tmux-test');
    other.run('new-session', '-d', '-s', 'a', 'sleep', '100');
    const pid = Number(other.run('display', '-p', '-t', 'a', '#{pid}').trim());
    await other.dispose();
    expect(running(pid)).toBe(false);
  });
});
