// `umbel doctor`'s text: a check whose detail runs over several lines (a screen's last lines) keeps
// them under its detail column, so the next check's mark still starts a line of its own.
import type { DoctorReport } from '@umbel/core';
import { expect, it } from 'vitest';
import { doctorText } from './doctor.js';

it("indents a multi-line detail's continuation lines under the detail column", () => {
  const report = {
    ok: false,
    providers: [
      {
        provider: 'mock',
        displayName: 'Mock CLI',
        ok: false,
        checks: [
          {
            id: 'turn',
            title: 'one turn end to end',
            status: 'fail',
            detail: "send: not submitted\nthe screen's last lines:\nmock> hi",
            hint: 'use a verified version',
          },
          { id: 'billing', title: 'billing', status: 'pass', detail: 'subscription' },
        ],
      },
    ],
  } as unknown as DoctorReport;
  const lines = doctorText(report).split('\n');
  const at = lines.findIndex((l) => l.includes('send: not submitted'));
  const column = (lines[at] as string).indexOf('send:');
  expect(lines.slice(at + 1, at + 3)).toEqual([`${' '.repeat(column)}the screen's last lines:`, `${' '.repeat(column)}mock> hi`]);
  expect(lines[at + 3]).toMatch(/^ {4}.*fix: use a verified version$/);
  expect(lines[at + 4]).toMatch(/^ {2}✓ billing/);
});
