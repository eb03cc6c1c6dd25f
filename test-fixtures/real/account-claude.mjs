// Drives the REAL pinned Claude Code TUI through one account case for record-account.mjs: a seeded
// config dir, every hook + an optional statusLine command recorded, the mock as the API.
// Auth worlds (`auth`):
//   api-key     ANTHROPIC_API_KEY, approved in .claude.json (API billing)
//   api-key-ask ANTHROPIC_API_KEY, NOT approved: the "Detected a custom API key" dialog
//   auth-token  ANTHROPIC_AUTH_TOKEN (a bearer for a gateway: API billing)
//   oauth-token CLAUDE_CODE_OAUTH_TOKEN (a `claude setup-token` subscription token)
//   claude-ai   a claude.ai login in <config>/.credentials.json (subscription, Max)
//   claude-ai+key  both: the login and ANTHROPIC_API_KEY (not approved)
//   none        no credential at all
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJsonl, sleep, tidyScreen, waitFor } from './account-harness.mjs';
import { MOCK_API_KEY, seedClaudeConfig } from './seed-claude.mjs';

/** A fixed fake OAuth access token (never a real secret). */
export const MOCK_OAUTH_TOKEN = 'sk-ant-oat01-umbel-mock-oauth-0000-abcdefghij';
/** A fixed fake gateway bearer token. */
export const MOCK_AUTH_TOKEN = 'umbel-mock-gateway-token-0000';

const HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit', 'Stop', 'StopFailure', 'Notification', 'SessionEnd'];

/** Write a claude.ai login (Max, far-future expiry) the way `claude auth login` stores it without a keychain. */
export function writeClaudeAiLogin(configDir) {
  mkdirSync(configDir, { recursive: true });
  const creds = {
    claudeAiOauth: {
      accessToken: MOCK_OAUTH_TOKEN,
      refreshToken: 'sk-ant-ort01-umbel-mock-refresh-0000',
      expiresAt: 4102444800000,
      scopes: ['user:inference', 'user:profile', 'user:sessions:claude_code'],
      subscriptionType: 'max',
      rateLimitTier: 'default_claude_max_5x',
    },
  };
  writeFileSync(join(configDir, '.credentials.json'), JSON.stringify(creds), { mode: 0o600 });
}

/** The auth part of the env and the seed of one auth world. */
function authOf(auth, config) {
  const approved = auth === 'api-key';
  const env = {};
  if (auth.startsWith('api-key') || auth === 'claude-ai+key') env.ANTHROPIC_API_KEY = MOCK_API_KEY;
  if (auth === 'auth-token') env.ANTHROPIC_AUTH_TOKEN = MOCK_AUTH_TOKEN;
  if (auth === 'oauth-token') env.CLAUDE_CODE_OAUTH_TOKEN = MOCK_OAUTH_TOKEN;
  if (auth.startsWith('claude-ai')) writeClaudeAiLogin(config);
  return { env, apiKey: approved ? MOCK_API_KEY : '' };
}

/**
 * Seed + settings + env of one world. `statusLine` (a reply line) installs a recording statusLine
 * command; `userStatusLine` puts it in the user's settings.json instead of the --settings file.
 */
export function claudeSetup(world, { auth, baseUrl, maxRetries = 2, statusLine, env: extra = {} }) {
  const config = join(world.root, 'config');
  const { env: authEnv, apiKey } = authOf(auth, config);
  seedClaudeConfig({ configDir: config, apiKey, trustedDirs: [world.work] });
  const hooks = Object.fromEntries(HOOK_EVENTS.map((e) => [e, [{ matcher: '*', hooks: [{ type: 'command', command: world.hook(e) }] }]]));
  const settings = { hooks, ...(statusLine ? { statusLine: { type: 'command', command: world.statusLine('statusLine', statusLine) } } : {}) };
  const settingsFile = join(world.root, 'settings.json');
  writeFileSync(settingsFile, JSON.stringify(settings));
  const env = {
    HOME: world.home,
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    CLAUDE_CONFIG_DIR: config,
    ANTHROPIC_BASE_URL: baseUrl,
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_MAX_RETRIES: String(maxRetries),
    TMPDIR: join(world.root, 'tmp'),
    ...authEnv,
    ...extra,
  };
  return { config, settingsFile, env };
}

/** The transcript records of the turn whose user entry carries `promptId` (to the end of the file). */
export function turnRecords(path, promptId) {
  let records;
  try {
    records = parseJsonl(readFileSync(path, 'utf8'));
  } catch {
    return [];
  }
  const start = records.findIndex((r) => r.type === 'user' && r.promptId === promptId);
  return start < 0 ? [] : records.slice(start);
}

