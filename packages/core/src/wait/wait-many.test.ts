import { describe, expect, it } from 'vitest';
import { waitManyDone, waitManyExitCode } from './wait-many.js';

describe('the multi-wait decision', () => {
  it('all ends when every worker ended; any at the first', () => {
    expect([0, 1, 2, 3].map((ended) => waitManyDone('all', ended, 3))).toEqual([false, false, false, true]);
    expect([0, 1, 2].map((ended) => waitManyDone('any', ended, 3))).toEqual([false, true, true]);
  });

  it('exit code: 0 when every outcome completed, else the first non-zero one in the order they ended', () => {
    expect(waitManyExitCode([{ exitCode: 0 }, { exitCode: 0 }])).toBe(0);
    expect(waitManyExitCode([{ exitCode: 0 }, { exitCode: 126 }, { exitCode: 125 }])).toBe(126);
    expect(waitManyExitCode([])).toBe(0);
  });
});
