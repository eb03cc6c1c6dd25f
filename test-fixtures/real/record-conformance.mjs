// Record what the conformance suite of @umbel/core/testing replays for a provider: the real pinned
// CLI, driven by umbel's engine on the tmux substrate against the local mock model server, in four
// scenarios (an answer, a permission, an API error, a sign-in screen). For each: the screens, the hook
// payloads in the order they were written, and the transcript (split at the prompt). Paths of the run
// become `{{cwd}}` / `{{transcript}}`, which the replay fills in.
//
//   pnpm build && node test-fixtures/real/record-conformance.mjs claude|codex|gemini|opencode|copilot|qwen
//   → packages/provider-<id>/src/__fixtures__/conformance.json
//
// Needs the pinned CLIs (`pnpm install:real-clis`). Calls nothing but 127.0.0.1.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startAnthropicMock } from '../mock-servers/anthropic.mjs';
import { seedOpencodeUser } from '../fake-opencode/seed.mjs';
import { startGeminiMock } from '../mock-servers/gemini.mjs';
import { startChatMock } from '../mock-servers/openai-chat.mjs';
import { startResponsesMock } from '../mock-servers/openai-responses.mjs';
import { readPins, realCliPath } from './clis.mjs';
import { MOCK_API_KEY, seedClaudeConfig } from './seed-claude.mjs';
import { codexMockConfig, testEnv } from './umbel-helpers.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const load = (pkg) => import(join(ROOT, 'packages', pkg, 'dist', 'index.js'));
const { OWN_EVENT_SCHEMAS, createUmbel, sessionName } = await load('core');
const { createTmuxSubstrate } = await load('tmux');
// umbel's own event kinds (sent, ready, snapshot, …) are not the CLI's hooks: the engine's own list
const OWN = new Set(Object.keys(OWN_EVENT_SCHEMAS));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The world of one provider: its mock, umbel's env, spawn options and prompts per scenario. */
async function worldOf(id, root) {
  const home = join(root, 'home');
  mkdirSync(home, { recursive: true });
  if (id === 'claude') {
    const mock = await startAnthropicMock();
    const config = join(root, 'claude-config');
    seedClaudeConfig({ configDir: config });
    const env = testEnv({ home, umbelHome: join(root, 'state'), UMBEL_CLAUDE_BIN: realCliPath('claude'), ANTHROPIC_API_KEY: MOCK_API_KEY });
    const workerEnv = {
      ANTHROPIC_API_KEY: { fromEnv: 'ANTHROPIC_API_KEY' },
      ANTHROPIC_BASE_URL: mock.url,
      CLAUDE_CONFIG_DIR: config,
      CLAUDE_CODE_MAX_RETRIES: '0',
    };
    return { mock, env, provider: (await load('provider-claude')).claude, spawn: { env: workerEnv, permission: 'default' }, prompts: PROMPTS.claude };
  }
  if (id === 'codex') {
    const mock = await startResponsesMock();
    const codexHome = join(root, 'codex-home');
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(
      join(codexHome, 'config.toml'),
      codexMockConfig({ baseUrl: mock.url, envKey: 'MOCK_API_KEY', providerLines: ['request_max_retries = 0', 'stream_max_retries = 0'] }),
    );
    const env = testEnv({
      home,
      umbelHome: join(root, 'state'),
      UMBEL_CODEX_BIN: realCliPath('codex'),
      CODEX_HOME: codexHome,
      MOCK_API_KEY: 'sk-mock-not-a-secret',
    });
    return {
      mock,
      env,
      provider: (await load('provider-codex')).codex,
      spawn: { env: { MOCK_API_KEY: { fromEnv: 'MOCK_API_KEY' } }, permission: 'on-request' },
      prompts: PROMPTS.codex,
    };
  }
  if (id === 'opencode') {
    // a user whose ~/.config/opencode names the chat mock as a provider (and was once installed online)
    const mock = await startChatMock();
    const user = seedOpencodeUser({ home, baseUrl: mock.url });
    const env = testEnv({ home, umbelHome: join(root, 'state'), UMBEL_OPENCODE_BIN: realCliPath('opencode'), ...user });
    return { mock, env, provider: (await load('provider-opencode')).opencode, spawn: { env: {}, permission: 'ask' }, prompts: PROMPTS.opencode };
  }
  if (id === 'copilot') {
    // bring-your-own-key, offline: the chat mock is the model; nothing reaches GitHub (COPILOT-FACTS.md §1)
    const mock = await startChatMock();
    const env = testEnv({ home, umbelHome: join(root, 'state'), UMBEL_COPILOT_BIN: realCliPath('copilot'), COPILOT_PROVIDER_API_KEY: 'sk-mock-copilot-key' });
    const workerEnv = {
      COPILOT_OFFLINE: 'true',
      COPILOT_PROVIDER_BASE_URL: mock.url,
      COPILOT_PROVIDER_API_KEY: { fromEnv: 'COPILOT_PROVIDER_API_KEY' },
      COPILOT_PROVIDER_TYPE: 'openai',
      COPILOT_MODEL: 'mock-model',
    };
    return { mock, env, provider: (await load('provider-copilot')).copilot, spawn: { env: workerEnv, permission: 'default' }, prompts: PROMPTS.copilot };
  }
  if (id === 'qwen') {
    const mock = await startChatMock();
    const env = testEnv({
      home,
      umbelHome: join(root, 'state'),
      UMBEL_QWEN_BIN: realCliPath('qwen'),
      OPENAI_API_KEY: 'qwen-mock-key-not-a-secret',
      OPENAI_BASE_URL: mock.url,
      OPENAI_MODEL: 'mock-model',
    });
    return {
      mock,
      env,
      provider: (await load('provider-qwen')).qwen,
      spawn: { env: { OPENAI_API_KEY: { fromEnv: 'OPENAI_API_KEY' } } },
      prompts: PROMPTS.qwen,
    };
  }
  const mock = await startGeminiMock();
  mkdirSync(join(home, '.gemini'), { recursive: true });
  writeFileSync(join(home, '.gemini', 'settings.json'), '{"privacy":{"usageStatisticsEnabled":false},"ui":{"hideTips":true}}\n');
  const env = testEnv({
    home,
    umbelHome: join(root, 'state'),
    UMBEL_GEMINI_BIN: realCliPath('gemini'),
    GEMINI_API_KEY: 'gemini-mock-key',
    GOOGLE_GEMINI_BASE_URL: mock.url,
    CI: 'true',
  });
  return {
    mock,
    env,
    provider: (await load('provider-gemini')).gemini,
    spawn: { env: { GEMINI_API_KEY: { fromEnv: 'GEMINI_API_KEY' } } },
    prompts: PROMPTS.gemini,
  };
}

