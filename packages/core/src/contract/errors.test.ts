import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  EnvUnresolvedError,
  FleetLimitError,
  HostUnreachableError,
  NotSignedInError,
  SendNotSubmittedError,
  SpawnFailedError,
  StateUnwritableError,
  UmbelError,
  UsageError,
  usageFromZod,
  WorkerDeadError,
  WorkerNotFoundError,
} from './errors.js';
import { errorExitCode } from './exit-codes.js';

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

  it('carry their facts in their JSON: every public field beyond code, name, message and hint', () => {
    expect(new WorkerNotFoundError('w1').toJSON()).toEqual({
      code: 'UMBEL_WORKER_NOT_FOUND',
      name: 'WorkerNotFoundError',
      message: "no worker named 'w1'",
      hint: "run 'umbel ls' to see the workers",
      worker: 'w1',
    });
    const issues = [{ path: 'name', message: 'required' }];
    expect(new UsageError('bad', { issues }).toJSON()).toEqual({ code: 'UMBEL_USAGE', name: 'UsageError', message: 'bad', issues });
    expect(new SpawnFailedError('no prompt', { paneTail: 'last\nscreen' }).toJSON()).toMatchObject({ paneTail: 'last\nscreen' });
    expect(new SendNotSubmittedError('w2', 3, 'tail').toJSON()).toMatchObject({ worker: 'w2', enterPresses: 3, paneTail: 'tail' });
    expect(new FleetLimitError('maxWorkers', 2, 2).toJSON()).toMatchObject({ limit: 'maxWorkers', live: 2 });
    expect(new StateUnwritableError('/s', 'ENOSPC').toJSON()).toMatchObject({ path: '/s', errno: 'ENOSPC' });
    expect(new HostUnreachableError('h1', 'timeout').toJSON()).toMatchObject({ host: 'h1', reason: 'timeout' });
    // A field named around Error's own members (`cause_`) is a fact under its plain name.
    expect(new WorkerDeadError('w3', 'exited 1').toJSON()).toMatchObject({ worker: 'w3', cause: 'exited 1' });
  });

  it('leave out of their JSON what is not a fact: absent values, empty lists, the cause, the stack', () => {
    const json = new UsageError('bad', { cause: new Error('inner') }).toJSON();
    expect(json).toEqual({ code: 'UMBEL_USAGE', name: 'UsageError', message: 'bad' });
    expect(new SpawnFailedError('x').toJSON()).toEqual({ code: 'UMBEL_SPAWN_FAILED', name: 'SpawnFailedError', message: 'x' });
    expect(JSON.parse(JSON.stringify(new WorkerNotFoundError('w1')))).toEqual(new WorkerNotFoundError('w1').toJSON());
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
