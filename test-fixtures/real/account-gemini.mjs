// Drives the REAL pinned Gemini CLI (TUI and `gemini -p`) through one account case for
// record-account.mjs. Auth worlds (`auth`):
//   api-key        settings security.auth.selectedType "gemini-api-key" + GEMINI_API_KEY (API billing)
//   api-key-missing  selectedType "gemini-api-key", no GEMINI_API_KEY
//   unset          no selectedType; GEMINI_API_KEY and GOOGLE_GEMINI_BASE_URL in the env (the CLI derives it)
//   vertex         no selectedType; GOOGLE_GENAI_USE_VERTEXAI=true + GOOGLE_API_KEY + GOOGLE_VERTEX_BASE_URL
//   google         selectedType "oauth-personal" (Sign in with Google) with no cached login
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJsonl, sleep, tidyScreen, waitFor } from './account-harness.mjs';

const HOOK_EVENTS = ['SessionStart', 'BeforeAgent', 'AfterAgent', 'Notification', 'SessionEnd'];
const READY = /Type your message|How would you like to authenticate|Enter Gemini API Key|Enter the authorization code|Waiting for auth/;

/** settings.json + trustedFolders.json + env of one auth world. */
function geminiWorld(world, { auth, baseUrl, maxAttempts, telemetry }) {
  const dir = join(world.home, '.gemini');
  mkdirSync(dir, { recursive: true });
  const selected = { 'api-key': 'gemini-api-key', 'api-key-missing': 'gemini-api-key', google: 'oauth-personal' }[auth];
  const hooks = Object.fromEntries(
    HOOK_EVENTS.map((e) => [e, [{ matcher: '', hooks: [{ name: `rec-${e}`, type: 'command', command: world.hook(e), timeout: 10000 }] }]]),
  );
  const settings = {
    ...(selected ? { security: { auth: { selectedType: selected } } } : {}),
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, ...(maxAttempts ? { maxAttempts } : {}) },
    privacy: { usageStatisticsEnabled: false },
    model: { disableLoopDetection: true },
    ui: { hideTips: true },
    hooks,
    // the CLI's own record of every API attempt (ACCOUNT-FACTS.md §3.2), when the case asks for it
    ...(telemetry ? { telemetry: { enabled: true, target: 'local', outfile: telemetryFile(world), logPrompts: false, useCollector: false } } : {}),
  };
  writeFileSync(join(dir, 'settings.json'), JSON.stringify(settings));
  writeFileSync(join(dir, 'trustedFolders.json'), JSON.stringify({ [world.work]: 'TRUST_FOLDER' }));
  const env = {
    HOME: world.home,
    GEMINI_CLI_HOME: world.home,
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    TERM: 'xterm-256color',
    COLORTERM: 'truecolor',
    LANG: 'C.UTF-8',
    GEMINI_CLI_NO_RELAUNCH: 'true',
    TMPDIR: join(world.root, 'tmp'),
  };
  mkdirSync(env.TMPDIR, { recursive: true });
  if (auth === 'vertex') Object.assign(env, { GOOGLE_GENAI_USE_VERTEXAI: 'true', GOOGLE_API_KEY: 'umbel-mock-google-key', GOOGLE_VERTEX_BASE_URL: baseUrl });
  else env.GOOGLE_GEMINI_BASE_URL = baseUrl;
  if (auth === 'api-key' || auth === 'unset') env.GEMINI_API_KEY = 'umbel-mock-gemini-key';
  return env;
}

/** Where a world's CLI writes its local telemetry. */
function telemetryFile(world) {
  return join(world.root, 'telemetry.log');
}

