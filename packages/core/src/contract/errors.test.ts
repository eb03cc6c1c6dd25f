import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { EnvUnresolvedError, errorExitCode, NotSignedInError, UmbelError, UsageError, usageFromZod, WorkerDeadError, WorkerNotFoundError } from './errors.js';

describe('typed errors', () => {
  it('are recognised by marker, also across package copies, and keep their fields', () => {
    const error = new WorkerNotFoundError('w1');
    expect(UmbelError.isInstance(error)).toBe(true);
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe('UMBEL_WORKER_NOT_FOUND');
    expect(error.worker).toBe('w1');
    const foreign = Object.assign(new Error('x'), { [Symbol.for('umbel.error')]: true, code: 'UMBEL_USAGE' });
    expect(UmbelError.isInstance(foreign)).toBe(true);
    expect(UmbelError.isInstance(new Error('plain'))).toBe(false);
    expect(UmbelError.isInstance(null)).toBe(false);
  });

  it('map to one exit-code table', () => {
    expect(errorExitCode(new UsageError('bad'))).toBe(2);
    expect(errorExitCode(new EnvUnresolvedError('X'))).toBe(2);
    expect(errorExitCode(new NotSignedInError('Claude Code', 'Select login method:'))).toBe(126);
    expect(errorExitCode(new WorkerDeadError('w', 'exited 1'))).toBe(125);
    expect(errorExitCode(new WorkerNotFoundError('w'))).toBe(1);
    expect(errorExitCode(new Error('bug'))).toBe(1);
  });

  it('wrap zod failures without leaking zod', () => {
    const result = z.object({ name: z.string() }).safeParse({ name: 3 });
    if (result.success) throw new Error('expected failure');
    const error = usageFromZod(result.error, 'spawn options');
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toMatch(/^invalid spawn options: name: /);
    expect(error.issues[0]?.path).toBe('name');
    expect(error.cause).toBeUndefined();
  });
});
