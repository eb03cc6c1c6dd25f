/**
 * A replay session of the memory substrate: it plays a provider's recorded scenario instead of the
 * mock CLI. Startup steps run at launch; the recorded turn runs when its prompt is submitted (text
 * pasted or typed, then Enter). Hooks go through the real hook sink of the worker's state root, the
 * transcript is a file in the worker's cwd, and dialogs wait for the keys that answer them.
 */
import { spawn } from 'node:child_process';
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { PaneState, SubstrateLaunchOptions } from '../contract/substrate.js';
import { fillPayload, fillRecorded, type RecordedScenario, type RecordedStep } from './recording.js';

/** What the memory substrate needs from a replay session. */
export interface ReplaySession {
  readonly options: SubstrateLaunchOptions;
  pane(): PaneState;
  screen(): string;
  input(text: string): void;
  press(key: string): Promise<void>;
  /** Stop playing; the caller records the exit. */
  stop(): void;
  /** The transcript file the replay writes. */
  readonly transcriptPath: string;
}

/** The hook sink of the state root an events dir belongs to (`<home>/workers/<name>/events` → `<home>/hooks/umbel-hook`). */
export function sinkOf(eventsDir: string): string {
  return join(dirname(dirname(dirname(eventsDir))), 'hooks', 'umbel-hook');
}

function deliver(sink: string, kind: string, payload: unknown, env: Readonly<Record<string, string>>): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn('sh', [sink, kind], {
      env: { PATH: env.PATH ?? '/usr/bin:/bin', UMBEL_EVENTS_DIR: env.UMBEL_EVENTS_DIR ?? '' },
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    child.on('close', () => resolve());
    child.on('error', () => resolve());
    child.stdin.end(JSON.stringify(payload));
  });
}

/** Start replaying `scenario` for a launch. */
export function startReplay(options: SubstrateLaunchOptions, scenario: RecordedScenario): ReplaySession {
  const transcriptPath = join(options.cwd, '.umbel-replay', 'transcript.jsonl');
  const values = { cwd: options.cwd, transcript: transcriptPath };
  let screen = '';
  let input = '';
  let alive = true;
  let played = false;
  let awaiting: { keys: string[]; resolve: () => void } | undefined;

  async function apply(step: RecordedStep): Promise<void> {
    if (step.transcript !== undefined) {
      await mkdir(dirname(transcriptPath), { recursive: true });
      await appendFile(transcriptPath, fillRecorded(step.transcript, values));
    }
    if (step.screen !== undefined) screen = fillRecorded(step.screen, values);
    if (step.hook) await deliver(sinkOf(options.exitRecordDir), step.hook.kind, fillPayload(step.hook.payload, values), options.env);
    if (step.keys?.length) await new Promise<void>((resolve) => (awaiting = { keys: [...(step.keys ?? [])], resolve }));
  }

  async function play(steps: readonly RecordedStep[]): Promise<void> {
    for (const step of steps) {
      if (!alive) return;
      await apply(step);
    }
  }

  async function submit(text: string): Promise<void> {
    if (played || text.trim() !== scenario.prompt.trim()) {
      screen = `${screen}\n[replay] no recorded turn for this prompt`;
      return;
    }
    played = true;
    await play(scenario.turn);
  }

  setTimeout(() => void play(scenario.startup), 20);
  return {
    options,
    transcriptPath,
    pane: () => ({ exists: true, dead: !alive, ...(alive ? { pid: 4243 } : {}) }),
    screen: () => screen,
    input(text) {
      input += text;
    },
    async press(key) {
      if (awaiting) {
        if (awaiting.keys[0] === key) awaiting.keys.shift();
        if (awaiting.keys.length === 0) {
          const { resolve } = awaiting;
          awaiting = undefined;
          resolve();
        }
        return;
      }
      if (key !== 'Enter' || input === '') return;
      const text = input;
      input = '';
      // the CLI takes the prompt and works on its own: the Enter returns at once
      void submit(text);
    },
    stop() {
      alive = false;
      awaiting?.resolve();
    },
  };
}