const PROMPTS = {
  claude: { answer: 'ECHO recorded answer', permission: 'TOOL touch recorded.txt', apiError: 'FAIL 500 recorded upstream error' },
  codex: { answer: 'ECHO recorded answer', permission: 'ASK touch recorded.txt; echo ok', apiError: 'FAIL 500 recorded upstream error' },
  gemini: { answer: 'ECHO recorded answer', permission: 'TOOL touch recorded.txt', apiError: 'FAIL 400 recorded bad request' },
  opencode: { answer: 'ECHO recorded answer', permission: 'TOOL touch recorded.txt', apiError: 'FAIL 400 recorded bad request' },
  copilot: { answer: 'ECHO recorded answer', permission: 'TOOL touch recorded.txt', apiError: 'FAIL 400 recorded bad request' },
  qwen: { answer: 'ECHO recorded answer', permission: 'TOOL touch recorded.txt', apiError: 'FAIL 400 recorded bad request' },
};

/** CLIs that have no sign-in screen, and why. */
const NO_SIGN_IN = {
  opencode: 'opencode needs no account: without any provider configured it starts on its free OpenCode Zen models (verified on 1.18.33)',
};

/** Hook events of a worker after the `at` ns mark (own events excluded), in the order written. */
function hooksOf(eventsDir, after = 0n) {
  const out = [];
  for (const file of readdirSync(eventsDir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const m = /^(\d+)-\d+-(.+)\.json$/.exec(file);
    if (!m || OWN.has(m[2]) || BigInt(m[1]) <= after) continue;
    out.push({ kind: m[2], payload: JSON.parse(readFileSync(join(eventsDir, file), 'utf8')) });
  }
  return out;
}

const sentAt = (eventsDir) =>
  BigInt(
    readdirSync(eventsDir)
      .find((f) => /-sent\.json$/.test(f))
      ?.split('-')[0] ?? '0',
  );
/** Copilot's events file holds its whole system prompt (GitHub's text): kept out of the recording. */
const elideSystemPrompt = (text) =>
  text
    .split('\n')
    .map((line) => {
      if (!line.includes('"system.message"')) return line;
      try {
        const e = JSON.parse(line);
        if (e.type === 'system.message') e.data.content = '[Copilot system prompt elided from the recording]';
        return JSON.stringify(e);
      } catch {
        return line; // a line cut at the capture: kept as it was
      }
    })
    .join('\n');
const readText = (path) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};

