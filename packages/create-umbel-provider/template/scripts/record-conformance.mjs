#!/usr/bin/env node
// Records what umbel's conformance suite (`testProvider` from @umbel/core/testing) replays for this
// provider: {{bin}}, driven by the real `umbel` CLI on tmux, in four scenarios — an answer, a
// permission request, an API error (FAIL), a sign-in screen (`{{bin}} logout`). For each it keeps
// the screens, the hook payloads and the transcript lines in the order they were written, as a
// `ProviderRecording`. The worker's folder and transcript path become `{{cwd}}` and `{{transcript}}`,
// which the replay fills in.
//
//   npm run record:conformance      (it builds first) → src/__fixtures__/conformance.json
//
// It needs tmux on PATH and `umbel` installed (a devDependency). Where the parts come from:
// - Screens: the provider is loaded wrapped (scripts/observed-provider.mjs), which writes down each
//   screen umbel's startup hands to doDetectStartup; the screen a turn ends on is `umbel capture`.
// - Hook payloads: the files of `$UMBEL_HOME/workers/NAME/events/`.
// - Transcript: the file `umbel status NAME --json` names; each line's `at` orders it among the hooks.
// For your own CLI: change the prompts, the sign-out step and the variables below, and point the
// CLI at a local mock of its model service, never at a real one.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const PACKAGE = join(dirname(fileURLToPath(import.meta.url)), '..');
const AGENT = join(PACKAGE, 'bin', '{{bin}}.js');
const OUT = join(PACKAGE, 'src', '__fixtures__', 'conformance.json');
const PROMPTS = { answer: 'hello from the recording', permission: 'ASK notes.txt', apiError: 'FAIL recorded upstream error' };
const EXPECTED = { answer: 'completed', permission: 'needs-input', apiError: 'provider-error' };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** An installed package's directory. */
function packageDir(name) {
  try {
    return dirname(createRequire(join(PACKAGE, 'package.json')).resolve(`${name}/package.json`));
  } catch {
    throw new Error(`${name} is not installed: npm install --save-dev ${name}`);
  }
}

const KIT = packageDir('@umbel/provider');
const UMBEL_DIR = packageDir('umbel');
const UMBEL = join(UMBEL_DIR, JSON.parse(readFileSync(join(UMBEL_DIR, 'package.json'), 'utf8')).bin.umbel);

/** A copy of this package as umbel would load it (dist/, the watched provider, @umbel/provider beside). */
function stage(root) {
  const dir = join(root, 'package');
  mkdirSync(join(dir, 'node_modules', '@umbel'), { recursive: true });
  symlinkSync(KIT, join(dir, 'node_modules', '@umbel', 'provider'), 'dir');
  cpSync(join(PACKAGE, 'package.json'), join(dir, 'package.json'));
  cpSync(join(PACKAGE, 'dist'), join(dir, 'dist'), { recursive: true });
  mkdirSync(join(dir, 'scripts'));
  cpSync(join(PACKAGE, 'scripts', 'observed-provider.mjs'), join(dir, 'scripts', 'observed-provider.mjs'));
  return dir;
}

/** Run the umbel CLI with exactly `env` (stdin /dev/null); resolves with its exit code and output. */
function umbel(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [UMBEL, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 128, stdout, stderr }));
  });
}

function must(result, what) {
  if (result.code !== 0) throw new Error(`umbel ${what} exited ${result.code}: ${result.stderr.trim() || result.stdout.trim()}`);
  return result.stdout;
}

const readText = (path) => (path && existsSync(path) ? readFileSync(path, 'utf8') : '');
const readJsonl = (path) =>
  readText(path)
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));

/** Hook events of a worker (umbel's own events left out), with their time. */
function hooksOf(eventsDir, kinds) {
  return readdirSync(eventsDir)
    .sort()
    .flatMap((file) => {
      const m = /^(\d+)-\d+-(.+)\.json$/.exec(file);
      if (!m || !kinds.has(m[2])) return [];
      return [{ at: BigInt(m[1]), rank: 1, step: { hook: { kind: m[2], payload: JSON.parse(readFileSync(join(eventsDir, file), 'utf8')) } } }];
    });
}

