import { SendNotSubmittedError, UsageError } from '@umbel/core';
import { describe, expect, it } from 'vitest';
import { encodeError, RemoteError, RpcLineSchema } from './wire.js';

/** A typed error sent across the wire as the host writes it, and read back as the fleet does. */
function roundTrip(error: unknown): RemoteError {
  const line = RpcLineSchema.parse(JSON.parse(JSON.stringify({ ok: false, error: encodeError(error) })));
  if (!('error' in line)) throw new Error('expected an error line');
  return new RemoteError('h1', line.error);
}

describe('errors across the wire', () => {
  it('keep every fact of the typed error, and name the host', () => {
    const back = roundTrip(new SendNotSubmittedError('w1', 3, 'last screen'));
    expect(back.code).toBe('UMBEL_SEND_NOT_SUBMITTED');
    expect(back.paneTail).toBe('last screen');
    expect(back.toJSON()).toMatchObject({ name: 'SendNotSubmittedError', worker: 'w1', enterPresses: 3, paneTail: 'last screen', host: 'h1' });
    const issues = [{ path: 'name', message: 'required' }];
    expect(roundTrip(new UsageError('bad', { issues })).issues).toEqual(issues);
  });

  it('never let a hostile host set what is not a fact', () => {
    const wire = JSON.parse('{"code":"UMBEL_USAGE","name":"UsageError","message":"m","__proto__":{"polluted":true},"stack":"s","host":"other"}');
    const back = new RemoteError('h1', wire);
    expect((back as unknown as { polluted?: unknown }).polluted).toBeUndefined();
    expect(back.host).toBe('h1');
    expect(back.message).toBe('host h1: m');
    expect(back.stack).not.toBe('s');
  });
});
