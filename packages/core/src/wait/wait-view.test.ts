/**
 * A wait's outcome is built from the view it decided on: its billing and plan usage are never
 * read again after the decision.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createUmbel } from '../engine/engine.js';
import type { Substrate } from '../contract/substrate.js';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '../testing/index.js';

let home: string;
let work: string;
let substrate: MemorySubstrate;
const env = { PATH: process.env.PATH, HOME: '/nonexistent-home' };

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-wait-view-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-wait-view-work-'));
  substrate = createMemorySubstrate();
});
afterEach(async () => {
  for (const name of await substrate.list()) await substrate.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(work, { recursive: true, force: true });
});

it("carries the billing of the view it decided on, even when the worker's state is gone right after", async () => {
  let purgeOnLook = false;
  // The host, as the wait sees it: its look at the permission prompt (30 lines; the monitor takes
  // 40) is the last thing before the decision, and here the worker's state is removed meanwhile.
  const host: Substrate = {
    ...substrate,
    capture: async (session, options) => {
      const screen = await substrate.capture(session, options);
      if (purgeOnLook && options?.lines === 30 && /Allow Bash\?/.test(screen)) {
        purgeOnLook = false;
        await rm(join(home, 'workers', 'w1'), { recursive: true, force: true });
      }
      return screen;
    },
  };
  const umbel = createUmbel({ substrate: host, providers: [createMockProvider()], home, env });
  await umbel.spawn({ name: 'w1', provider: 'mock', cwd: work });
  const { billing } = await umbel.status({ name: 'w1' });
  await umbel.send({ name: 'w1', prompt: 'ASK Bash' });
  purgeOnLook = true;
  const outcome = await umbel.wait({ name: 'w1', timeout: '10s' });
  expect(outcome).toMatchObject({ reason: 'needs-input', inputKind: 'permission', billing });
});

it('a throw of the provider while it looks for the permission prompt is a ProviderFailedError', async () => {
  const provider = {
    ...createMockProvider(),
    doDetectInputPrompt: (): boolean => {
      throw new Error('prompt reader broke');
    },
  };
  const umbel = createUmbel({ substrate, providers: [provider], home, env });
  await umbel.spawn({ name: 'w1', provider: 'mock', cwd: work });
  await umbel.send({ name: 'w1', prompt: 'ASK Bash' });
  await expect(umbel.wait({ name: 'w1', timeout: '10s' })).rejects.toMatchObject({
    code: 'UMBEL_PROVIDER_FAILED',
    message: expect.stringContaining('doDetectInputPrompt'),
  });
});
