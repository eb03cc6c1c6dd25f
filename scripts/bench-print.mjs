// The `-p` part of `pnpm bench` (see scripts/bench.mjs): for each real CLI that is installed, on its
// local mock model server, with the same prompt and answer, p50 of "answer printed" and of "process
// exit" (what a script that waits for the process — `$(umbel -p …)`, `subprocess.run` — feels):
//
//   direct      the CLI's own print mode (claude -p, codex exec, gemini -p, copilot -p, qwen -p)
//   floor       the bare TUI: the same binary, flags and hooks launched by the tmux substrate alone with
//               the prompt as its argument (no umbel process, no readiness wait, no paste), to the Stop hook
//   cold        umbel -p, no pool
//   warm        umbel -p through a warm pool (the pool full before each call)
//   loop        back-to-back umbel -p on a pool of 2 (no pause: how many found a warm worker)
//
// and the two ratios the issue sets, on process exit: warm / direct (target ≤ 0.8) and cold / floor
// (target ≤ 1.25; the floor ends at the Stop hook: it has no process of its own to exit). The same
// ratios on "answer printed" are printed beside them.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * @param {{root: string, scratch: string, bin: string, runs: number, report: Function, pct: Function, ms: Function, epochNs: Function, eventsIn: Function, providers: string[], loopOnly?: boolean}} b
 *   `loopOnly`: only the back-to-back count (`pnpm bench --only print-loop`)
 */
export async function benchPrint(b) {
  const imp = (rel) => import(pathToFileURL(join(b.root, rel)).href);
  const { realCliPath } = await imp('test-fixtures/real/clis.mjs');
  const core = await imp('packages/core/dist/index.js');
  const { createTmuxSubstrate } = await imp('packages/tmux/dist/index.js');
  const setups = { claude: claudeSetup, codex: codexSetup, gemini: geminiSetup, copilot: copilotSetup, qwen: qwenSetup, opencode: opencodeSetup };
  const summary = [];
  for (const id of b.providers) {
    let cli;
    try {
      cli = realCliPath(id);
    } catch (error) {
      console.log(`\n${id}: skipped (${error.message.split('\n')[0]})`);
      continue;
    }
    const dir = join(b.scratch, `print-${id}`);
    mkdirSync(dir, { recursive: true });
    const setup = await setups[id]({ b, imp, cli, dir });
    try {
      // a CLI without a bare-TUI floor (opencode) gets the back-to-back count only
      if (!b.loopOnly && !setup.withPrompt) console.log(`\n${id}: no bare-TUI floor wired: the back-to-back count only`);
      const loop = b.loopOnly || !setup.withPrompt;
      summary.push(await (loop ? loopOnly(b, setup) : benchProvider(b, core, createTmuxSubstrate, setup)));
    } catch (error) {
      console.log(`\n${id}: failed (${error.message})`);
    } finally {
      await setup.close();
    }
  }
  if (summary.length) {
    console.log('\nsummary (p50; the targets are on process exit; one run):');
    for (const s of summary) console.log(`  ${s}`);
  }
}

/** Run `cmd argv` with exactly `env`, stdin closed; the time its first line was printed and the exit. */
function run(cmd, argv, { env, cwd }) {
  return new Promise((resolve, reject) => {
    const t = process.hrtime.bigint();
    let answerMs;
    let out = '';
    let err = '';
    const child = spawn(cmd, argv, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.end();
    child.stdout.setEncoding('utf8').on('data', (d) => {
      out += d;
      if (answerMs === undefined && out.endsWith('\n')) answerMs = Number(process.hrtime.bigint() - t) / 1e6;
    });
    child.stderr.setEncoding('utf8').on('data', (d) => {
      err += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`${cmd} ${argv[0]} … exited ${code}: ${out}${err}`.slice(0, 2000)));
      else resolve({ answerMs, exitMs: Number(process.hrtime.bigint() - t) / 1e6, out });
    });
  });
}

