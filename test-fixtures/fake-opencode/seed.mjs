// Scratch-user setup for opencode tests, shared by the fake tier and the real tier (the real
// opencode 1.18.33 reads the same files; FACTS.md "Setup used everywhere" and §a).
//
//   const env = seedOpencodeUser({ home, baseUrl: mock.url });   // ~/.config/opencode/opencode.json + "installed" marks
//   spawn(bin, args, { env: { PATH, ...env, OPENCODE_CONFIG_DIR: workerDir } })
//   markInstalled(workerDir)                                      // a plugin dir that will not stall startup
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The mock provider block (`@ai-sdk/openai-compatible` against the chat mock). */
export function opencodeMockConfig(baseUrl, { models = ['mock-model', 'mock-model-2'], model = 'mock/mock-model', apiKey = 'sk-mock-key' } = {}) {
  return {
    $schema: 'https://opencode.ai/config.json',
    model,
    autoupdate: false,
    share: 'disabled',
    provider: {
      mock: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Mock',
        options: { baseURL: baseUrl, apiKey },
        models: Object.fromEntries(models.map((m, i) => [m, { name: i === 0 ? 'Mock Model' : `Mock Model ${i + 1}`, tool_call: true }])),
      },
    },
  };
}

/**
 * Make a config dir look like one whose `@opencode-ai/plugin` install already ran (an empty
 * node_modules/ and a lock naming it), so opencode starts no npm install there — the fix for the
 * plugin-install trap (FACTS.md §a). Never do this to a real user's directory.
 */
export function markInstalled(dir, version = '1.18.33') {
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify({ packages: { '': { dependencies: { '@opencode-ai/plugin': version } } } }));
}

/**
 * A scratch opencode user under `home`: the mock provider in ~/.config/opencode/opencode.json,
 * that dir marked installed (like a user who once ran opencode online) unless `installed: false`.
 * Returns the environment that points opencode at it (HOME, XDG_*, the offline switches).
 */
export function seedOpencodeUser({ home, baseUrl, installed = true, config = {} }) {
  const dir = join(home, '.config', 'opencode');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'opencode.json'), JSON.stringify({ ...opencodeMockConfig(baseUrl), ...config }, null, 2));
  if (installed) markInstalled(dir);
  return {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_SHARE: '1',
  };
}
