/**
 * An in-memory Substrate that plays "mock-cli" (the imaginary CLI of ./mock-provider.ts), so the
 * engine can be tested fast and without tmux. Hooks run the real hook sink through `sh -c`, the
 * transcript is a JSONL file, and the exit record is written like the tmux launch wrapper writes it.
 *
 * mock-cli prompts: `ECHO <text>`, `ASK <tool>` (permission; key `1` approves), `FAIL <msg>`
 * (stop-failure hook), `SILENTFAIL <msg>` (error in the transcript, no hook), `LIMIT [reset=<iso>] <msg>`
 * (a rate-limited stop-failure; `after=dialog` before the message then draws a blocking limit dialog
 * that only key `1` closes, `after=<ms>` continues by itself that much later, like Claude Code at the
 * reset: a `notify` hook `{resume: true}`, then a new prompt hook and the answer `continued` after
 * 300 ms), `DENIED <msg>` (an auth-failed stop-failure), `HANG`, `DIE <n>`,
 * `SIGNAL <SIG>`, `DELAY <ms> <rest>`, `GATE <path> <rest>` (`<rest>` runs once the file `<path>` exists: an order
 * that does not depend on the machine's speed), `USAGE 5h=<pct>[@<epoch s>] 7d=<pct>[@<epoch s>] <rest>` (the turn's
 * transcript records that plan usage, then `<rest>` runs), `BACKGROUND <id> <reply>` (answers `<reply>`;
 * its stop hook lists a background shell `<id>` still running; `BACKGROUND-DONE` lists it finished),
 * `SELFTURN <ms> <rest>` (answers `self-turn later`; `<ms>` after that turn the CLI starts a turn of its
 * own running `<rest>`, like Qwen Code's `<task-notification>` turn: no prompt hook, its transcript
 * prompt marked `meta`, then a stop hook);
 * anything else → `MOCK-REPLY: <prompt>`.
 * Env knobs: MOCK_CLI_SIGN_IN=1, MOCK_CLI_TRUST=1 (dialog, key y), MOCK_CLI_FATAL=<msg>,
 * MOCK_CLI_EXIT_AT_START=<n>, MOCK_CLI_DROP_ENTERS=<n>, MOCK_CLI_LATE_MS=<ms>, MOCK_CLI_NO_PROMPT_HOOK=1,
 * MOCK_CLI_FIX=<text> (the reply to a guardrail feedback prompt), MOCK_CLI_PROMPT_LATE_MS=<ms> (the
 * permission prompt is drawn, and takes keys, that long after its hook fired), MOCK_CLI_START_MS=<ms>
 * (startup takes that long before the ready screen), MOCK_CLI_STOP_LATE_MS=<ms> (the stop hook fires
 * that long after the answer is in the transcript), MOCK_CLI_DROP_WHILE_BUSY=1 (a prompt typed while a
 * turn runs is dropped), MOCK_CLI_DROP_LAUNCH_PROMPT=1 (a prompt on the command line is never submitted), MOCK_CLI_QUEUE_WHILE_BUSY=1 (a prompt submitted while a turn runs leaves the
 * input box and is queued: it starts, with its prompt hook, once the running turn answered). MOCK_CLI_SUBMIT_LATE_MS=<ms> (Enter
 * empties the input box at once; the prompt is submitted, its hook fired, that long after). Prompt `MUTE` ends its turn with a stop hook that
 * carries no message and a transcript that holds no answer. Key `C-u` clears the input box.
 *
 * Tool calls: `TOOLS <action> | <action> …` runs each action in the worker cwd, records it in the
 * transcript as a tool call and its result, then answers `done`: `write P TEXT` (Write, creates the
 * file), `edit P OLD->NEW` (Edit; a missing file or text is an error result), `read P` (Read; a
 * missing file is an error result), `run CMD` (Bash, not executed), `fail CMD` (Bash with an error
 * result), `delete P` (Bash `rm P`, removes the file).
 * Commands: a prompt starting with `/` or `!` is the CLI's own command, like the real CLIs'
 * (a leading space makes it text): `/turn TEXT` starts a model turn for TEXT (like a custom command
 * that expands to a prompt); any other `/x` or `!x` runs in the CLI alone — no hook, no transcript.
 * mock-cli prints `mock-cli: exiting with status <n>` when it exits on its own (DIE, EXIT_AT_START).
 * With `replay`, every launch plays that recorded scenario of a real provider instead (./replay.ts).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { SubstrateError, UmbelErrorCode } from '../contract/errors.js';
import type { AttachCommand, PaneState, Substrate, SubstrateLaunchOptions } from '../contract/substrate.js';
import type { RecordedScenario } from './recording.js';
import { type ReplaySession, startReplay } from './replay.js';

/** Rows of a dead pane's screen (the CLI's lines, then blank rows, as tmux shows a dead pane). */
const DEAD_SCREEN_ROWS = 24;

