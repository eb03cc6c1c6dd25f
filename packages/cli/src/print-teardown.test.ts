/** The job `umbel -p` hands its detached teardown, as `pool finish --detached` reads it from stdin. */
import { describe, expect, it } from 'vitest';
import { parseJob } from './print-teardown.js';

describe('parseJob', () => {
  it('takes a worker with its pool claim and a refill with its env', () => {
    const job = { worker: 'p-1', pool: 'default', claimedBy: 42, refill: { name: 'default', env: { KEY: 'v' } } };
    expect(parseJob(JSON.stringify(job))).toEqual(job);
    expect(parseJob('{}')).toEqual({});
  });

  it.each([
    ['not JSON', 'nope'],
    ['no stdin', undefined],
    ['an array', '[]'],
    ['a worker name umbel never gives', '{"worker":"../../etc"}'],
    ['a pool name umbel never gives', '{"pool":"a b"}'],
    ['a pid that is no pid', '{"worker":"w","claimedBy":-1}'],
    ['an env value that is no string', '{"refill":{"name":"p","env":{"K":1}}}'],
    ['a field it does not know', '{"worker":"w","purge":true}'],
  ])('refuses %s as a usage error', (_what, text) => {
    expect(() => parseJob(text)).toThrow(expect.objectContaining({ code: 'UMBEL_USAGE' }));
  });
});
