import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEventStore } from '../ledger/event-store.js';
import { HOOK_SINK_SCRIPT, hookCommandFor, installHookSink } from './hook-sink.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'umbel-sink-'));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

function runSink(command: string, stdin: string, env: Record<string, string>): Promise<{ stdout: string; code: number }> {
  return new Promise((resolve) => {
    const child = execFile('sh', ['-c', command], { env: { PATH: '/usr/bin:/bin', ...env } }, (error, stdout) =>
      resolve({ stdout, code: error ? ((error as { code?: number }).code ?? 1) : 0 }),
    );
    child.stdin?.end(stdin);
  });
}

describe('hook sink', () => {
  it('writes each payload verbatim as one event file and prints nothing', async () => {
    const sink = join(dir, 'hooks', 'umbel-hook');
    await installHookSink(sink);
    expect((await stat(sink)).mode & 0o777).toBe(0o755);
    const events = join(dir, 'events');
    await (await import('node:fs/promises')).mkdir(events);
    const payload = JSON.stringify({ prompt: 'quotes \' " $(x) `y` \\ ünïcode 🚀\nline' });
    expect(await runSink(hookCommandFor(sink, 'stop'), payload, { UMBEL_EVENTS_DIR: events })).toEqual({ stdout: '', code: 0 });
    expect(await runSink(hookCommandFor(sink, 'notify', '{}'), '{}', { UMBEL_EVENTS_DIR: events })).toEqual({ stdout: '{}', code: 0 });
    const read = createEventStore().read(events).events;
    expect(read.map((e) => e.kind)).toEqual(['stop', 'notify']);
    expect(await readFile(join(events, read[0]?.file as string), 'utf8')).toBe(payload);
    expect((await readdir(events)).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  it('never fails the calling CLI: no events dir, or a hostile kind', async () => {
    const sink = join(dir, 'umbel-hook');
    await installHookSink(sink);
    expect((await runSink(`${sink} stop`, '{}', {})).code).toBe(0);
    const events = join(dir, 'ev');
    await (await import('node:fs/promises')).mkdir(events);
    await runSink(`${sink} '../../x'`, '{}', { UMBEL_EVENTS_DIR: events });
    expect(
      createEventStore()
        .read(events)
        .events.map((e) => e.kind),
    ).toEqual(['event']);
  });

  it('is installed idempotently', async () => {
    const sink = join(dir, 'umbel-hook');
    await installHookSink(sink);
    const before = (await stat(sink)).mtimeMs;
    await installHookSink(sink);
    expect((await stat(sink)).mtimeMs).toBe(before);
    expect(await readFile(sink, 'utf8')).toBe(HOOK_SINK_SCRIPT);
  });
});