const sentAt = (eventsDir) => BigInt(/^(\d+)-/.exec(readdirSync(eventsDir).find((f) => f.endsWith('-sent.json')) ?? '')?.[1] ?? '0');

/** Transcript text as steps, one per line, timed by the line's `at`. */
function transcriptItems(text) {
  let at = 0n;
  return text
    .split(/(?<=\n)/)
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const stamp = Date.parse(JSON.parse(line).at ?? '');
      if (Number.isFinite(stamp)) at = BigInt(stamp) * 1_000_000n;
      return { at, rank: 0, step: { transcript: line } };
    });
}

/** The screens umbel's startup looked at: each change once, a dialog followed by its keys. */
function screenItems(observed) {
  const items = [];
  for (const [i, seen] of observed.entries()) {
    const next = observed[i + 1];
    if (observed[i - 1]?.screen !== seen.screen) items.push({ at: BigInt(seen.at), rank: 2, step: { screen: seen.screen } });
    if (next?.screen !== seen.screen && seen.state.state === 'dialog') items.push({ at: BigInt(seen.at) + 1n, rank: 3, step: { keys: seen.state.keys } });
  }
  return items;
}

/** Items in time order (a transcript line before a hook of the same instant), adjacent transcript lines joined. */
function steps(items) {
  const out = [];
  for (const { step } of [...items].sort((a, b) => (a.at === b.at ? a.rank - b.rank : a.at < b.at ? -1 : 1))) {
    const last = out.at(-1);
    if (step.transcript !== undefined && last?.transcript !== undefined) out[out.length - 1] = { transcript: last.transcript + step.transcript };
    else out.push(step);
  }
  return out;
}

/** The pane once it stopped changing. */
async function settledScreen(name, env) {
  let last = must(await umbel(['capture', name], env), `capture ${name}`);
  for (let i = 0; i < 20; i++) {
    await sleep(250);
    const now = must(await umbel(['capture', name], env), `capture ${name}`);
    if (now === last) return now;
    last = now;
  }
  return last;
}

function placeholders(value, { cwd, transcript }) {
  let text = JSON.stringify(value);
  if (transcript) text = text.split(transcript).join('{{transcript}}');
  return JSON.parse(text.split(cwd).join('{{cwd}}'));
}