async function benchProvider(b, core, createTmuxSubstrate, s) {
  const n = Math.min(b.runs, 20);
  const umbel = (home, argv) => run(process.execPath, [b.bin, ...argv], { env: { ...s.umbelEnv, UMBEL_HOME: home }, cwd: s.work });
  const coldHome = join(s.dir, 'cold-state');
  const warmHome = join(s.dir, 'warm-state');
  const f = { direct: [], floor: [], cold: [], warm: [], directExit: [], coldExit: [], warmExit: [] };
  const expect = (r, text, who) => {
    if (r.out !== `${text}\n`) throw new Error(`${who}: unexpected answer ${JSON.stringify(r.out)}`);
  };
  const started = await umbel(warmHome, ['pool', 'start', '--size', '2', ...s.args, '--json']);
  const pool = JSON.parse(started.out).name;
  const poolDir = join(warmHome, 'pools', pool);
  const full = async () => {
    for (const until = Date.now() + 120_000; Date.now() < until; await sleep(25)) {
      const quiet = !existsSync(join(poolDir, 'refill.lock')) && readdirSync(join(poolDir, 'starting')).length === 0;
      // claimed/ empty: the last call's detached teardown is done too
      if (quiet && readdirSync(join(poolDir, 'idle')).length === 2 && readdirSync(join(poolDir, 'claimed')).length === 0) return;
    }
    throw new Error('the pool did not fill up again');
  };
  // The last cold call's detached teardown done (its anonymous worker gone), so none runs beside a measured call.
  const coldQuiet = async () => {
    const dir = join(coldHome, 'workers');
    for (const until = Date.now() + 60_000; Date.now() < until; await sleep(25)) {
      if (!existsSync(dir) || !readdirSync(dir).some((n) => n.startsWith('anon-'))) return;
    }
    throw new Error('the last cold call was not torn down');
  };
  const floor = bareFloor(b, core, createTmuxSubstrate, s);
  for (let i = 0; i < n; i++) {
    // Each measured call runs with no refill in the background.
    await full();
    const w = await umbel(warmHome, ['-p', `ECHO warm ${i}`, ...s.args]);
    expect(w, `warm ${i}`, 'umbel -p (warm)');
    f.warm.push(w.answerMs);
    f.warmExit.push(w.exitMs);
    await full();
    const d = await s.direct(`ECHO direct ${i}`);
    expect(d, `direct ${i}`, s.directName);
    f.direct.push(d.answerMs);
    f.directExit.push(d.exitMs);
    const c = await umbel(coldHome, ['-p', `ECHO cold ${i}`, ...s.args]);
    expect(c, `cold ${i}`, 'umbel -p (cold)');
    f.cold.push(c.answerMs);
    f.coldExit.push(c.exitMs);
    await coldQuiet();
    f.floor.push(await floor.once(`ECHO floor ${i}`, i));
  }
  // Back to back: what a loop of calls gets from a pool of 2 whose refills run meanwhile.
  await full();
  const { loop, warmHits } = await backToBack(umbel, warmHome, pool, s, n);
  await umbel(warmHome, ['pool', 'stop']);
  await floor.close();
  const parts = await breakdown(b, core, createTmuxSubstrate, s, Math.min(n, 5));
  const p50 = (xs) => b.pct(xs, 50);
  console.log('');
  b.report(`${s.directName} (real, mock API): answer printed`, f.direct);
  b.report(`${s.directName} (real, mock API): process exit`, f.directExit);
  b.report(`bare ${s.id} TUI, no umbel: launch with prompt → Stop`, f.floor);
  b.report(`umbel -p --provider ${s.id}, cold: answer printed`, f.cold);
  b.report(`umbel -p --provider ${s.id}, cold: process exit`, f.coldExit);
  b.report(`umbel -p --provider ${s.id}, warm pool: answer printed`, f.warm);
  b.report(`umbel -p --provider ${s.id}, warm pool: process exit`, f.warmExit);
  // the "exits at once": each call's exit − its answer, p50 (not a difference of p50s)
  const gap = (exits, answers) => exits.map((x, i) => x - answers[i]);
  b.report(`${s.directName}: answer printed → process exit`, gap(f.directExit, f.direct));
  b.report(`umbel -p --provider ${s.id}, cold: answer printed → process exit`, gap(f.coldExit, f.cold));
  b.report(`umbel -p --provider ${s.id}, warm pool: answer printed → process exit`, gap(f.warmExit, f.warm));
  b.report(`umbel -p back to back on a pool of 2: process exit`, loop);
  console.log(`where the time of one ${s.id} call goes (in-process engine, p50 from event timestamps):`);
  for (const [name, xs] of Object.entries(parts)) if (xs.length) b.report(`  ${name}`, xs);
  const inProcess = p50(parts['warm: claim → answer read (in-process)']);
  console.log(`  node start, module loading, argv and printing (a warm call's answer − its in-process part): ~${(p50(f.warm) - inProcess).toFixed(0)}ms`);
  const r = (a, c) => (p50(a) / p50(c)).toFixed(2);
  const line =
    `${s.id}, process exit: warm umbel -p / ${s.directName} ${r(f.warmExit, f.directExit)} (target ≤ 0.8); cold umbel -p / bare TUI ${r(f.coldExit, f.floor)} (target ≤ 1.25); ` +
    `answer printed: warm ${r(f.warm, f.direct)}, cold ${r(f.cold, f.floor)}; back to back ${warmHits}/${n} warm; ` +
    `answer → exit p50 (target ≤ 30 ms): cold ${p50(gap(f.coldExit, f.cold)).toFixed(0)} ms, warm ${p50(gap(f.warmExit, f.warm)).toFixed(0)} ms`;
  console.log(line);
  return line;
}

