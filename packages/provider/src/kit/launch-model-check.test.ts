import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ProviderV1LaunchOptions } from '../spec.js';
import { launchModelCheck } from './launch-model-check.js';
import { type ModelListFacts, ModelsUnreadableError, ModelUnknownError } from './model-list.js';

const root = mkdtempSync(join(tmpdir(), 'umbel-kit-launch-models-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const FACTS: ModelListFacts = { cli: 'acme', args: ['models'], id: /^[a-z]+\/\S+$/, errorPrefix: 'Acme' };
/** A stand-in CLI listing `v/a`, and `v/keyed` only when ACME_KEY is set. */
const BIN = join(root, 'acme');
writeFileSync(BIN, '#!/bin/sh\n[ "$1" = models ] || exit 99\necho v/a\n[ -n "$ACME_KEY" ] && echo v/keyed\nexit 0\n');
chmodSync(BIN, 0o755);
const launch = (model: string | undefined) =>
  ({ cwd: root, env: { PATH: '/usr/bin:/bin' }, ...(model ? { model } : {}) }) as unknown as ProviderV1LaunchOptions;

describe('launchModelCheck', () => {
  it("passes a listed model and refuses another, the list read with the worker's env as `env` makes it", async () => {
    const check = launchModelCheck(FACTS, (env) => ({ ...env, ACME_KEY: 'set' }));
    await expect(check(BIN, launch('v/a'))).resolves.toBeUndefined();
    await expect(check(BIN, launch('v/keyed'))).resolves.toBeUndefined();
    await expect(launchModelCheck(FACTS)(BIN, launch('v/keyed'))).rejects.toBeInstanceOf(ModelUnknownError);
  });

  it('runs nothing without --model', async () => {
    await expect(launchModelCheck(FACTS)(join(root, 'missing'), launch(undefined))).resolves.toBeUndefined();
    await expect(launchModelCheck(FACTS)(join(root, 'missing'), launch('v/a'))).rejects.toBeInstanceOf(ModelsUnreadableError);
  });
});
