/** doctor's sandbox line: srt runs a command confined on this machine, or the report says why not and how to get it. */
import { describe, expect, it } from 'vitest';
import { sandboxCheck } from './sandbox.js';

describe('doctor: sandbox', () => {
  it('works here (bubblewrap and socat installed: .ci/run)', async () => {
    if (process.platform !== 'linux') return;
    expect(await sandboxCheck({ PATH: process.env.PATH, HOME: process.env.HOME })).toEqual({ available: true });
  });

  it('without bubblewrap on the PATH: not available, the reason and the install hint', async () => {
    if (process.platform !== 'linux') return;
    const report = await sandboxCheck({ PATH: '/nonexistent-bin', HOME: process.env.HOME });
    expect(report.available).toBe(false);
    expect(report.detail).toContain('bwrap');
    expect(report.hint).toContain('apt-get install bubblewrap socat');
  });
});
