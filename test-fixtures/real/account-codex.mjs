// Drives the REAL pinned Codex (TUI and `codex exec`) through one account case for
// record-account.mjs. Auth worlds (`auth`):
//   provider-key  a custom model provider with env_key (MOCK_API_KEY): no login screen, API billing
//   apikey        the built-in openai provider, auth.json {auth_mode:"apikey"} (codex login --with-api-key)
//   chatgpt       the built-in openai provider, auth.json {auth_mode:"chatgpt"} with a fake ChatGPT
//                 (Plus) login: the subscription path; requests go to openai_base_url (the mock)
//   codex-api-key the built-in provider, no auth.json, CODEX_API_KEY in the env
//   openai-api-key the built-in provider, no auth.json, OPENAI_API_KEY in the env
//   none          the built-in provider, no auth.json, no key
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { filesUnder, gitInit, parseJsonl, sleep, tidyScreen, waitFor } from './account-harness.mjs';
import { codexMockConfig } from './umbel-helpers.mjs';

const KEY_NAME = 'MOCK_API_KEY';
const HOOK_EVENTS = [
  ['SessionStart', 'session_start'],
  ['UserPromptSubmit', 'user_prompt_submit'],
  ['Stop', 'stop'],
  ['Interrupt', 'interrupt'],
];

const sortKeys = (v) =>
  Array.isArray(v)
    ? v.map(sortKeys)
    : v && typeof v === 'object'
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, sortKeys(v[k])]),
        )
      : v;

/** Codex's hook trust hash (reference codex.md §6.2). */
function trustedHash(eventSnake, command, timeout) {
  const identity = { event_name: eventSnake, hooks: [{ async: false, command, timeout, type: 'command' }] };
  return `sha256:${createHash('sha256')
    .update(JSON.stringify(sortKeys(identity)))
    .digest('hex')}`;
}

/** A fake ChatGPT login (JWTs with the claims Codex reads; never a real token). */
function chatgptAuth() {
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const jwt = (claims) => `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.mock`;
  const exp = Math.floor(Date.now() / 1000) + 365 * 86400;
  const auth = { chatgpt_plan_type: 'plus', chatgpt_account_id: 'acct-umbel-mock', chatgpt_user_id: 'user-umbel-mock' };
  return {
    auth_mode: 'chatgpt',
    OPENAI_API_KEY: null,
    tokens: {
      id_token: jwt({ email: 'mock@example.invalid', exp, 'https://api.openai.com/auth': auth }),
      access_token: jwt({ exp, 'https://api.openai.com/auth': auth }),
      refresh_token: 'rt-umbel-mock',
      account_id: 'acct-umbel-mock',
    },
    last_refresh: new Date().toISOString(),
  };
}

