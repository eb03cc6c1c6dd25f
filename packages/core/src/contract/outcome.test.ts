import { describe, expect, it } from 'vitest';
import { OUTCOME_EXIT_CODES } from './exit-codes.js';
import { outcomeOf } from './outcome.js';
import { OutcomeReasonSchema, OutcomeSchema } from './schemas.js';

const base = { worker: 'w1', provider: 'mock', turn: 2, durationMs: 10 };

describe('outcomeOf, the one outcome constructor', () => {
  it("takes the exit code from the reason's table, for every reason", () => {
    for (const reason of OutcomeReasonSchema.options) {
      const outcome = outcomeOf(reason, { ...base, ...(reason === 'completed' ? { result: 'ok' } : {}) });
      expect(OutcomeSchema.parse(outcome)).toEqual({
        ...base,
        ...(reason === 'completed' ? { result: 'ok' } : {}),
        reason,
        exitCode: OUTCOME_EXIT_CODES[reason],
      });
    }
  });

  it('remakes an outcome with another reason: the old reason and exit code never survive', () => {
    const completed = outcomeOf('completed', { ...base, result: 'answer', message: 'm' });
    const halted = outcomeOf('guardrail-halted', { ...completed, message: 'rejected' });
    expect(halted).toMatchObject({ reason: 'guardrail-halted', exitCode: 127, result: 'answer', message: 'rejected' });
  });
});