/** The main-model api_* log records' attributes of the world's telemetry file, oldest first. */
function telemetryRecords(world) {
  let text;
  try {
    text = readFileSync(telemetryFile(world), 'utf8');
  } catch {
    return [];
  }
  return text
    .split(/\n(?=\{\n)/)
    .filter((chunk) => chunk.includes('"gemini_cli.api_'))
    .map((chunk) => JSON.parse(chunk).attributes)
    .filter((a) => a.role === 'main');
}

/** The env a recording documents: names only. */
function envNames(env) {
  return Object.fromEntries(
    Object.keys(env)
      .sort()
      .map((k) => [k, '<set>']),
  );
}

/** The chat records written since `since` lines of the transcript (all when absent). */
function chatRecords(path) {
  try {
    return parseJsonl(readFileSync(path, 'utf8'));
  } catch {
    return [];
  }
}

/**
 * One TUI case: launch in `c.auth`'s world, record the startup screen, run `c.prompts` (each until
 * AfterAgent, or until the CLI is idle again), keep hooks, chat records and screens.
 */
export async function geminiTuiCase({ gemini, mock, c, makeWorld, tmuxHost }) {
  const world = makeWorld(`umbel-acct-gemini-${c.name}-`);
  const env = geminiWorld(world, { auth: c.auth, baseUrl: mock.url, maxAttempts: c.maxAttempts, telemetry: c.telemetry });
  const host = await tmuxHost({ stateDir: join(world.root, 'state'), cwd: world.work, width: 200, height: 50 });
  const out = { auth: c.auth, env: envNames(env), settingsAuth: c.auth };
  try {
    await host.start([gemini], env);
    await waitFor('gemini ready', async () => READY.test(await host.screen()), 60_000).catch(async (error) => {
      throw new Error(`${error.message}; the screen:\n${tidyScreen(await host.screen())}`);
    });
    await sleep(2500);
    out.startupScreen = tidyScreen(await host.screen());
    out.turns = [];
    const ready = /Type your message/.test(out.startupScreen);
    for (const prompt of ready ? (c.prompts ?? []) : []) out.turns.push(await geminiTurn(host, world, prompt, c));
    out.errorReports = countReports(env.TMPDIR);
    if (c.telemetry) {
      await sleep(6000); // the real CLI writes its log records in batches ~5 s apart
      out.telemetry = telemetryRecords(world);
    }
    out.requests = mock.requests().map((r) => ({ time: r.time, method: r.method, path: r.path, model: r.model, kind: r.kind, prompt: r.prompt }));
    return { out, scrub: [[world.root, '<root>']] };
  } finally {
    await host.stop().catch(() => undefined);
    world.remove();
  }
}

/** The CLI's `gemini-client-error-*.json` reports in its TMPDIR: how many, and the first one. */
function countReports(dir) {
  const files = readdirSync(dir).filter((f) => f.startsWith('gemini-client-error-'));
  const first = files.sort()[0];
  let sample;
  try {
    sample = first ? JSON.parse(readFileSync(join(dir, first), 'utf8')) : undefined;
  } catch {
    sample = undefined;
  }
  return { count: files.length, ...(sample ? { first: sample } : {}) };
}

/**
 * One turn: paste, wait 250 ms, Enter (again when no BeforeAgent follows: the fast-Enter trap,
 * gemini.md §6); then AfterAgent. A dialog matching `c.dialog` is answered with `c.dialogKeys`; with
 * no AfterAgent after `c.cancelAfterMs` the screen is kept and Escape cancels the turn.
 */
async function geminiTurn(host, world, prompt, c) {
  const before = world.records().length;
  await host.paste(prompt);
  await sleep(250);
  await host.keys('Enter');
  const submitted = Date.now();
  const began = () =>
    world
      .records()
      .slice(before)
      .find((r) => r.kind === 'BeforeAgent');
  if (!(await waitFor('BeforeAgent', began, 3_000).catch(() => undefined))) {
    await host.keys('Enter');
    await waitFor('BeforeAgent', began, 20_000).catch(() => undefined);
  }
  const mid = (c.midScreenMs ?? []).map((ms) => sleep(ms).then(async () => ({ afterMs: Date.now() - submitted, screen: tidyScreen(await host.screen(60)) })));
  const ended = () =>
    world
      .records()
      .slice(before)
      .find((r) => r.kind === 'AfterAgent');
  const extra = {};
  if (c.dialog) extra.dialogScreen = await answerDialog(host, c);
  let after = await waitFor('AfterAgent', ended, c.cancelAfterMs ?? c.timeoutMs ?? 300_000).catch(() => undefined);
  if (!after && c.cancelAfterMs) {
    extra.stillWorkingAfterMs = Date.now() - submitted;
    extra.stillWorkingScreen = tidyScreen(await host.screen(60));
    await host.keys('Escape');
    after = await waitFor('AfterAgent after Escape', ended, 30_000).catch(() => undefined);
  }
  await sleep(1000);
  const hooks = world.records().slice(before);
  const path = hooks.find((h) => h.input?.transcript_path)?.input.transcript_path;
  return {
    prompt,
    elapsedMs: (after?.at ?? Date.now()) - submitted,
    afterAgent: Boolean(after),
    ...extra,
    ...(mid.length > 0 ? { midScreens: await Promise.all(mid) } : {}),
    hooks: hooks.filter((h) => h.kind !== 'SessionStart').map((h) => ({ event: h.kind, payload: h.input })),
    chat: path
      ? chatRecords(path).filter((r) => r.type === 'user' || r.type === 'gemini' || r.type === 'error' || r.type === 'info' || r.type === 'warning')
      : [],
    screen: tidyScreen(await host.screen()),
  };
}

/**
 * Answer the dialog matching `c.dialog` with `c.dialogKeys`; its screen before the keys. On a loaded
 * machine the dialog is drawn before it takes keys (keys pressed at once were lost, and the turn
 * never ended): its options are waited for, then a moment; keys that left it on screen with its
 * selection unmoved are pressed again, and a selection that moved without its Enter gets the Enter.
 */
async function answerDialog(host, c) {
  const shown = async () => new RegExp(c.dialog).test(await host.screen());
  await waitFor('the dialog', shown, 60_000);
  await waitFor("the dialog's options", async () => /● 1\./.test(await host.screen()), 30_000).catch(() => undefined);
  await sleep(1000);
  const screen = tidyScreen(await host.screen());
  const keys = c.dialogKeys ?? [];
  for (let attempt = 0; attempt < 3; attempt++) {
    for (const k of keys) {
      await host.keys(k);
      await sleep(300);
    }
    const answered = await waitFor('the dialog answered', async () => !(await shown()), 15_000).then(
      () => true,
      () => false,
    );
    if (answered) break;
    if (!/● 1\./.test(await host.screen())) {
      await host.keys(keys.at(-1) ?? 'Enter');
      break;
    }
  }
  return screen;
}

/** One `gemini -p PROMPT [-o json|stream-json]` case. */
export async function geminiPrintCase({ gemini, mock, c, makeWorld }) {
  const world = makeWorld(`umbel-acct-geminip-${c.name}-`);
  const env = geminiWorld(world, { auth: c.auth, baseUrl: mock.url, maxAttempts: c.maxAttempts });
  const args = ['-p', c.prompt, ...(c.format ? ['-o', c.format] : [])];
  const started = Date.now();
  try {
    const r = await new Promise((resolve) => {
      const child = spawn(gemini, args, { cwd: world.work, env, stdio: ['ignore', 'pipe', 'pipe'] });
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
    const parsed = c.format === 'json' ? tryJson(r.stdout) : c.format === 'stream-json' ? parseJsonl(r.stdout) : r.stdout;
    const stderrJson = c.format ? lastJsonObject(r.stderr) : undefined;
    const out = {
      auth: c.auth,
      env: envNames(env),
      args,
      exitCode: r.code,
      elapsedMs: Date.now() - started,
      stdout: parsed,
      stderr: r.stderr,
      ...(stderrJson ? { stderrJson } : {}),
    };
    out.requests = mock.requests().map((q) => ({ time: q.time, method: q.method, path: q.path, model: q.model, kind: q.kind }));
    return { out, scrub: [[world.root, '<root>']] };
  } finally {
    world.remove();
  }
}

function tryJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The last `{…}` JSON object printed on its own (gemini -o json puts its error JSON on stderr). */
function lastJsonObject(text) {
  const start = text.lastIndexOf('\n{');
  const from = start >= 0 ? start + 1 : text.startsWith('{') ? 0 : -1;
  if (from < 0) return undefined;
  for (let end = text.length; end > from; end = text.lastIndexOf('}', end - 1)) {
    const v = tryJson(text.slice(from, end + 1));
    if (v && typeof v === 'object') return v;
    if (end <= from) break;
  }
  return undefined;
}