/** `n` calls back to back on the pool (no pause between them): each one's process exit, and how many were warm. */
async function backToBack(umbel, home, pool, s, n) {
  const loop = [];
  let warmHits = 0;
  for (let i = 0; i < n; i++) {
    const r = await umbel(home, ['-p', `ECHO loop ${i}`, ...s.args, '--output-format', 'json']);
    const out = JSON.parse(r.out);
    if (out.result !== `loop ${i}`) throw new Error(`loop: unexpected answer ${r.out}`);
    if (out.worker.startsWith(`${pool}-`)) warmHits++;
    loop.push(r.exitMs);
  }
  return { loop, warmHits };
}

/** `--only print-loop`: a pool of 2, then only the back-to-back calls. */
async function loopOnly(b, s) {
  const n = Math.min(b.runs, 20);
  const home = join(s.dir, 'loop-state');
  const umbel = (h, argv) => run(process.execPath, [b.bin, ...argv], { env: { ...s.umbelEnv, UMBEL_HOME: h }, cwd: s.work });
  const pool = JSON.parse((await umbel(home, ['pool', 'start', '--size', '2', ...s.args, '--json'])).out).name;
  try {
    const { loop, warmHits } = await backToBack(umbel, home, pool, s, n);
    b.report(`umbel -p --provider ${s.id} back to back on a pool of 2: process exit`, loop);
    return `${s.id}: back to back ${warmHits}/${n} warm`;
  } finally {
    await umbel(home, ['pool', 'stop']);
  }
}