/** The blocking dialog of `LIMIT after=dialog` (the mock provider's account screen). */
export const LIMIT_DIALOG = 'Usage limit reached. What now? 1. Stop and wait';

interface MockSession {
  readonly options: SubstrateLaunchOptions;
  screen: string[];
  input: string;
  alive: boolean;
  exitStatus?: number;
  signal?: string;
  dialog?: 'trust' | 'limit';
  keyCount: number;
  turnCounter: number;
  pendingApproval?: () => void;
  busy: boolean;
  /** Prompts submitted while busy, queued (MOCK_CLI_QUEUE_WHILE_BUSY=1). */
  queue: string[];
  dropEnters: number;
  timers: Set<NodeJS.Timeout>;
}

/** The memory substrate, with a record of what it was asked. */
export interface MemorySubstrate extends Substrate {
  readonly launches: SubstrateLaunchOptions[];
  /** Simulate the process dying (exit status or signal) from outside. */
  crash(session: string, how: { status?: number; signal?: string }): Promise<void>;
  /** Make every call hang (to test bounded calls / hard deadlines). */
  hang: boolean;
}

function runHook(command: string | undefined, payload: unknown, env: Readonly<Record<string, string>>): Promise<void> {
  if (!command) return Promise.resolve();
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', command], {
      env: { PATH: env.PATH ?? '/usr/bin:/bin', UMBEL_EVENTS_DIR: env.UMBEL_EVENTS_DIR ?? '' },
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    child.on('close', () => resolve());
    child.on('error', () => resolve());
    child.stdin.end(JSON.stringify(payload));
  });
}

/** Settings of {@link createMemorySubstrate}. */
export interface MemorySubstrateSettings {
  /** Play this recorded scenario (a provider's own fixtures) in every launched session instead of the mock CLI. */
  readonly replay?: RecordedScenario;
}

/** Write the exit record the tmux launch wrapper writes (`<ns>-<pid>-exit.json`), unless the dir is gone. */
async function writeExitRecord(dir: string, how: { status?: number; signal?: string }): Promise<void> {
  try {
    if (!(await stat(dir)).isDirectory()) return;
    const ns = BigInt(Date.now()) * 1_000_000n;
    const tmp = join(dir, `.exit-${ns}`);
    await writeFile(tmp, JSON.stringify(how.signal ? { signal: how.signal } : { status: how.status ?? 0 }));
    await rename(tmp, join(dir, `${ns}-4242-exit.json`));
  } catch {
    // dir gone (purged): write nothing
  }
}