/** Spawn, send the prompt, wait, and keep what happened, in order. */
async function scenario(world, key) {
  const name = key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`); // a worker name: a-z, 0-9, -
  const cwd = realpathSync(mkdtempSync(join(world.root, `${name}-`)));
  const screens = join(world.root, `${name}-screens.jsonl`);
  const env = { ...world.env, UMBEL_RECORD_SCREENS: screens };
  must(await umbel(['spawn', name, '--provider', '{{id}}', '--cwd', cwd, '--startup-timeout', '60s'], env), `spawn ${name}`);
  try {
    const eventsDir = join(world.env.UMBEL_HOME, 'workers', name, 'events');
    const { transcriptPath } = JSON.parse(must(await umbel(['status', name, '--json'], env), `status ${name}`));
    const before = readText(transcriptPath);
    must(await umbel(['send', name, PROMPTS[key]], env), `send ${name}`);
    const waited = await umbel(['wait', name, '--timeout', '60s', '--json'], env);
    const outcome = JSON.parse(waited.stdout);
    if (outcome.reason !== EXPECTED[key]) throw new Error(`${name}: umbel reported ${outcome.reason}, not ${EXPECTED[key]}: ${waited.stdout}`);
    const screen = await settledScreen(name, env);
    const sent = sentAt(eventsDir);
    const hooks = hooksOf(eventsDir, world.hookKinds);
    const turn = steps([...transcriptItems(readText(transcriptPath).slice(before.length)), ...hooks.filter((h) => h.at > sent)]);
    turn.splice(turn.findLastIndex((s) => s.hook) === -1 ? turn.length : turn.findLastIndex((s) => s.hook), 0, { screen });
    const recorded = {
      startup: steps([...transcriptItems(before), ...hooks.filter((h) => h.at < sent), ...screenItems(readJsonl(screens).filter((o) => BigInt(o.at) < sent))]),
      prompt: PROMPTS[key],
      turn,
      outcome: {
        reason: outcome.reason,
        ...(outcome.result !== undefined ? { answer: outcome.result } : {}),
        ...(outcome.tool ? { tool: outcome.tool } : {}),
        ...(outcome.message ? { message: outcome.message } : {}),
      },
    };
    return placeholders(recorded, { cwd, transcript: transcriptPath });
  } finally {
    await umbel(['kill', name, '--purge'], env);
  }
}

function agent(args, env) {
  const run = spawnSync(process.execPath, [AGENT, ...args], { env, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`{{bin}} ${args.join(' ')} exited ${run.status}: ${run.stderr}`);
  return run.stdout.trim();
}

/** The sign-in screen: {{bin}} logged out; umbel's spawn must refuse it with exit 126. */
async function signIn(world) {
  const cwd = realpathSync(mkdtempSync(join(world.root, 'sign-in-')));
  const screens = join(world.root, 'sign-in-screens.jsonl');
  const env = { ...world.env, UMBEL_RECORD_SCREENS: screens };
  agent(['logout'], env);
  try {
    const spawned = await umbel(['spawn', 'sign-in', '--provider', '{{id}}', '--cwd', cwd, '--startup-timeout', '60s'], env);
    if (spawned.code !== 126) throw new Error(`a signed-out spawn exited ${spawned.code}, not 126: ${spawned.stderr}`);
  } finally {
    await umbel(['kill', 'sign-in', '--purge'], env);
    agent(['login'], env);
  }
  const seen = readJsonl(screens).findLast((o) => o.state.state === 'sign-in');
  if (!seen) throw new Error('umbel refused the spawn, but no screen it saw was a sign-in screen');
  return placeholders({ screen: seen.screen }, { cwd });
}

async function record(root) {
  const staged = stage(root);
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: join(root, 'home'),
    LANG: 'C.UTF-8',
    XDG_CONFIG_HOME: join(root, 'config'),
    UMBEL_HOME: join(root, 'state'),
    UMBEL_PROVIDERS: join(staged, 'scripts', 'observed-provider.mjs'),
    '{{binEnv}}': AGENT,
    '{{homeEnv}}': join(root, 'agent-home'),
    ...(process.env.TMUX_TMPDIR ? { TMUX_TMPDIR: process.env.TMUX_TMPDIR } : {}),
  };
  const { facts } = await import(pathToFileURL(join(staged, 'dist', 'index.js')).href);
  const world = { root, env, hookKinds: new Set(Object.values(facts.hooks.events)) };
  const recording = {
    cli: `{{bin}}@${agent(['--version'], env).replace(/^{{bin}} /, '')}`,
    recordedBy: 'scripts/record-conformance.mjs',
    answer: await scenario(world, 'answer'),
    permission: await scenario(world, 'permission'),
    apiError: await scenario(world, 'apiError'),
    signIn: await signIn(world),
  };
  const text = `${JSON.stringify(recording, null, 1)}\n`;
  if (text.includes(root)) throw new Error(`the recording still names the scratch folder ${root}: a path the placeholders missed`);
  return text;
}

const build = spawnSync('npm', ['run', 'build'], { cwd: PACKAGE, stdio: ['ignore', 'inherit', 'inherit'] });
if (build.status !== 0) throw new Error(`npm run build exited ${build.status}`);
const root = realpathSync(mkdtempSync(join(tmpdir(), '{{id}}-record-conformance-')));
try {
  const recording = await record(root);
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, recording);
  process.stdout.write(`recorded the answer, permission, API error and sign-in scenarios into ${OUT}\n`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