/** config.toml text + auth.json + env of one auth world. */
function codexWorld(world, home, { auth, baseUrl, config: extra = [] }) {
  const hooksJson = {};
  const state = HOOK_EVENTS.flatMap(([event, snake]) => {
    const command = world.hook(event);
    const timeout = snake === 'interrupt' ? 3 : 30;
    hooksJson[event] = [{ hooks: [{ type: 'command', command, timeout }] }];
    return [`[hooks.state."${home}/hooks.json:${snake}:0:0"]`, `trusted_hash = "${trustedHash(snake, command, timeout)}"`, ''];
  });
  writeFileSync(join(home, 'hooks.json'), JSON.stringify({ hooks: hooksJson }));
  const tail = [
    `[projects."${world.work}"]`,
    'trust_level = "trusted"',
    '',
    '[features]',
    'daemon_auto_start = false',
    'unbounded_connection_retries = false',
    'enable_request_compression = false',
    '',
    ...state,
    ...extra,
  ];
  const top = ['check_for_update_on_startup = false'];
  const env = { HOME: world.home, PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm-256color', LANG: 'C.UTF-8', CODEX_HOME: home };
  let config;
  if (auth === 'provider-key') {
    config = codexMockConfig({ baseUrl, envKey: KEY_NAME, topLines: top, tail });
    env[KEY_NAME] = 'sk-umbel-mock-provider-key';
  } else {
    config = [
      'model = "mock-model"',
      ...top,
      `openai_base_url = "${baseUrl}"`,
      `chatgpt_base_url = "${baseUrl.replace(/\/v1$/, '')}/backend-api/"`,
      '',
      ...tail,
    ].join('\n');
    if (auth === 'chatgpt') {
      writeFileSync(join(home, 'auth.json'), JSON.stringify(chatgptAuth()), { mode: 0o600 });
      env.CODEX_REFRESH_TOKEN_URL_OVERRIDE = `${baseUrl.replace(/\/v1$/, '')}/oauth/token`;
    }
    if (auth === 'apikey')
      writeFileSync(join(home, 'auth.json'), JSON.stringify({ auth_mode: 'apikey', OPENAI_API_KEY: 'sk-umbel-mock-stored-key' }), { mode: 0o600 });
    if (auth === 'codex-api-key') env.CODEX_API_KEY = 'sk-umbel-mock-codex-env';
    if (auth === 'openai-api-key') env.OPENAI_API_KEY = 'sk-umbel-mock-openai-env';
  }
  writeFileSync(join(home, 'config.toml'), config);
  return env;
}

/** The rollout records of the newest session, and those of one turn (task_started … task_complete|turn_aborted). */
function rollout(home, turnId) {
  const file = filesUnder(join(home, 'sessions'), /^rollout-.*\.jsonl$/).at(-1);
  if (!file) return { file: undefined, records: [], turn: [] };
  const records = parseJsonl(readFileSync(file, 'utf8'));
  const start = records.findIndex((r) => r.type === 'event_msg' && r.payload?.type === 'task_started' && r.payload.turn_id === turnId);
  const end = records.findIndex(
    (r) => r.type === 'event_msg' && (r.payload?.type === 'task_complete' || r.payload?.type === 'turn_aborted') && r.payload.turn_id === turnId,
  );
  const turn = start < 0 ? [] : records.slice(start, end < 0 ? undefined : end + 1);
  return { file, records, turn };
}

const turnEnded = (records, turnId) =>
  records.find((r) => r.type === 'event_msg' && (r.payload?.type === 'task_complete' || r.payload?.type === 'turn_aborted') && r.payload.turn_id === turnId);

/** The env a recording documents: names only. */
export function envNames(env) {
  return Object.fromEntries(
    Object.keys(env)
      .sort()
      .map((k) => [k, '<set>']),
  );
}

/**
 * One TUI case: launch in `c.auth`'s world, record the startup screen (and `/status` when
 * `c.status`), run `c.prompts` and keep each turn's hooks, rollout records and screen.
 */
export async function codexTuiCase({ codex, mock, c, makeWorld, tmuxHost }) {
  const world = makeWorld(`umbel-acct-codex-${c.name}-`);
  const home = join(world.root, 'codex-home');
  mkdirSync(home, { recursive: true });
  gitInit(world.work);
  const env = codexWorld(world, home, { auth: c.auth, baseUrl: mock.url, config: c.config });
  const host = await tmuxHost({ stateDir: join(world.root, 'state'), cwd: world.work, width: 200, height: 50 });
  const out = { auth: c.auth, env: envNames(env), authJson: readAuthMode(home) };
  try {
    await host.start([codex, '--no-daemon'], env);
    await waitFor('codex ready', async () => /mock-model default|Sign in with ChatGPT|Welcome to Codex/.test(await host.screen()), 60_000).catch(
      async (error) => {
        throw new Error(`${error.message}; the screen:\n${tidyScreen(await host.screen())}`);
      },
    );
    await sleep(1500);
    out.startupScreen = tidyScreen(await host.screen());
    const signIn = /Sign in with ChatGPT/.test(out.startupScreen);
    if (c.status && !signIn) out.statusScreen = await slashStatus(host);
    out.turns = [];
    for (const prompt of signIn ? [] : (c.prompts ?? [])) out.turns.push(await codexTurn(host, world, home, prompt, c));
    if (c.status && !signIn && c.prompts?.length) out.statusScreenAfter = await slashStatus(host);
    out.requests = mock.requests().map((r) => ({ at: r.at, method: r.method, path: r.path, kind: r.kind, prompt: r.prompt }));
    return { out, scrub: [[world.root, '<root>']] };
  } finally {
    await host.stop().catch(() => undefined);
    world.remove();
  }
}

function readAuthMode(home) {
  try {
    return { auth_mode: JSON.parse(readFileSync(join(home, 'auth.json'), 'utf8')).auth_mode };
  } catch {
    return null;
  }
}

/** Type `/status`, capture what it shows, then clear it with Escape. */
async function slashStatus(host) {
  await host.type('/status');
  await sleep(400);
  await host.keys('Enter');
  await sleep(2000);
  const screen = tidyScreen(await host.screen());
  await host.keys('Escape');
  return screen;
}

/** One turn: paste + Enter, wait for task_complete/turn_aborted in the rollout, keep what it left. */
async function codexTurn(host, world, home, prompt, c) {
  const before = world.records().length;
  await host.paste(prompt);
  await sleep(200);
  await host.keys('Enter');
  const submitted = Date.now();
  const mid = (c.midScreenMs ?? []).map((ms) => sleep(ms).then(async () => ({ afterMs: Date.now() - submitted, screen: tidyScreen(await host.screen(60)) })));
  const ups = await waitFor('UserPromptSubmit', () => world.records('UserPromptSubmit').find((r) => r.input.prompt === prompt), 30_000);
  const turnId = ups.input.turn_id;
  await waitFor('task_complete', () => turnEnded(rollout(home).records, turnId), c.timeoutMs ?? 300_000);
  await sleep(800);
  const { turn } = rollout(home, turnId);
  return {
    prompt,
    elapsedMs: Date.now() - submitted,
    ...(mid.length > 0 ? { midScreens: await Promise.all(mid) } : {}),
    hooks: world
      .records()
      .slice(before)
      .map((h) => ({ event: h.kind, payload: h.input })),
    rollout: turn,
    screen: tidyScreen(await host.screen()),
  };
}

/** One `codex exec --json` case: stdout JSONL, stderr, exit code, the rollout of the run. */
export async function codexExecCase({ codex, mock, c, makeWorld }) {
  const world = makeWorld(`umbel-acct-codexexec-${c.name}-`);
  const home = join(world.root, 'codex-home');
  mkdirSync(home, { recursive: true });
  gitInit(world.work);
  const env = codexWorld(world, home, { auth: c.auth, baseUrl: mock.url });
  const started = Date.now();
  try {
    const r = await new Promise((resolve) => {
      const child = spawn(codex, ['exec', '--json', c.prompt], { cwd: world.work, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
    const stderr = r.stderr
      .split('\n')
      .filter((l) => !/could not create PATH aliases|bubblewrap/.test(l))
      .join('\n');
    const out = {
      auth: c.auth,
      env: envNames(env),
      exitCode: r.code,
      elapsedMs: Date.now() - started,
      stdout: parseJsonl(r.stdout),
      stderr,
      rollout: rollout(home).records,
      requests: mock.requests().map((q) => ({ at: q.at, method: q.method, path: q.path, kind: q.kind })),
    };
    return { out, scrub: [[world.root, '<root>']] };
  } finally {
    world.remove();
  }
}