/** Create a memory substrate. */
export function createMemorySubstrate(settings: MemorySubstrateSettings = {}): MemorySubstrate {
  const sessions = new Map<string, MockSession>();
  const replays = new Map<string, ReplaySession>();
  const launches: SubstrateLaunchOptions[] = [];
  const self: MemorySubstrate = {
    substrateId: 'memory',
    launches,
    hang: false,
    async launch(options) {
      await gate();
      if (sessions.has(options.session) || replays.has(options.session)) {
        throw new SubstrateError({ code: UmbelErrorCode.TmuxFailed, message: `duplicate session: ${options.session}`, sessionExists: true });
      }
      launches.push(options);
      if (settings.replay) {
        replays.set(options.session, startReplay(options, settings.replay));
        return;
      }
      const s: MockSession = {
        options,
        screen: ['mock-cli starting…'],
        input: '',
        alive: true,
        keyCount: 0,
        turnCounter: 0,
        busy: false,
        queue: [],
        dropEnters: Number(options.env.MOCK_CLI_DROP_ENTERS ?? 0),
        timers: new Set(),
      };
      sessions.set(options.session, s);
      const env = options.env;
      later(s, 20 + Number(env.MOCK_CLI_START_MS ?? 0), async () => {
        if (env.MOCK_CLI_EXIT_AT_START) return exit(s, { status: Number(env.MOCK_CLI_EXIT_AT_START) });
        if (env.MOCK_CLI_FATAL) {
          s.screen = [`FATAL: ${env.MOCK_CLI_FATAL}`];
          return;
        }
        if (env.MOCK_CLI_SIGN_IN) {
          s.screen = ['Welcome to mock-cli', 'Please sign in', '> 1. Browser'];
          return;
        }
        if (env.MOCK_CLI_TRUST) {
          s.dialog = 'trust';
          s.screen = [`Trust this folder? [y/N]`, options.cwd];
          return;
        }
        await ready(s);
      });
    },
    async inspect(session) {
      await gate();
      const replay = replays.get(session);
      if (replay) return replay.pane();
      const s = sessions.get(session);
      return s ? paneOf(s) : ({ exists: false, dead: true } satisfies PaneState);
    },
    async inspectAll() {
      await gate();
      return new Map([...[...sessions].map(([name, s]) => [name, paneOf(s)] as const), ...[...replays].map(([name, r]) => [name, r.pane()] as const)]);
    },
    async capture(session, options = {}) {
      await gate();
      const replay = replays.get(session);
      // like tmux's capture-pane -S -N: the whole visible screen (plus history, of which a replay has none)
      if (replay) return replay.screen();
      const s = sessions.get(session);
      if (!s) throw new Error(`no session ${session}`);
      // A dead pane keeps the CLI's last screen, its rows below blank (as a terminal host shows it).
      const lines = s.alive ? [...s.screen, `mock> ${s.input}`] : [...s.screen, ...Array<string>(Math.max(0, DEAD_SCREEN_ROWS - s.screen.length)).fill('')];
      return lines.slice(-(options.lines ?? 100)).join('\n');
    },
    async pasteText(session, text) {
      await gate();
      if (replayInput(session, text)) return;
      const s = mustLive(session);
      s.input += text;
    },
    async pasteAndPress(session, text, keys) {
      await self.pasteText(session, text);
      await self.sendKeys(session, keys);
    },
    async typeText(session, text) {
      await gate();
      if (replayInput(session, text)) return;
      const s = mustLive(session);
      s.input += text;
    },
    async sendKeys(session, keys) {
      await gate();
      const replay = liveReplay(session);
      if (replay) {
        for (const key of keys) await replay.press(key);
        return;
      }
      const s = mustLive(session);
      for (const key of keys) await press(s, key);
    },
    async kill(session) {
      await gate();
      const replay = replays.get(session);
      if (replay) {
        if (replay.pane().exists && !replay.pane().dead) await writeExitRecord(replay.options.exitRecordDir, { signal: 'SIGHUP' });
        replay.stop();
        replays.delete(session);
        return;
      }
      const s = sessions.get(session);
      if (!s) return;
      for (const t of s.timers) clearTimeout(t);
      if (s.alive) await exit(s, { signal: 'SIGHUP' });
      sessions.delete(session);
    },
    async list() {
      await gate();
      return [...sessions.keys(), ...replays.keys()];
    },
    async processTree(session) {
      if (replays.has(session)) return replays.get(session)?.pane().dead ? [] : [4243];
      const s = sessions.get(session);
      return s?.alive ? [4242] : [];
    },
    attachCommand(session): AttachCommand {
      return { file: 'true', args: [session], env: {} };
    },
    async crash(session, how) {
      const s = sessions.get(session);
      if (s) await exit(s, how);
    },
  };

  function liveReplay(session: string): ReplaySession | undefined {
    const replay = replays.get(session);
    if (replay?.pane().dead) throw new Error(`session ${session} is not alive`);
    return replay;
  }

  function replayInput(session: string, text: string): boolean {
    const replay = liveReplay(session);
    replay?.input(text);
    return replay !== undefined;
  }

  async function gate(): Promise<void> {
    if (self.hang) await new Promise(() => undefined);
  }

  function paneOf(s: MockSession): PaneState {
    return {
      exists: true,
      dead: !s.alive,
      ...(s.exitStatus !== undefined ? { exitStatus: s.exitStatus } : {}),
      ...(s.signal ? { signal: s.signal } : {}),
      ...(s.alive ? { pid: 4242 } : {}),
    };
  }

  function mustLive(session: string): MockSession {
    const s = sessions.get(session);
    if (!s || !s.alive) throw new Error(`session ${session} is not alive`);
    return s;
  }

  function later(s: MockSession, ms: number, fn: () => Promise<void> | void): void {
    const t = setTimeout(() => {
      s.timers.delete(t);
      void fn();
    }, ms);
    s.timers.add(t);
  }

  function hooks(s: MockSession): Record<string, string> {
    try {
      return JSON.parse(s.options.env.MOCK_CLI_HOOKS ?? '{}') as Record<string, string>;
    } catch {
      return {};
    }
  }

  function transcriptPath(s: MockSession): string {
    const argv = s.options.argv;
    const i = argv.indexOf('--transcript');
    return argv[i + 1] ?? join(s.options.cwd, 'mock-transcript.jsonl');
  }

  async function ready(s: MockSession): Promise<void> {
    s.screen = ['mock-cli v1', '──────'];
    // `--resume <id>` continues the conversation in the transcript: its turn keys go on (like a real CLI's unique ids)
    if (s.options.argv.includes('--resume')) {
      const text = await readFile(transcriptPath(s), 'utf8').catch(() => '');
      s.turnCounter = text.split('\n').filter((line) => line.includes('"type":"user"')).length;
    }
    await runHook(hooks(s).session, { session_id: 'mock-session', transcript_path: transcriptPath(s) }, s.options.env);
    // a prompt on the command line (`-- <prompt>`, last: a sandbox's wrapper has a `--` of its own before
    // the CLI) is submitted as the CLI comes up, unless MOCK_CLI_DROP_LAUNCH_PROMPT=1
    const argv = s.options.argv;
    const prompt = argv.at(-2) === '--' ? argv.at(-1) : undefined;
    if (prompt !== undefined && !s.options.env.MOCK_CLI_DROP_LAUNCH_PROMPT) later(s, 5, () => submit(s, prompt));
  }

  async function exit(s: MockSession, how: { status?: number; signal?: string }): Promise<void> {
    if (!s.alive) return;
    s.alive = false;
    for (const t of s.timers) clearTimeout(t);
    s.timers.clear();
    if (how.signal) s.signal = how.signal;
    else s.exitStatus = how.status ?? 0;
    // What a CLI prints when it exits on its own; a signal ends it without a word.
    if (!how.signal) s.screen.push('', `mock-cli: exiting with status ${how.status ?? 0}`);
    await writeExitRecord(s.options.exitRecordDir, how);
  }

  async function press(s: MockSession, key: string): Promise<void> {
    if (s.dialog === 'limit') {
      // a blocking limit dialog takes every key; only `1` answers it
      if (key === '1') {
        s.dialog = undefined;
        s.screen = s.screen.filter((line) => line !== LIMIT_DIALOG);
      }
      return;
    }
    if (s.dialog === 'trust') {
      if (key === 'y') {
        s.dialog = undefined;
        await ready(s);
      }
      return;
    }
    if (s.pendingApproval && key === '1') {
      const go = s.pendingApproval;
      s.pendingApproval = undefined;
      go();
      return;
    }
    if (key === 'C-u') {
      s.input = '';
      return;
    }
    if (key === 'Escape' && s.busy) {
      s.busy = false;
      for (const t of s.timers) clearTimeout(t);
      return;
    }
    if (key !== 'Enter') return;
    if (s.busy && s.options.env.MOCK_CLI_DROP_WHILE_BUSY) {
      s.input = ''; // a CLI that drops what is typed while it works
      return;
    }
    if (s.dropEnters > 0) {
      s.dropEnters--;
      return;
    }
    const prompt = s.input;
    s.input = '';
    if (!prompt) return;
    if (s.busy && s.options.env.MOCK_CLI_QUEUE_WHILE_BUSY) {
      s.queue.push(prompt);
      return;
    }
    const late = Number(s.options.env.MOCK_CLI_SUBMIT_LATE_MS ?? 0);
    if (late) later(s, late, () => submit(s, prompt));
    else await submit(s, prompt);
  }

  /** A `/x` or `!x` prompt: the CLI's own command. Only `/turn TEXT` makes a model turn. */
  async function command(s: MockSession, text: string): Promise<boolean> {
    const turn = /^\/turn ([\s\S]+)$/.exec(text);
    if (turn) {
      await submit(s, turn[1] as string, true);
      return true;
    }
    s.screen.push(`ran command ${text.split('\n')[0]}`);
    return true;
  }

  /** The reset came: the CLI says so, then continues the limited turn by itself (a prompt nobody sent). */
  async function autoContinue(s: MockSession, limitedKey: string): Promise<void> {
    const env = s.options.env;
    await runHook(hooks(s).notify, { key: limitedKey, message: 'limit reset, continuing', resume: true }, env);
    await submit(s, 'DELAY 300 ECHO continued', true, true);
  }

  /** The CLI starts the next queued prompt once a turn answered. */
  function startQueued(s: MockSession): void {
    const next = s.queue.shift();
    if (next !== undefined) later(s, 10, () => submit(s, next));
  }

  /** `meta`: a prompt the CLI wrote itself; `silent`: it fires no prompt hook (a turn of the CLI's own). */
  async function submit(s: MockSession, prompt: string, expanded = false, meta = false, silent = false): Promise<void> {
    if (!expanded && (prompt.startsWith('/') || prompt.startsWith('!'))) {
      await command(s, prompt);
      return;
    }
    const key = `k${++s.turnCounter}`;
    const path = transcriptPath(s);
    const env = s.options.env;
    const h = hooks(s);
    await mkdir(join(path, '..'), { recursive: true });
    s.busy = true;
    s.screen.push(`> ${prompt.split('\n')[0]}`);
    if (!env.MOCK_CLI_NO_PROMPT_HOOK && !silent) await runHook(h.prompt, { key, transcript_path: path, session_id: 'mock-session', prompt }, env);
    await appendFile(path, `${JSON.stringify({ type: 'user', key, text: prompt, ...(meta ? { meta: true } : {}) })}\n`);
    const act = async (text: string): Promise<void> => {
      let m: RegExpExecArray | null;
      if ((m = /^DELAY (\d+) ([\s\S]*)$/.exec(text))) {
        const rest = m[2] as string;
        later(s, Number(m[1]), () => act(rest));
        return;
      }
      if ((m = /^GATE (\S+) ([\s\S]*)$/.exec(text))) {
        const [gate, rest] = [m[1] as string, m[2] as string];
        const poll = (): void => later(s, 20, () => (existsSync(gate) ? act(rest) : poll()));
        poll();
        return;
      }
      if ((m = /^USAGE ((?:(?:5h|7d)=\d+(?:@\d+)? +)+)([\s\S]*)$/.exec(text))) {
        const quota: Record<string, { usedPercent: number; resetsAt?: number }> = {};
        for (const word of (m[1] as string).trim().split(/ +/)) {
          const [name, value = ''] = word.split('=');
          const [pct, at] = value.split('@');
          quota[name === '5h' ? 'fiveHour' : 'sevenDay'] = { usedPercent: Number(pct), ...(at ? { resetsAt: Number(at) } : {}) };
        }
        await appendFile(path, `${JSON.stringify({ type: 'quota', key, quota })}\n`);
        return act(m[2] as string);
      }
      if (/^HANG\b/.test(text)) return;
      if (/^MUTE\b/.test(text)) {
        await appendFile(path, `${JSON.stringify({ type: 'end', key })}\n`);
        s.busy = false;
        await runHook(h.stop, { key, transcript_path: path }, env);
        return;
      }
      if ((m = /^DIE (\d+)/.exec(text))) return exit(s, { status: Number(m[1]) });
      if ((m = /^SIGNAL (\w+)/.exec(text))) return exit(s, { signal: m[1] as string });
      if ((m = /^FAIL ([\s\S]*)$/.exec(text))) {
        await appendFile(path, `${JSON.stringify({ type: 'error', key, message: m[1] })}\n`);
        s.busy = false;
        await runHook(h['stop-failure'], { key, error: m[1] }, env);
        return;
      }
      if ((m = /^(LIMIT|DENIED) (?:reset=(\S+) )?(?:after=(dialog|\d+) )?([\s\S]*)$/.exec(text))) {
        const account = { kind: m[1] === 'LIMIT' ? 'rate-limited' : 'auth-failed', ...(m[2] ? { resetsAt: m[2] } : {}) };
        await appendFile(path, `${JSON.stringify({ type: 'error', key, message: m[4], account })}\n`);
        s.busy = false;
        if (m[3] === 'dialog') {
          s.dialog = 'limit';
          s.screen.push(LIMIT_DIALOG);
        }
        await runHook(h['stop-failure'], { key, error: m[4], account }, env);
        if (m[3] !== undefined && m[3] !== 'dialog') later(s, Number(m[3]), () => autoContinue(s, key));
        return;
      }
      if ((m = /^SILENTFAIL ([\s\S]*)$/.exec(text))) {
        await appendFile(path, `${JSON.stringify({ type: 'error', key, message: m[1] })}\n`);
        s.busy = false;
        return;
      }
      if ((m = /^ASK (\S+)/.exec(text))) {
        const tool = m[1] as string;
        await appendFile(path, `${JSON.stringify({ type: 'tool', key, name: tool })}\n`);
        const show = () => {
          s.screen.push(`Allow ${tool}? 1. Yes 2. No`);
          s.pendingApproval = () => void answer(`approved ${tool}`);
        };
        const late = Number(env.MOCK_CLI_PROMPT_LATE_MS ?? 0);
        if (!late) show();
        await runHook(h.permission, { key, tool, message: `${tool} wants to run` }, env);
        // keys pressed before the prompt is drawn go nowhere
        if (late) later(s, late, show);
        return;
      }
      if ((m = /^TOOLS ([\s\S]*)$/.exec(text))) {
        for (const [i, action] of (m[1] as string).split(' | ').entries()) await tool(s, path, key, `${key}-t${i}`, action.trim());
        return answer('done');
      }
      if ((m = /^SELFTURN (\d+) ([\s\S]*)$/.exec(text))) {
        const own = m[2] as string;
        later(s, Number(m[1]), () => submit(s, own, true, true, true));
        return answer('self-turn later');
      }
      if ((m = /^BACKGROUND(-DONE)? (\S+) ([\s\S]*)$/.exec(text))) {
        return answer(m[3] as string, { background: [{ kind: 'shell', id: m[2], running: m[1] === undefined }] });
      }
      if (env.MOCK_CLI_FIX !== undefined && text.startsWith('Your previous answer was rejected')) return answer(env.MOCK_CLI_FIX);
      const reply = (m = /^ECHO ([\s\S]*)$/.exec(text)) ? (m[1] as string) : `MOCK-REPLY: ${text}`;
      await answer(reply);
    };
    const answer = async (reply: string, stopExtra: Record<string, unknown> = {}): Promise<void> => {
      const late = Number(env.MOCK_CLI_LATE_MS ?? 0);
      const write = async () => {
        await appendFile(path, `${JSON.stringify({ type: 'assistant', key, text: reply })}\n${JSON.stringify({ type: 'end', key })}\n`);
      };
      if (!late) await write();
      s.busy = false;
      s.screen.push(`● ${reply.split('\n')[0]}`);
      const stopLate = Number(env.MOCK_CLI_STOP_LATE_MS ?? 0);
      const stop = () => runHook(h.stop, { key, last: reply, transcript_path: path, ...stopExtra }, env);
      if (stopLate) later(s, stopLate, stop);
      else await stop();
      if (late) later(s, late, write);
      startQueued(s);
    };
    await act(prompt);
  }

  /** One action of a `TOOLS` prompt: do it in the worker cwd and record the call and its result. */
  async function tool(s: MockSession, transcript: string, key: string, id: string, action: string): Promise<void> {
    const [verb = '', ...words] = action.split(' ');
    const arg = words.join(' ');
    const file = (p: string) => resolve(s.options.cwd, p);
    const record = async (name: string, input: Record<string, unknown>, result: string, isError = false) => {
      await appendFile(transcript, `${JSON.stringify({ type: 'tool', key, id, name, input })}\n`);
      await appendFile(transcript, `${JSON.stringify({ type: 'tool-result', key, id, content: result, ...(isError ? { isError } : {}) })}\n`);
    };
    if (verb === 'write') {
      const [p = '', ...text] = words;
      await mkdir(dirname(file(p)), { recursive: true });
      await writeFile(file(p), text.join(' '));
      return record('Write', { file_path: p, content: text.join(' ') }, `wrote ${p}`);
    }
    if (verb === 'edit') {
      const [p = '', ...rest] = words;
      const [from = '', to = ''] = rest.join(' ').split('->');
      const before = await readFile(file(p), 'utf8').catch(() => undefined);
      if (before === undefined || !before.includes(from)) return record('Edit', { file_path: p, old_string: from, new_string: to }, `cannot edit ${p}`, true);
      await writeFile(file(p), before.replace(from, to));
      return record('Edit', { file_path: p, old_string: from, new_string: to }, `edited ${p}`);
    }
    if (verb === 'read') {
      const text = await readFile(file(arg), 'utf8').catch(() => undefined);
      return record('Read', { file_path: arg }, text ?? `no such file: ${arg}`, text === undefined);
    }
    if (verb === 'run') return record('Bash', { command: arg }, `ran ${arg}`);
    if (verb === 'fail') return record('Bash', { command: arg }, 'exit 1', true);
    if (verb === 'delete') {
      await rm(file(arg), { force: true });
      return record('Bash', { command: `rm ${arg}` }, '');
    }
    return record(verb || 'Unknown', { text: arg }, `unknown action ${action}`, true);
  }

  return self;
}
