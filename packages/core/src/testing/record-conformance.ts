/**
 * `recordConformance`: records what the conformance suite (`testProvider`) replays for a provider
 * package — its CLI driven by the real `umbel` CLI on tmux, in four scenarios: an answer, a
 * permission request, an API error, a sign-in screen (the CLI logged out). For each it keeps the
 * screens, the hook payloads and the transcript lines in the order they were written.
 * - Screens: the provider is loaded wrapped (a module written beside its staged copy), which writes
 *   down each screen umbel's startup hands to doDetectStartup with its time and state; the screen a
 *   turn ends on is `umbel capture`, placed before the turn's last hook.
 * - Hook payloads: the files of `$UMBEL_HOME/workers/NAME/events/`.
 * - Transcript: the file `umbel status NAME --json` names; each line's `at` orders it among the hooks.
 * The CLI must call nothing but a local mock of its model service, never a real one.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ProviderRecording, RecordedScenario } from './recording.js';
import { type ObservedScreen, orderSteps, hookSteps, screenSteps, transcriptSteps, withPlaceholders } from './record-steps.js';

/** The three prompts a recording sends, and what umbel must report for each. */
const SCENARIOS = {
  answer: { prompt: 'hello from the recording', expected: 'completed' },
  permission: { prompt: 'ASK notes.txt', expected: 'needs-input' },
  apiError: { prompt: 'FAIL recorded upstream error', expected: 'provider-error' },
} as const;
type ScenarioKey = keyof typeof SCENARIOS;

export interface RecordConformanceOptions {
  /** The provider package's directory; it is built first (`npm run build`) unless `build: false`. */
  readonly packageDir: string;
  readonly build?: boolean;
  /** Its provider id (`--provider`). */
  readonly providerId: string;
  /** The agent CLI, a node script (its bin): run for `--version`, `logout` and `login`. */
  readonly agentBin: string;
  /** The CLI's name as its `--version` starts (`echo-agent 1.2.0` → the recording's `cli`: `echo-agent@1.2.0`). */
  readonly agentName: string;
  /** The CLI's own variables in the scratch world (its binary and home variables), given the scratch root. */
  readonly env: (root: string) => Readonly<Record<string, string>>;
  /** The hook kinds its CLI fires, read from the provider module as built. */
  readonly hookKinds: (module: Record<string, unknown>) => Iterable<string>;
  /** Packages the built provider imports, linked beside its staged copy: name → directory. */
  readonly links: Readonly<Record<string, string>>;
  /** umbel's CLI entry (the `umbel` package's bin script): see `umbelBin`. */
  readonly umbelBin: string;
  /** Where the recording is written (JSON). */
  readonly out: string;
  /** Said in the recording: the script that made it. */
  readonly recordedBy: string;
}

/** An installed package's directory, looked up from `fromDir`; undefined when it is not installed. */
export function installedPackageDir(fromDir: string, name: string): string | undefined {
  try {
    return dirname(createRequire(join(fromDir, 'package.json')).resolve(`${name}/package.json`));
  } catch {
    return undefined;
  }
}

/** The `umbel` bin script of the umbel package in `umbelDir`. */
export function umbelBin(umbelDir: string): string {
  const manifest = JSON.parse(readFileSync(join(umbelDir, 'package.json'), 'utf8')) as { bin: { umbel: string } };
  return join(umbelDir, manifest.bin.umbel);
}