/** Where the time goes, in-process, from the engine's own event timestamps: a cold spawn → answer, and a warm claim → answer. */
async function breakdown(b, core, createTmuxSubstrate, s, runs) {
  const home = join(s.dir, 'parts-state');
  const env = { ...s.umbelEnv, UMBEL_HOME: home };
  let launchAt = 0n;
  const sub = createTmuxSubstrate({ home, env });
  const timed = {
    ...sub,
    launch: async (o) => {
      launchAt = b.epochNs();
      return sub.launch(o);
    },
  };
  const engine = core.createUmbel({ substrate: timed, providers: [s.provider], home, env });
  const d = (a, c) => (a === undefined || c === undefined ? Number.NaN : Number(c - a) / 1e6);
  const at = (name, kind) => b.eventsIn(join(home, 'workers', name, 'events')).find((e) => e.kind === kind)?.at;
  const parts = {
    'umbel: spawn call → tmux launch': [],
    'TUI: launch → session hook': [],
    'umbel: launch → ready screen seen': [],
    'send: sent → prompt accepted (hook)': [],
    'turn: prompt accepted → Stop hook': [],
    'umbel: Stop hook → answer read': [],
    'teardown (after the answer)': [],
    'warm: claim → answer read (in-process)': [],
  };
  const spawnOptions = { provider: s.id, cwd: s.work, env: s.explicitEnv };
  const one = async (name, prompt) => {
    const { turn } = await engine.send({ name, prompt });
    const o = await engine.wait({ name, turn, timeout: '2m' });
    if (o.reason !== 'completed') throw new Error(`breakdown: ${o.reason} ${o.message ?? ''}`);
  };
  for (let i = 0; i < runs; i++) {
    const t0 = b.epochNs();
    const w = await engine.spawn(spawnOptions);
    const ready = b.epochNs();
    await one(w.name, `ECHO part ${i}`);
    const answered = b.epochNs();
    const [session, sent, prompt, stop] = ['session', 'sent', 'prompt', 'stop'].map((k) => at(w.name, k));
    await engine.kill({ name: w.name, purge: true });
    parts['umbel: spawn call → tmux launch'].push(d(t0, launchAt));
    parts['TUI: launch → session hook'].push(d(launchAt, session));
    parts['umbel: launch → ready screen seen'].push(d(launchAt, ready));
    parts['send: sent → prompt accepted (hook)'].push(d(sent, prompt));
    parts['turn: prompt accepted → Stop hook'].push(d(prompt, stop));
    parts['umbel: Stop hook → answer read'].push(d(stop, answered));
    parts['teardown (after the answer)'].push(d(answered, b.epochNs()));
  }
  const pool = await engine.pool.start({ ...spawnOptions, size: 1 });
  for (let i = 0; i < runs; i++) {
    await engine.pool.refill({ name: pool.name, env: s.explicitEnv });
    const t0 = b.epochNs();
    const claim = await engine.pool.claim(spawnOptions);
    if (!claim.worker) throw new Error('breakdown: the pool was empty');
    await one(claim.worker, `ECHO warm part ${i}`);
    parts['warm: claim → answer read (in-process)'].push(d(t0, b.epochNs()));
    await engine.pool.release({ pool: pool.name, worker: claim.worker });
  }
  await engine.pool.stop();
  for (const xs of Object.values(parts)) for (let i = xs.length - 1; i >= 0; i--) if (Number.isNaN(xs[i])) xs.splice(i, 1);
  return parts;
}