/** Record one scenario: spawn, snapshot, send, wait, snapshot; the worker is purged after. */
async function scenario(world, umbel, substrate, name, prompt, extra = {}) {
  const cwd = realpathSync(mkdtempSync(join(world.root, `${name}-`)));
  mkdirSync(join(cwd, '.git'));
  await umbel.spawn({ name, provider: world.provider.providerId, cwd, env: world.spawn.env, startupTimeout: '180s', ...extra });
  const session = sessionName(name);
  const eventsDir = join(umbel.home, 'workers', name, 'events');
  try {
    const readyScreen = await substrate.capture(session, { lines: 50 });
    const status = await umbel.status({ name });
    const startupHooks = hooksOf(eventsDir);
    const pathIn = (h) => h.payload?.transcript_path ?? h.payload?.transcriptPath;
    const transcriptPath = pathIn([...startupHooks].reverse().find(pathIn) ?? {}) ?? status.transcriptPath;
    const before = transcriptPath ? readText(transcriptPath) : '';
    await umbel.send({ name, prompt });
    const outcome = await umbel.wait({ name, timeout: '180s' });
    await sleep(500);
    const screen =
      outcome.paneTail && outcome.reason === 'needs-input' ? await substrate.capture(session, { lines: 50 }) : await substrate.capture(session, { lines: 50 });
    const path = outcome.transcriptPath ?? transcriptPath;
    const after = path ? readText(path) : '';
    const turnHooks = hooksOf(eventsDir, sentAt(eventsDir));
    const fill = (text) => elideSystemPrompt((path ? text.split(path).join('{{transcript}}') : text).split(cwd).join('{{cwd}}'));
    const hook = (h) => ({ hook: { kind: h.kind, payload: JSON.parse(fill(JSON.stringify(h.payload))) } });
    const [first, ...rest] = turnHooks;
    return {
      outcome: {
        reason: outcome.reason,
        ...(outcome.result !== undefined ? { answer: outcome.result } : {}),
        ...(outcome.tool ? { tool: outcome.tool } : {}),
        ...(outcome.message ? { message: outcome.message } : {}),
      },
      startup: [...(before ? [{ transcript: fill(before) }] : []), ...startupHooks.map(hook), { screen: fill(readyScreen) }],
      prompt,
      turn: [
        ...(first ? [hook(first)] : []),
        ...(after.length > before.length ? [{ transcript: fill(after.slice(before.length)) }] : []),
        { screen: fill(screen) },
        ...rest.map(hook),
      ],
    };
  } finally {
    await umbel.kill({ name, purge: true }).catch(() => undefined);
  }
}

