/**
 * `umbel events` and `wait` on several workers, end to end: the built bin drives three fake
 * `claude` workers on real tmux. Needs `pnpm build`.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UmbelRun, UmbelStart } from '../../../test-fixtures/real/umbel-helpers.mjs';
import { assertBuilt, cleanUp, REPO_ROOT, testEnv, umbelRunner } from '../../../test-fixtures/real/umbel-helpers.mjs';

let scratch: string;
let work: string;
let config: string;
let umbel: UmbelRun;
let startUmbel: UmbelStart;

const cfg = () => ['--env', `CLAUDE_CONFIG_DIR=${config}`];

beforeAll(async () => {
  assertBuilt(['packages/cli/dist/cli.cjs']);
  scratch = await mkdtemp(join(tmpdir(), 'umbel-e2e-events-'));
  work = join(scratch, 'project');
  config = join(scratch, 'claude-config');
  await mkdir(work, { recursive: true });
  await mkdir(config, { recursive: true });
  await writeFile(join(config, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, projects: { [work]: { hasTrustDialogAccepted: true } } }));
  const env = testEnv({ home: scratch, umbelHome: join(scratch, 'state'), UMBEL_CLAUDE_BIN: join(REPO_ROOT, 'test-fixtures/bin/claude') });
  ({ run: umbel, start: startUmbel } = umbelRunner({ cwd: work, env }));
});

afterAll(() => cleanUp({ workers: [umbel], reap: [scratch], remove: [scratch] }));

type Event = { worker: string; kind: string; turn?: number; reason?: string; at: string; cursor: string };

/** The JSON lines a follower printed so far. */
const linesOf = (text: string): Event[] =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

/** Resolve once `check` holds for the follower's output (a 60 s bound, then fail naming `what`). */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1200 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

const exited = (child: ReturnType<UmbelStart>['child']) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.on('exit', (code) => resolve(code))));

describe('events and multi-wait on the fake claude', () => {
  it('events --follow: three workers, every lifecycle event in order with exact turns; SIGINT ends it cleanly', async () => {
    const follower = startUmbel(['events', '--follow', '--json']);
    let out = '';
    follower.child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
    });
    for (const name of ['e1', 'e2', 'e3']) expect((await umbel(['spawn', name, ...cfg()])).code).toBe(0);
    for (const name of ['e1', 'e2', 'e3']) expect((await umbel(['send', name, `ECHO ${name} one`])).stdout).toBe('1\n');
    const all = await umbel(['wait', 'e1', 'e2', 'e3', '--json', '--timeout', '60s']);
    expect(all.code).toBe(0);
    expect(
      JSON.parse(all.stdout)
        .map((o: { worker: string; result: string }) => o.result)
        .sort(),
    ).toEqual(['e1 one', 'e2 one', 'e3 one']);
    expect((await umbel(['send', 'e2', 'ECHO e2 two'])).stdout).toBe('2\n');
    expect((await umbel(['wait', 'e2'])).stdout).toBe('e2 two\n');
    await umbel(['kill', 'e3']);
    await until(() => linesOf(out).some((e) => e.worker === 'e3' && e.kind === 'killed'), 'e3 killed in the stream');
    follower.child.kill('SIGINT');
    expect(await exited(follower.child)).toBe(130);
    const events = linesOf(out);
    const of = (w: string) => events.filter((e) => e.worker === w).map((e) => [e.kind, e.turn, e.reason].filter((x) => x !== undefined).join(' '));
    expect(of('e1')).toEqual(['spawned', 'ready', 'sent 1', 'ended 1 completed']);
    expect(of('e2')).toEqual(['spawned', 'ready', 'sent 1', 'ended 1 completed', 'sent 2', 'ended 2 completed']);
    expect(of('e3')).toEqual(['spawned', 'ready', 'sent 1', 'ended 1 completed', 'killed']);
    // the same history, read afterwards in one order: and from a cursor on, only what came after it
    const history = linesOf((await umbel(['events', 'e1', 'e2', '--json'])).stdout);
    expect(history.map((e) => e.at)).toEqual([...history.map((e) => e.at)].sort());
    const cursor = history.find((e) => e.worker === 'e2' && e.kind === 'sent' && e.turn === 2)?.cursor as string;
    const after = await umbel(['events', 'e1', 'e2', '--since', cursor]);
    expect(after.stdout).toMatch(/^\S+ {2}e2 {2}claude {2}ended {8}turn 2 {2}completed \(exit 0\)\n$/);
  });

  it('wait --any returns the first finisher; the others keep running and answer later', async () => {
    for (const name of ['a1', 'a2']) await umbel(['spawn', name, ...cfg()]);
    // slow by a margin a loaded machine's send and answer of a2 stay well inside (3 s did not, once)
    await umbel(['send', 'a1', 'DELAY 12000 ECHO slow']);
    await umbel(['send', 'a2', 'ECHO fast']);
    const any = await umbel(['wait', 'a1', 'a2', '--any', '--json', '--timeout', '60s']);
    expect(any.code).toBe(0);
    expect(JSON.parse(any.stdout).map((o: { worker: string; result: string }) => [o.worker, o.result])).toEqual([['a2', 'fast']]);
    expect(await umbel(['wait', 'a1', '--timeout', '60s'])).toMatchObject({ code: 0, stdout: 'slow\n' });
  });

  it('wait --all with one dead worker: both outcomes in the order they ended, and the dead one gives the exit code', async () => {
    for (const name of ['d1', 'd2']) await umbel(['spawn', name, ...cfg()]);
    await umbel(['send', 'd1', 'DELAY 10000 ECHO survived']); // a margin a loaded machine's send of d2 stays inside
    await umbel(['send', 'd2', 'EXIT 3']);
    const all = await umbel(['wait', 'd1', 'd2', '--timeout', '60s']);
    expect(all.code).toBe(125);
    expect(all.stdout).toMatch(/^── d2 · turn 1 · dead\n── d1 · turn 1 · completed\nsurvived\n$/);
    expect(all.stderr).toContain("worker 'd2' is dead");
  });

  it('events --follow ends when its reader goes away (EPIPE: 141)', async () => {
    await umbel(['spawn', 'p1', ...cfg()]);
    const follower = startUmbel(['events', 'p1', '--follow']);
    await new Promise<void>((resolve) => follower.child.stdout?.once('data', () => resolve()));
    follower.child.stdout?.destroy();
    await umbel(['send', 'p1', 'ECHO after the reader left']);
    expect(await exited(follower.child)).toBe(141);
  });
});