/** The bare TUI floor: the provider's own launch (binary, flags, hooks) with the prompt as its argument, through the substrate only. */
function bareFloor(b, core, createTmuxSubstrate, s) {
  const home = join(s.dir, 'bare-state');
  const sub = createTmuxSubstrate({ home, env: { ...process.env, UMBEL_HOME: home } });
  const sink = join(home, 'hooks', 'umbel-hook');
  return {
    async once(prompt, i) {
      mkdirSync(dirname(sink), { recursive: true });
      await core.installHookSink(sink);
      const workerDir = join(home, `w${i}`);
      const events = join(workerDir, 'events');
      mkdirSync(events, { recursive: true });
      const env = core.resolveWorkerEnv({ callerEnv: s.umbelEnv, inherit: s.provider.inheritEnv, explicit: s.explicitEnv });
      const launch = await s.provider.doBuildLaunch({
        worker: `bare${i}`,
        cwd: s.work,
        unattended: false,
        env,
        callerEnv: s.umbelEnv,
        workerDir,
        sharedDir: join(home, 'shared'),
        sessionId: randomUUID(),
        hookCommand: (kind) => core.hookCommandFor(sink, kind),
        hookSinkPath: sink,
      });
      for (const file of launch.files ?? []) {
        mkdirSync(dirname(file.path), { recursive: true });
        writeFileSync(file.path, file.content, { mode: file.mode ?? 0o600 });
      }
      const full = core.finalizeWorkerEnv(env, launch.env, launch.unsetEnv, { UMBEL_EVENTS_DIR: events, UMBEL_WORKER: `bare${i}` });
      const session = `bare-${i}`;
      const t0 = b.epochNs();
      await sub.launch({ session, cwd: s.work, argv: s.withPrompt(launch.argv, prompt), env: full, exitRecordDir: events });
      let stop;
      for (const until = Date.now() + 90_000; stop === undefined && Date.now() < until; await sleep(5)) {
        stop = b.eventsIn(events).find((e) => e.kind === 'stop')?.at;
      }
      await sub.kill(session);
      if (stop === undefined) throw new Error(`the bare ${s.id} TUI never reached its Stop hook`);
      return Number(stop - t0) / 1e6;
    },
    close: async () => {
      for (const session of await sub.list().catch(() => [])) await sub.kill(session);
    },
  };
}

/** GitHub Copilot CLI offline on a bring-your-own-key endpoint (the chat mock); the work dir remembered as trusted. */
async function copilotSetup({ imp, cli, dir }) {
  const { startChatMock } = await imp('test-fixtures/mock-servers/openai-chat.mjs');
  const { copilot } = await imp('packages/provider-copilot/dist/index.js');
  const mock = await startChatMock();
  const work = join(dir, 'work');
  const home = join(dir, 'home');
  mkdirSync(work, { recursive: true });
  mkdirSync(join(home, '.copilot'), { recursive: true });
  // what "2. Yes, and remember this folder" writes: the bare TUI launch below has no one to answer the dialog
  writeFileSync(join(home, '.copilot', 'config.json'), JSON.stringify({ trustedFolders: [work] }));
  const byok = {
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_BASE_URL: mock.url,
    COPILOT_PROVIDER_API_KEY: 'sk-bench-not-a-secret',
    COPILOT_PROVIDER_TYPE: 'openai',
    COPILOT_MODEL: 'mock-model',
    COPILOT_AUTO_UPDATE: 'false',
  };
  const passed = ['COPILOT_PROVIDER_BASE_URL', 'COPILOT_PROVIDER_API_KEY', 'COPILOT_PROVIDER_TYPE', 'COPILOT_MODEL'];
  return {
    id: 'copilot',
    dir,
    work,
    directName: 'copilot -p',
    // `copilot -p -s` ends its answer with a blank line
    direct: async (prompt) => {
      const r = await run(cli, ['-p', prompt, '-s', '--allow-all-tools'], { env: { ...baseEnv(home), ...byok }, cwd: work });
      return { ...r, out: r.out.replace(/\n+$/, '\n') };
    },
    umbelEnv: { ...baseEnv(home), UMBEL_COPILOT_BIN: cli, ...byok },
    args: ['--provider', 'copilot', ...passed.flatMap((n) => ['--env', n])],
    explicitEnv: Object.fromEntries(passed.map((n) => [n, { fromEnv: n }])),
    provider: copilot,
    withPrompt: (argv, prompt) => [...argv, '-i', prompt],
    close: () => mock.close(),
  };
}

const baseEnv = (home) => ({
  PATH: process.env.PATH,
  HOME: home,
  LANG: 'C.UTF-8',
  ...(process.env.TMUX_TMPDIR ? { TMUX_TMPDIR: process.env.TMUX_TMPDIR } : {}),
});