interface World {
  readonly options: RecordConformanceOptions;
  readonly root: string;
  readonly env: Readonly<Record<string, string>>;
  readonly hookKinds: ReadonlySet<string>;
}

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Record the four scenarios into `options.out`; resolves with the recording. */
export async function recordConformance(options: RecordConformanceOptions): Promise<ProviderRecording> {
  if (options.build !== false) {
    const build = spawnSync('npm', ['run', 'build'], { cwd: options.packageDir, stdio: ['ignore', 'inherit', 'inherit'] });
    if (build.status !== 0) throw new Error(`npm run build exited ${build.status}`);
  }
  const root = realpathSync(mkdtempSync(join(tmpdir(), `${options.providerId}-record-conformance-`)));
  try {
    const recording = await record(options, root);
    const text = `${JSON.stringify(recording, null, 1)}\n`;
    if (text.includes(root)) throw new Error(`the recording still names the scratch folder ${root}: a path the placeholders missed`);
    mkdirSync(dirname(options.out), { recursive: true });
    writeFileSync(options.out, text);
    return recording;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function record(options: RecordConformanceOptions, root: string): Promise<ProviderRecording & { recordedBy: string }> {
  const staged = stage(options, root);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: join(root, 'home'),
    LANG: 'C.UTF-8',
    XDG_CONFIG_HOME: join(root, 'config'),
    UMBEL_HOME: join(root, 'state'),
    UMBEL_PROVIDERS: join(staged, 'observed-provider.mjs'),
    ...options.env(root),
    ...(process.env.TMUX_TMPDIR ? { TMUX_TMPDIR: process.env.TMUX_TMPDIR } : {}),
  };
  const module = (await import(pathToFileURL(join(staged, 'dist', 'index.js')).href)) as Record<string, unknown>;
  const world: World = { options, root, env, hookKinds: new Set(options.hookKinds(module)) };
  const version = agent(world, ['--version'], env).replace(new RegExp(`^${escapeRegExp(options.agentName)} `), '');
  return {
    cli: `${options.agentName}@${version}`,
    recordedBy: options.recordedBy,
    answer: await scenario(world, 'answer'),
    permission: await scenario(world, 'permission'),
    apiError: await scenario(world, 'apiError'),
    signIn: await signIn(world),
  };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Each screen umbel's startup hands to doDetectStartup, appended to $UMBEL_RECORD_SCREENS with its time and state. */
const OBSERVED_PROVIDER = `import { appendFileSync } from 'node:fs';
import provider from './dist/index.js';
const log = process.env.UMBEL_RECORD_SCREENS;
const hrStart = process.hrtime.bigint();
const epochStart = BigInt(Date.now()) * 1_000_000n;
const nowNs = () => epochStart + (process.hrtime.bigint() - hrStart);
export default {
  ...provider,
  doDetectStartup(input) {
    const state = provider.doDetectStartup(input);
    if (log) appendFileSync(log, JSON.stringify({ at: String(nowNs()), screen: input.screen, state }) + '\\n');
    return state;
  },
};
`;

/** A copy of the package as umbel would load it: dist/, the watched provider, the linked packages beside. */
function stage(options: RecordConformanceOptions, root: string): string {
  const dir = join(root, 'package');
  for (const [name, target] of Object.entries(options.links)) {
    mkdirSync(dirname(join(dir, 'node_modules', name)), { recursive: true });
    symlinkSync(target, join(dir, 'node_modules', name), 'dir');
  }
  cpSync(join(options.packageDir, 'package.json'), join(dir, 'package.json'));
  cpSync(join(options.packageDir, 'dist'), join(dir, 'dist'), { recursive: true });
  writeFileSync(join(dir, 'observed-provider.mjs'), OBSERVED_PROVIDER);
  return dir;
}

/** Run the umbel CLI with exactly `env` (stdin /dev/null). */
function umbel(world: World, args: readonly string[], env: Readonly<Record<string, string>>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [world.options.umbelBin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 128, stdout, stderr }));
  });
}

async function must(world: World, args: readonly string[], env: Readonly<Record<string, string>>): Promise<string> {
  const result = await umbel(world, args, env);
  if (result.code !== 0) throw new Error(`umbel ${args.slice(0, 2).join(' ')} exited ${result.code}: ${result.stderr.trim() || result.stdout.trim()}`);
  return result.stdout;
}

function agent(world: World, args: readonly string[], env: Readonly<Record<string, string>>): string {
  const run = spawnSync(process.execPath, [world.options.agentBin, ...args], { env, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`${world.options.agentName} ${args.join(' ')} exited ${run.status}: ${run.stderr}`);
  return run.stdout.trim();
}

const readText = (path: string | undefined) => (path && existsSync(path) ? readFileSync(path, 'utf8') : '');
const readObserved = (path: string): ObservedScreen[] =>
  readText(path)
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ObservedScreen);