const SIGN_IN_ENV = {
  // onboarding done (its connectivity check would fail offline), but no key: the login screen
  claude: (bare, cwd) => {
    seedClaudeConfig({ configDir: join(bare, '.claude'), apiKey: '', trustedDirs: [cwd] });
    return { DISABLE_AUTOUPDATER: '1', CLAUDE_CONFIG_DIR: join(bare, '.claude') };
  },
  codex: (bare) => {
    mkdirSync(join(bare, '.codex'), { recursive: true });
    return { CODEX_HOME: join(bare, '.codex') };
  },
  gemini: () => ({ GEMINI_CLI_TRUST_WORKSPACE: 'true', GEMINI_CLI_NO_RELAUNCH: 'true' }),
  // no sign-in, no BYOK; the folder remembered as trusted (what "2. Yes, and remember" writes); any
  // network attempt goes to a dead local proxy
  copilot: (bare, cwd) => {
    mkdirSync(join(bare, '.copilot'), { recursive: true });
    writeFileSync(join(bare, '.copilot', 'config.json'), `${JSON.stringify({ trustedFolders: [cwd] })}\n`);
    return { COPILOT_AUTO_UPDATE: 'false', HTTPS_PROXY: 'http://127.0.0.1:9', HTTP_PROXY: 'http://127.0.0.1:9' };
  },
  // no key, no login: the auth dialog; auto-update (an `npm install --global`) off, as for every worker
  qwen: (bare) => {
    const settings = join(bare, 'qwen-system-settings.json');
    writeFileSync(settings, '{"general":{"enableAutoUpdate":false}}\n');
    return { QWEN_CODE_SYSTEM_SETTINGS_PATH: settings };
  },
};

/** The sign-in screen: the CLI launched on the substrate with no credentials at all. */
async function signInScreen(id, world, substrate) {
  const cwd = realpathSync(mkdtempSync(join(world.root, 'signin-')));
  const bare = join(world.root, 'bare-home');
  mkdirSync(bare, { recursive: true });
  const env = { PATH: world.env.PATH, HOME: bare, LANG: 'C.UTF-8', TERM: 'xterm-256color', ...SIGN_IN_ENV[id](bare, cwd) };
  const events = join(world.root, 'signin-events');
  mkdirSync(events, { recursive: true });
  const session = 'umbel-record-signin';
  await substrate.launch({ session, cwd, argv: [world.env[`UMBEL_${id.toUpperCase()}_BIN`]], env, exitRecordDir: events });
  try {
    for (let i = 0; i < 100; i++) {
      await sleep(200);
      const screen = await substrate.capture(session, { lines: 50 });
      if (world.provider.doDetectSignIn?.(screen)) return screen.split(cwd).join('{{cwd}}');
    }
    const last = await substrate.capture(session, { lines: 50 });
    if (process.env.RECORD_DUMP) writeFileSync(process.env.RECORD_DUMP, last.split(cwd).join('/srv/work'));
    throw new Error(`${id} showed no sign-in screen:\n${last}`);
  } finally {
    await substrate.kill(session).catch(() => undefined);
  }
}

const id = process.argv[2];
if (!['claude', 'codex', 'gemini', 'opencode', 'copilot', 'qwen'].includes(id))
  throw new Error('usage: record-conformance.mjs claude|codex|gemini|opencode|copilot|qwen');
const root = realpathSync(mkdtempSync(join(tmpdir(), `umbel-record-${id}-`)));
const world = { ...(await worldOf(id, root)), root };
const substrate = createTmuxSubstrate({ home: join(root, 'state'), env: world.env });
const umbel = createUmbel({ home: join(root, 'state'), env: world.env, substrate, providers: [world.provider] });
try {
  const { prompts } = world;
  const answer = await scenario(world, umbel, substrate, 'answer', prompts.answer);
  const permission = await scenario(
    world,
    umbel,
    substrate,
    'permission',
    prompts.permission,
    world.spawn.permission ? { permissionMode: world.spawn.permission } : {},
  );
  const apiError = await scenario(world, umbel, substrate, 'api-error', prompts.apiError);
  const signIn = NO_SIGN_IN[id] ? { screen: '', none: NO_SIGN_IN[id] } : { screen: await signInScreen(id, world, substrate) };
  const pin = readPins()[id];
  const recording = {
    cli: `${pin.package}@${pin.version}`,
    recordedBy: 'test-fixtures/real/record-conformance.mjs',
    answer,
    permission,
    apiError,
    signIn,
  };
  for (const [name, s] of Object.entries({ answer, permission, apiError })) console.log(name, JSON.stringify(s.outcome));
  const out = join(ROOT, 'packages', `provider-${id}`, 'src', '__fixtures__', 'conformance.json');
  writeFileSync(out, `${JSON.stringify(recording, null, 1)}\n`);
  console.log(`wrote ${out}`);
} finally {
  await world.mock.close();
  rmSync(root, { recursive: true, force: true });
}