async function claudeSetup({ b, imp, cli, dir }) {
  const { startAnthropicMock } = await imp('test-fixtures/mock-servers/anthropic.mjs');
  const { seedClaudeConfig, claudeEnv } = await imp('test-fixtures/real/seed-claude.mjs');
  const { claude } = await imp('packages/provider-claude/dist/index.js');
  const mock = await startAnthropicMock({});
  const work = join(dir, 'work');
  const cfg = join(dir, 'config');
  mkdirSync(work, { recursive: true });
  seedClaudeConfig({ configDir: cfg, trustedDirs: [work] });
  const cenv = claudeEnv({ configDir: cfg, baseUrl: mock.url });
  const explicitEnv = Object.fromEntries(Object.keys(cenv).map((k) => [k, { fromEnv: k }]));
  return {
    id: 'claude',
    dir,
    work,
    directName: 'claude -p',
    direct: (prompt) => run(cli, ['-p', prompt], { env: { ...baseEnv(b.scratch), ...cenv }, cwd: work }),
    umbelEnv: { ...baseEnv(b.scratch), ...cenv, UMBEL_CLAUDE_BIN: cli },
    args: Object.keys(cenv).flatMap((k) => ['--env', k]),
    explicitEnv,
    provider: claude,
    withPrompt: (argv, prompt) => [...argv, prompt],
    close: () => mock.close(),
  };
}

async function codexSetup({ imp, cli, dir }) {
  const { startResponsesMock } = await imp('test-fixtures/mock-servers/openai-responses.mjs');
  const { codexMockConfig } = await imp('test-fixtures/real/umbel-helpers.mjs');
  const { codex } = await imp('packages/provider-codex/dist/index.js');
  const mock = await startResponsesMock();
  const work = join(dir, 'work');
  const userHome = join(dir, 'codex-home');
  const execHome = join(dir, 'exec-codex-home');
  mkdirSync(work, { recursive: true });
  mkdirSync(userHome, { recursive: true });
  writeFileSync(
    join(userHome, 'config.toml'),
    codexMockConfig({ baseUrl: mock.url, envKey: 'MOCK_API_KEY', providerLines: ['request_max_retries = 0', 'stream_max_retries = 0'] }),
  );
  cpSync(userHome, execHome, { recursive: true }); // codex exec writes sessions: its own copy
  const key = { MOCK_API_KEY: 'sk-bench-not-a-secret' };
  return {
    id: 'codex',
    dir,
    work,
    directName: 'codex exec',
    direct: (prompt) => run(cli, ['exec', '--skip-git-repo-check', prompt], { env: { ...baseEnv(dir), CODEX_HOME: execHome, ...key }, cwd: work }),
    umbelEnv: { ...baseEnv(dir), CODEX_HOME: userHome, UMBEL_CODEX_BIN: cli, ...key },
    args: ['--provider', 'codex', '--env', 'MOCK_API_KEY'],
    explicitEnv: { MOCK_API_KEY: { fromEnv: 'MOCK_API_KEY' } },
    provider: codex,
    withPrompt: (argv, prompt) => [...argv, prompt],
    close: () => mock.close(),
  };
}

