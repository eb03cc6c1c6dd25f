// The harness record-account.mjs drives the REAL pinned CLIs with: a private tmux host (@umbel/tmux,
// built: `pnpm build`), hook/statusLine recorders writing one JSON file per call, waits, and the
// scrubbing that makes recordings machine-independent. Plain Node ESM; offline: every CLI talks only
// to the local mock servers. Not a test helper (no assertions): a tool that gathers facts.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const TMUX_DIST = join(here, '..', '..', 'packages', 'tmux', 'dist', 'index.js');

/**
 * A recorder script: `node rec.mjs <kind> <dir> [reply]` writes `{kind, at, input}` (stdin parsed as
 * JSON when it is JSON) to `<dir>/<ns>-<kind>-<pid>.json` atomically, then prints `reply` (a
 * statusLine command's line) or nothing (a hook).
 */
const RECORDER = `import { readFileSync, renameSync, writeFileSync } from 'node:fs';
const [kind, dir, reply] = process.argv.slice(2);
const raw = readFileSync(0, 'utf8');
let input;
try { input = JSON.parse(raw); } catch { input = { raw }; }
const at = Date.now();
const ns = String(Math.round((performance.timeOrigin + performance.now()) * 1000)).padStart(20, '0');
const name = ns + '-' + kind + '-' + process.pid + '.json';
writeFileSync(dir + '/.' + name, JSON.stringify({ kind, at, input }));
renameSync(dir + '/.' + name, dir + '/' + name);
if (reply) process.stdout.write(reply + '\\n');
`;

/** Sleep. */
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Poll `probe` until it returns a truthy value; throws `timed out waiting for <what>` after `timeoutMs`. */
export async function waitFor(what, probe, timeoutMs = 60_000, intervalMs = 100) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** Parse JSONL text, skipping lines that do not parse (a live file's last line). */
export function parseJsonl(text) {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .flatMap((l) => {
      try {
        return [JSON.parse(l)];
      } catch {
        return [];
      }
    });
}

/** Every file under `dir` whose name matches `re` (recursive), sorted. */
export function filesUnder(dir, re) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(p, re));
    else if (re.test(entry.name)) out.push(p);
  }
  return out.sort();
}

/**
 * One scratch world: `root` (realpath) with `home/`, `work/` (the CLI's cwd), `events/` (recorder
 * output) and the recorder script; `hook(kind)` / `statusLine(kind, reply)` are the commands to put in
 * the CLI's settings; `records(kind?)` reads what was recorded so far, in order.
 * @param {string} prefix
 */
export function makeWorld(prefix) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const w = {
    root,
    home: join(root, 'home'),
    work: join(root, 'work'),
    events: join(root, 'events'),
    recorder: join(root, 'rec.mjs'),
  };
  for (const d of [w.home, w.work, w.events]) mkdirSync(d, { recursive: true });
  writeFileSync(w.recorder, RECORDER);
  chmodSync(w.recorder, 0o755);
  return {
    ...w,
    hook: (kind) => `${process.execPath} ${w.recorder} ${kind} ${w.events}`,
    statusLine: (kind, reply) => `${process.execPath} ${w.recorder} ${kind} ${w.events} '${reply}'`,
    records(kind) {
      return readdirSync(w.events)
        .filter((f) => f.endsWith('.json') && !f.startsWith('.'))
        .sort()
        .map((f) => JSON.parse(readFileSync(join(w.events, f), 'utf8')))
        .filter((r) => kind === undefined || r.kind === kind);
    },
    remove() {
      const rm = () => {
        try {
          rmSync(root, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
        } catch {
          // files still being written: the second pass below gets them
        }
      };
      rm();
      // a CLI killed a moment ago may still write its exit files (TMPDIR sockets, SessionEnd hooks)
      setTimeout(rm, 1500).unref();
    },
  };
}

/** `git init` a folder quietly (codex shows its trust dialog only in a git repo). */
export function gitInit(dir) {
  spawnSync('git', ['init', '-q', dir], { stdio: 'ignore' });
}

/**
 * A private tmux host for one world (its own socket, derived from `stateDir`), through @umbel/tmux.
 * `start(argv, env)` launches the CLI in `cwd` with exactly `env`; `screen()` captures the pane
 * (with scrollback); `paste(text)` / `keys(...)`; `stop()` kills the session (and with it the server).
 * @param {{stateDir: string, cwd: string, session?: string, width?: number, height?: number}} opts
 */
export async function tmuxHost({ stateDir, cwd, session = 'probe', width = 150, height = 45 }) {
  if (!existsSync(TMUX_DIST)) throw new Error(`@umbel/tmux is not built (${TMUX_DIST}); run \`pnpm build\` first`);
  const { createTmuxSubstrate } = await import(TMUX_DIST);
  mkdirSync(join(stateDir, 'exit'), { recursive: true });
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', ...(process.env.TMUX_TMPDIR ? { TMUX_TMPDIR: process.env.TMUX_TMPDIR } : {}) };
  const sub = createTmuxSubstrate({ home: stateDir, env });
  return {
    start: (argv, launchEnv) => sub.launch({ session, cwd, argv, env: launchEnv, exitRecordDir: join(stateDir, 'exit'), width, height }),
    screen: (lines = 400) => sub.capture(session, { lines }),
    paste: (text) => sub.pasteText(session, text),
    type: (text) => sub.typeText(session, text),
    keys: (...k) => sub.sendKeys(session, k),
    state: () => sub.inspect(session),
    stop: () => sub.kill(session),
  };
}

/** Trim a captured screen: no trailing blanks per line, no trailing empty lines. */
export function tidyScreen(text) {
  return text
    .split('\n')
    .map((l) => l.replace(/\s+$/, ''))
    .join('\n')
    .replace(/\n+$/, '\n');
}

/**
 * A scrubber for recordings: every `[from, to]` pair replaced (longest first), e.g. the world root →
 * `<root>` and the mock's port → `<port>`.
 * @param {Array<[string, string]>} pairs
 */
export function scrubber(pairs) {
  const sorted = pairs.filter(([from]) => from).sort((a, b) => b[0].length - a[0].length);
  const text = (s) => sorted.reduce((acc, [from, to]) => acc.split(from).join(to), s);
  return {
    text,
    json: (v) => JSON.parse(text(JSON.stringify(v))),
  };
}