const eventFiles = (dir: string) => readdirSync(dir).map((name) => ({ name, text: readFileSync(join(dir, name), 'utf8') }));
const sentAt = (dir: string) => BigInt(/^(\d+)-/.exec(readdirSync(dir).find((f) => f.endsWith('-sent.json')) ?? '')?.[1] ?? '0');

/** The pane once it stopped changing. */
async function settledScreen(world: World, name: string, env: Readonly<Record<string, string>>): Promise<string> {
  let last = await must(world, ['capture', name], env);
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setTimeout(r, 250));
    const now = await must(world, ['capture', name], env);
    if (now === last) return now;
    last = now;
  }
  return last;
}

/** Spawn, send the scenario's prompt, wait, and keep what happened, in order. */
async function scenario(world: World, key: ScenarioKey): Promise<RecordedScenario> {
  const { prompt, expected } = SCENARIOS[key];
  const name = key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  const cwd = realpathSync(mkdtempSync(join(world.root, `${name}-`)));
  const screens = join(world.root, `${name}-screens.jsonl`);
  const env = { ...world.env, UMBEL_RECORD_SCREENS: screens };
  await must(world, ['spawn', name, '--provider', world.options.providerId, '--cwd', cwd, '--startup-timeout', '60s'], env);
  try {
    const eventsDir = join(world.env.UMBEL_HOME ?? '', 'workers', name, 'events');
    const { transcriptPath } = JSON.parse(await must(world, ['status', name, '--json'], env)) as { transcriptPath?: string };
    const before = readText(transcriptPath);
    await must(world, ['send', name, prompt], env);
    const waited = await umbel(world, ['wait', name, '--timeout', '60s', '--json'], env);
    const outcome = JSON.parse(waited.stdout) as { reason: string; result?: string; tool?: string; message?: string };
    if (outcome.reason !== expected) throw new Error(`${name}: umbel reported ${outcome.reason}, not ${expected}: ${waited.stdout}`);
    const screen = await settledScreen(world, name, env);
    const sent = sentAt(eventsDir);
    const hooks = hookSteps(eventFiles(eventsDir), world.hookKinds);
    const turn = orderSteps([...transcriptSteps(readText(transcriptPath).slice(before.length)), ...hooks.filter((h) => h.at > sent)]);
    const lastHook = turn.findLastIndex((s) => s.hook);
    turn.splice(lastHook === -1 ? turn.length : lastHook, 0, { screen });
    const startupScreens = screenSteps(readObserved(screens).filter((o) => BigInt(o.at) < sent));
    const recorded: RecordedScenario = {
      startup: orderSteps([...transcriptSteps(before), ...hooks.filter((h) => h.at < sent), ...startupScreens]),
      prompt,
      turn,
      outcome: {
        reason: outcome.reason,
        ...(outcome.result !== undefined ? { answer: outcome.result } : {}),
        ...(outcome.tool ? { tool: outcome.tool } : {}),
        ...(outcome.message ? { message: outcome.message } : {}),
      },
    };
    return withPlaceholders(recorded, { cwd, ...(transcriptPath ? { transcript: transcriptPath } : {}) });
  } finally {
    await umbel(world, ['kill', name, '--purge'], env);
  }
}

/** The sign-in screen: the CLI logged out; umbel's spawn must refuse it with exit 126. */
async function signIn(world: World): Promise<ProviderRecording['signIn']> {
  const cwd = realpathSync(mkdtempSync(join(world.root, 'sign-in-')));
  const screens = join(world.root, 'sign-in-screens.jsonl');
  const env = { ...world.env, UMBEL_RECORD_SCREENS: screens };
  agent(world, ['logout'], env);
  try {
    const spawned = await umbel(world, ['spawn', 'sign-in', '--provider', world.options.providerId, '--cwd', cwd, '--startup-timeout', '60s'], env);
    if (spawned.code !== 126) throw new Error(`a signed-out spawn exited ${spawned.code}, not 126: ${spawned.stderr}`);
  } finally {
    await umbel(world, ['kill', 'sign-in', '--purge'], env);
    agent(world, ['login'], env);
  }
  const seen = readObserved(screens).findLast((o) => o.state.state === 'sign-in');
  if (!seen) throw new Error('umbel refused the spawn, but no screen it saw was a sign-in screen');
  return withPlaceholders({ screen: seen.screen }, { cwd });
}
