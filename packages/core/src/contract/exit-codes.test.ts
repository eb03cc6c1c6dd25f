import { constants } from 'node:os';
import { describe, expect, it } from 'vitest';
import { UmbelError, UmbelErrorCode, UsageError, WorkerDeadError } from './errors.js';
import { EXIT_CODE_MEANINGS, errorExitCode, INTERRUPT_EXIT_CODES, interruptExitCode, OUTCOME_EXIT_CODES, PRINT_EXIT_CODES } from './exit-codes.js';
import { OutcomeReasonSchema } from './schemas.js';

describe('the exit-code tables, in one module', () => {
  it('give every outcome a code; umbel -p differs only in a model error (claude -p exits 1)', () => {
    expect(Object.keys(OUTCOME_EXIT_CODES).sort()).toEqual([...OutcomeReasonSchema.options].sort());
    expect(PRINT_EXIT_CODES).toEqual({ ...OUTCOME_EXIT_CODES, 'provider-error': 1 });
  });

  it('give every error code one (usage 2, dead 125, anything unknown 1)', () => {
    for (const code of Object.values(UmbelErrorCode)) {
      expect([1, 2, 3, 116, 117, 120, 125, 126, 130], code).toContain(errorExitCode(new UsageError('x', { code })));
    }
    expect(errorExitCode(new UsageError('x'))).toBe(2);
    expect(errorExitCode(new WorkerDeadError('w', 'gone'))).toBe(125);
    expect(errorExitCode(new Error('bug'))).toBe(1);
  });

  it('give a signal 128 + its number, as a shell reports it; an abort for another reason 130', () => {
    for (const [signal, code] of Object.entries(INTERRUPT_EXIT_CODES)) expect(code).toBe(128 + constants.signals[signal as keyof typeof constants.signals]);
    const controller = new AbortController();
    controller.abort('SIGTERM');
    expect(interruptExitCode(controller.signal)).toBe(143);
    expect(interruptExitCode(AbortSignal.abort())).toBe(130);
  });
});

describe('EXIT_CODE_MEANINGS', () => {
  it('says what every exit code of every table means, and no other', () => {
    const errors = Object.values(UmbelErrorCode).map((code) => errorExitCode(new UmbelError({ code, name: 'E', message: 'm' })));
    const used = new Set([0, 1, ...Object.values(OUTCOME_EXIT_CODES), ...Object.values(PRINT_EXIT_CODES), ...Object.values(INTERRUPT_EXIT_CODES), ...errors]);
    expect(Object.keys(EXIT_CODE_MEANINGS).map(Number)).toEqual([...used].sort((a, b) => a - b));
  });
});
