import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDefaultUmbel } from './engine.js';

let scratch: string;
beforeAll(async () => {
  scratch = await realpath(await mkdtemp(join(tmpdir(), 'umbel-runtime-engine-')));
  await writeFile(
    join(scratch, 'extra.mjs'),
    `export default { specificationVersion: 'umbel-provider-v1', providerId: 'extra', displayName: 'Extra', inheritEnv: [],
      capabilities: { unattended: false, allowedTools: false, appendSystemPrompt: false, permissionModes: [] },
      async doBuildLaunch() { return { argv: ['/bin/true'] }; }, doDetectStartup() { return { state: 'starting' }; },
      doParseEvent() { return {}; }, doReadTurn() { return { status: 'missing' }; } };\n`,
  );
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('createDefaultUmbel', () => {
  it('serves the built-ins and the loaded providers, on the state root of its env', async () => {
    const engine = await createDefaultUmbel({ env: { HOME: scratch, UMBEL_HOME: join(scratch, 'state'), UMBEL_PROVIDERS: './extra.mjs' }, cwd: scratch });
    expect(engine.providerIds).toEqual(['claude', 'codex', 'gemini', 'opencode', 'copilot', 'qwen', 'extra']);
    expect(engine.provider('extra').displayName).toBe('Extra');
    expect(engine.home).toBe(join(scratch, 'state'));
  });

  it('starts with a provider package it cannot load, without its provider, and names the package when that provider is asked for', async () => {
    const engine = await createDefaultUmbel({
      env: { HOME: scratch, UMBEL_HOME: join(scratch, 'state'), UMBEL_PROVIDERS: './missing.mjs,./extra.mjs' },
      cwd: scratch,
    });
    expect(engine.providerIds).toEqual(['claude', 'codex', 'gemini', 'opencode', 'copilot', 'qwen', 'extra']);
    await expect(engine.spawn({ name: 'w1', provider: 'gone', cwd: scratch })).rejects.toThrow(
      /unknown provider 'gone'.*'\.\/missing\.mjs' \(UMBEL_PROVIDERS\)/,
    );
  });

  it('applies the config file’s sandbox default to every spawn (refused where it cannot be had) and claims no pool worker', async () => {
    const config = join(scratch, 'sandbox-config.json');
    await writeFile(config, JSON.stringify({ sandbox: true }), { mode: 0o600 });
    // a PATH without bubblewrap: a confined spawn is refused before anything is made
    const env = { HOME: scratch, UMBEL_HOME: join(scratch, 'state-sbx'), UMBEL_PROVIDERS: './extra.mjs', UMBEL_CONFIG: config, PATH: join(scratch, 'no-bin') };
    const engine = await createDefaultUmbel({ env, cwd: scratch });
    await expect(engine.spawn({ name: 'w2', provider: 'extra', cwd: scratch })).rejects.toMatchObject({ code: 'UMBEL_SANDBOX_UNAVAILABLE' });
    expect(await engine.pool.claim({ provider: 'extra', cwd: scratch })).toEqual({ reason: 'no-match', refill: false });
  });
});