/** Wait until the TUI is ready for input (or shows one of `stopAt`); returns the screen. */
export async function claudeReady(host, world, stopAt = []) {
  return waitFor(
    'claude ready',
    async () => {
      const s = await host.screen(60);
      if (stopAt.some((t) => s.includes(t))) return s;
      const started = world.records('SessionStart').length > 0;
      return started && /\(shift\+tab to cycle\)|for shortcuts/.test(s) ? s : undefined;
    },
    60_000,
  );
}

/**
 * Submit `prompt` and wait for its turn to end (Stop or StopFailure); then for the transcript's
 * turn_duration (bounded). Returns the hooks of the turn, the transcript records and the screen.
 */
export async function claudeTurn(host, world, prompt, { timeoutMs = 300_000, midScreenMs = [], follow = 0 } = {}) {
  const before = world.records().length;
  await host.paste(prompt);
  await host.keys('Enter');
  const submitted = Date.now();
  const mid = midScreenMs.map((ms) => sleep(ms).then(async () => ({ afterMs: Date.now() - submitted, screen: tidyScreen(await host.screen(60)) })));
  const upsOf = () => world.records('UserPromptSubmit').find((r) => r.input.prompt === prompt);
  // An Enter can be lost while the TUI is still settling (claude-code.md §2.6): press it once more.
  let ups = await waitFor('UserPromptSubmit', upsOf, 5_000).catch(() => undefined);
  if (!ups) {
    await host.keys('Enter');
    ups = await waitFor('UserPromptSubmit', upsOf, 30_000);
  }
  const startedAt = ups.at;
  const end = await waitFor(
    'Stop/StopFailure',
    () =>
      world
        .records()
        .slice(before)
        .find((r) => (r.kind === 'Stop' || r.kind === 'StopFailure') && r.input.prompt_id === ups.input.prompt_id),
    timeoutMs,
  );
  let resumed;
  if (follow && end.kind === 'StopFailure') {
    resumed = await waitFor(
      'a Stop after the StopFailure (automatic continue)',
      () =>
        world
          .records()
          .slice(before)
          .find((r) => r.kind === 'Stop'),
      follow,
    );
  }
  const path = end.input.transcript_path;
  await waitFor('turn_duration', () => turnRecords(path, ups.input.prompt_id).some((r) => r.subtype === 'turn_duration'), 10_000).catch(() => undefined);
  await sleep(300);
  return {
    promptId: ups.input.prompt_id,
    elapsedMs: end.at - startedAt,
    midScreens: await Promise.all(mid),
    ...(resumed ? { resumedAfterMs: resumed.at - end.at } : {}),
    hooks: world.records().slice(before),
    transcript: turnRecords(path, ups.input.prompt_id),
    screen: tidyScreen(await host.screen()),
  };
}

/** Transcript records worth keeping in a recording: the turn's user/assistant/system entries. */
export function keepRecord(r) {
  return r.type === 'user' || r.type === 'assistant' || r.type === 'system';
}

/** The env a recording documents: names, with values only for the non-secret knobs. */
export function envNames(env) {
  const shown = new Set(['CLAUDE_CODE_MAX_RETRIES', 'DISABLE_AUTOUPDATER']);
  return Object.fromEntries(
    Object.keys(env)
      .sort()
      .map((k) => [k, shown.has(k) ? env[k] : '<set>']),
  );
}