async function geminiSetup({ imp, cli, dir }) {
  const { startGeminiMock } = await imp('test-fixtures/mock-servers/gemini.mjs');
  const { gemini } = await imp('packages/provider-gemini/dist/index.js');
  const mock = await startGeminiMock();
  const work = join(dir, 'work');
  const userHome = join(dir, 'home');
  const directHome = join(dir, 'direct-home');
  mkdirSync(work, { recursive: true });
  for (const [home, settings] of [
    [userHome, { privacy: { usageStatisticsEnabled: false }, ui: { hideTips: true } }],
    [directHome, { security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false } }],
  ]) {
    mkdirSync(join(home, '.gemini'), { recursive: true });
    writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify(settings));
  }
  const api = { GEMINI_API_KEY: 'bench-key-not-a-secret', GOOGLE_GEMINI_BASE_URL: mock.url };
  return {
    id: 'gemini',
    dir,
    work,
    directName: 'gemini -p',
    direct: (prompt) =>
      run(cli, ['-p', prompt], {
        env: { ...baseEnv(directHome), GEMINI_CLI_HOME: directHome, GEMINI_CLI_TRUST_WORKSPACE: 'true', GEMINI_CLI_NO_RELAUNCH: 'true', ...api },
        cwd: work,
      }),
    umbelEnv: { ...baseEnv(userHome), UMBEL_GEMINI_BIN: cli, ...api },
    args: ['--provider', 'gemini', '--env', 'GEMINI_API_KEY'],
    explicitEnv: { GEMINI_API_KEY: { fromEnv: 'GEMINI_API_KEY' } },
    provider: gemini,
    withPrompt: (argv, prompt) => [...argv, '-i', prompt],
    close: () => mock.close(),
  };
}

async function qwenSetup({ imp, cli, dir }) {
  const { startChatMock } = await imp('test-fixtures/mock-servers/openai-chat.mjs');
  const { qwen } = await imp('packages/provider-qwen/dist/index.js');
  const mock = await startChatMock();
  const work = join(dir, 'work');
  const userHome = join(dir, 'home');
  const directHome = join(dir, 'direct-home');
  for (const d of [work, userHome, directHome]) mkdirSync(d, { recursive: true });
  // `qwen -p` gets auto-update off too (it would `npm install --global`); umbel's workers get it from the provider
  const directSettings = join(directHome, 'qwen-system-settings.json');
  writeFileSync(directSettings, '{"general":{"enableAutoUpdate":false}}\n');
  const api = { OPENAI_API_KEY: 'bench-key-not-a-secret', OPENAI_BASE_URL: mock.url, OPENAI_MODEL: 'mock-model' };
  return {
    id: 'qwen',
    dir,
    work,
    directName: 'qwen -p',
    direct: (prompt) => run(cli, ['-p', prompt], { env: { ...baseEnv(directHome), QWEN_CODE_SYSTEM_SETTINGS_PATH: directSettings, ...api }, cwd: work }),
    umbelEnv: { ...baseEnv(userHome), UMBEL_QWEN_BIN: cli, ...api },
    args: ['--provider', 'qwen', '--env', 'OPENAI_API_KEY'],
    explicitEnv: { OPENAI_API_KEY: { fromEnv: 'OPENAI_API_KEY' } },
    provider: qwen,
    withPrompt: (argv, prompt) => [...argv, '-i', prompt],
    close: () => mock.close(),
  };
}

/** opencode on the chat-completions mock (its config names the mock; never installed, models fetch off). Back to back only: no bare-TUI floor. */
async function opencodeSetup({ imp, cli, dir }) {
  const { startChatMock } = await imp('test-fixtures/mock-servers/openai-chat.mjs');
  const { seedOpencodeUser } = await imp('test-fixtures/fake-opencode/seed.mjs');
  const mock = await startChatMock();
  const work = join(dir, 'work');
  mkdirSync(join(work, '.git'), { recursive: true });
  const seeded = seedOpencodeUser({ home: join(dir, 'home'), baseUrl: mock.url, installed: false });
  return {
    id: 'opencode',
    dir,
    work,
    umbelEnv: { ...baseEnv(join(dir, 'home')), ...seeded, TERM: 'xterm-256color', UMBEL_OPENCODE_BIN: cli },
    // the real opencode takes longer than the 60 s default to start on a loaded 2-core machine
    args: ['--provider', 'opencode', '--startup-timeout', '180s'],
    explicitEnv: {},
    close: () => mock.close(),
  };
}
