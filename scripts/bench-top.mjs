// The `top` part of `pnpm bench` (see scripts/bench.mjs): `umbel top`'s redraw at 100 workers, in
// process, on fake terminal streams (80×24) and a fake engine — no tmux, no CLI. Each run pushes one
// fleet event for a worker in view and times it until the frame that shows it is written: the
// event applied to the view model, the worker's row and the table laid out by ink, the frame out.
// Events come 50 ms apart, past ink's frame throttle (30 fps), so each one is drawn on its own.
import { PassThrough } from 'node:stream';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const WORKERS = 100;

/** @param {{root: string, runs: number, report: Function}} b */
export async function benchTop(b) {
  const { runTop } = await import(pathToFileURL(join(b.root, 'packages/top/dist/index.js')).href);
  const statuses = Array.from({ length: WORKERS }, (_, i) => ({
    name: `w${String(i).padStart(3, '0')}`,
    provider: 'claude',
    state: 'busy',
    alive: true,
    cwd: '/w',
    createdAt: new Date().toISOString(),
    turn: 1,
    completedTurn: 0,
    anonymous: false,
    billing: 'subscription',
  }));
  const queue = [];
  let wake;
  const engine = {
    list: async () => statuses,
    status: async (name) => statuses.find((s) => s.name === name),
    capture: async ({ name }) => ({ worker: name, text: `the screen of ${name}`, live: true }),
    read: async ({ name }) => ({ worker: name, provider: 'claude', turn: 1, result: '', complete: false }),
    async *events(_options, context) {
      context?.signal?.addEventListener('abort', () => wake?.(), { once: true });
      while (!context?.signal?.aborted) {
        while (queue.length > 0) yield queue.shift();
        await new Promise((resolve) => {
          wake = resolve;
        });
      }
    },
  };
  const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => stdin, ref: () => stdin, unref: () => stdin });
  const stdout = Object.assign(new PassThrough(), { isTTY: true, columns: 80, rows: 24 });
  let seen;
  stdout.on('data', (chunk) => seen?.(chunk.toString()));
  const shown = (mark) =>
    new Promise((resolve) => {
      seen = (text) => {
        if (text.includes(mark)) resolve(process.hrtime.bigint());
      };
    });
  const controller = new AbortController();
  const done = runTop({ engine, stdin, stdout, signal: controller.signal });
  await shown('w000');
  const samples = [];
  try {
    for (let i = 0; i < b.runs; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const mark = `mark-${i}`;
      const drawn = shown(mark);
      const at = process.hrtime.bigint();
      queue.push({
        cursor: `${i}`,
        at: new Date().toISOString(),
        kind: 'needs-input',
        worker: `w00${i % 8}`,
        provider: 'claude',
        turn: 1,
        input: 'question',
        message: mark,
      });
      wake?.();
      samples.push(Number((await drawn) - at) / 1e6);
    }
  } finally {
    controller.abort('SIGINT');
    await done;
  }
  b.report(`top: an event → its frame, ${WORKERS} workers, 80×24`, samples);
}