/** `claude auth status` (JSON and text) in a world's env. */
export function authStatus(claude, env, cwd) {
  const run = (args) => {
    const r = spawnSync(claude, ['auth', 'status', ...args], { env, cwd, encoding: 'utf8', timeout: 30_000 });
    return { exitCode: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const json = run(['--json']);
  let parsed;
  try {
    parsed = JSON.parse(json.stdout);
  } catch {
    parsed = undefined;
  }
  return { json: parsed ?? json, jsonExitCode: json.exitCode, text: run(['--text']).stdout };
}

/**
 * One TUI case: launch in `c.auth`'s world, answer the key dialog (`c.answer`: yes|no) when it shows,
 * record the startup screen, then run `c.prompts` (each a turn) and keep what every turn left.
 * @param {{claude: string, mock: any, c: {name: string, auth: string, prompts?: string[], answer?: string, maxRetries?: number, statusLine?: string, userStatusLine?: string, idleMs?: number}, makeWorld: Function, tmuxHost: Function}} o
 */
export async function claudeTuiCase({ claude, mock, c, makeWorld, tmuxHost }) {
  const world = makeWorld(`umbel-acct-claude-${c.name}-`);
  const setup = claudeSetup(world, { auth: c.auth, baseUrl: mock.url, maxRetries: c.maxRetries ?? 2, statusLine: c.statusLine });
  if (c.userStatusLine)
    writeFileSync(
      join(setup.config, 'settings.json'),
      JSON.stringify({ statusLine: { type: 'command', command: world.statusLine('userStatusLine', c.userStatusLine) } }),
    );
  const host = await tmuxHost({ stateDir: join(world.root, 'state'), cwd: world.work });
  const out = { auth: c.auth, env: envNames(setup.env), authStatus: authStatus(claude, setup.env, world.work) };
  const firstRequest = mock.requests().length;
  try {
    await host.start([claude, '--settings', setup.settingsFile], setup.env);
    await claudeReady(host, world, ['Detected a custom API key']);
    await sleep(1500);
    out.startupScreen = tidyScreen(await host.screen());
    if (c.answer && out.startupScreen.includes('Detected a custom API key')) {
      if (c.answer === 'yes') await host.keys('Up');
      await host.keys('Enter');
      await claudeReady(host, world);
      await sleep(1500);
      out.afterAnswerScreen = tidyScreen(await host.screen());
    }
    out.turns = [];
    for (const prompt of c.prompts ?? []) {
      const t = await claudeTurn(host, world, prompt, { midScreenMs: c.midScreenMs, follow: c.followMs });
      const turn = {
        prompt,
        elapsedMs: t.elapsedMs,
        ...(t.midScreens.length > 0 ? { midScreens: t.midScreens } : {}),
        ...(t.resumedAfterMs !== undefined ? { resumedAfterMs: t.resumedAfterMs } : {}),
      };
      out.turns.push({
        ...turn,
        hooks: t.hooks.map((h) => ({ event: h.kind, payload: h.input })),
        transcript: t.transcript.filter(keepRecord),
        screen: t.screen,
      });
      if (c.afterKeys) {
        await host.keys(...c.afterKeys);
        await sleep(2000);
        out.turns.at(-1).afterKeys = { keys: c.afterKeys, screen: tidyScreen(await host.screen()) };
      }
    }
    if (c.idleMs) await sleep(c.idleMs);
    out.authStatusAfter = authStatus(claude, setup.env, world.work);
    out.claudeJson = pick(JSON.parse(readFileSync(join(setup.config, '.claude.json'), 'utf8')), [
      'customApiKeyResponses',
      'oauthAccount',
      'hasCompletedOnboarding',
    ]);
    out.requests = mock
      .requests()
      .slice(firstRequest)
      .map((r) => ({ ts: r.ts, method: r.method, path: r.path, kind: r.kind, prompt: r.prompt, auth: authHeaderOf(r.headers) }));
    const sl = world.records('statusLine');
    const usl = world.records('userStatusLine');
    if (c.statusLine) out.statusLine = { calls: sl.length, inputs: sl.map((r) => ({ at: r.at, input: r.input })), userCalls: usl.length };
    return { out, scrub: worldScrub(world) };
  } finally {
    await host.stop().catch(() => undefined);
    world.remove();
  }
}

/** The world root, and its encoded form in Claude's projects/<enc-cwd>/ folder names. */
function worldScrub(world) {
  return [
    [world.root, '<root>'],
    [world.root.replace(/[^A-Za-z0-9]/g, '-'), '<enc-root>'],
  ];
}

function pick(obj, keys) {
  return Object.fromEntries(keys.filter((k) => k in obj).map((k) => [k, obj[k]]));
}

/** Which credential header a request carried (values never recorded). */
function authHeaderOf(headers = {}) {
  if (headers['x-api-key']) return 'x-api-key';
  if (headers.authorization) return 'authorization: Bearer';
  return 'none';
}

/**
 * One `claude -p` case (stdout JSON / stream-json lines kept whole) in an auth world.
 * @param {{claude: string, mock: any, c: {name: string, auth: string, prompt: string, format: 'json' | 'stream-json', maxRetries?: number | null}, makeWorld: Function}} o
 */
export async function claudePrintCase({ claude, mock, c, makeWorld }) {
  const world = makeWorld(`umbel-acct-claudep-${c.name}-`);
  const setup = claudeSetup(world, { auth: c.auth, baseUrl: mock.url, maxRetries: c.maxRetries ?? 2 });
  if (c.maxRetries === null) delete setup.env.CLAUDE_CODE_MAX_RETRIES;
  const args = ['-p', c.prompt, '--output-format', c.format, ...(c.format === 'stream-json' ? ['--verbose'] : [])];
  const started = Date.now();
  try {
    const r = await new Promise((resolve) => {
      const child = spawn(claude, args, { cwd: world.work, env: setup.env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), 600_000);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
    const lines = r.stdout.split('\n').filter((l) => l.trim() !== '');
    const parsed = lines.map((l) => {
      try {
        return JSON.parse(l);
      } catch {
        return l;
      }
    });
    const out = {
      auth: c.auth,
      env: envNames(setup.env),
      args,
      exitCode: r.code,
      elapsedMs: Date.now() - started,
      stderr: r.stderr,
      stdout: c.format === 'json' ? parsed[0] : parsed,
    };
    return { out, scrub: worldScrub(world) };
  } finally {
    world.remove();
  }
}
