/** umbel_wait_many and umbel_events through the SDK's Client, on the engine over the memory substrate. */
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createUmbel, type FleetEvent, type Umbel } from '@umbel/core';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '@umbel/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMcpServer } from './server.js';

let home: string;
let work: string;
let substrate: MemorySubstrate;
let engine: Umbel;
let client: Client;
let closeServer: () => Promise<void>;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'umbel-mcp-fleet-'));
  work = await mkdtemp(join(tmpdir(), 'umbel-mcp-work-'));
  substrate = createMemorySubstrate();
  engine = createUmbel({ substrate, providers: [createMockProvider()], home, env: { PATH: process.env.PATH } });
  const server = createMcpServer(engine, { log: () => undefined });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: 'umbel-test', version: '0.0.0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  closeServer = () => server.close();
});

afterEach(async () => {
  await client.close().catch(() => undefined);
  await closeServer().catch(() => undefined);
  for (const name of await substrate.list()) await substrate.kill(name);
  await rm(home, { recursive: true, force: true, maxRetries: 5 });
  await rm(work, { recursive: true, force: true });
});

type Progress = { progress: number; message?: string };

async function ok<T>(name: string, args: Record<string, unknown>, onprogress?: (p: Progress) => void): Promise<T> {
  const result = (await client.callTool({ name, arguments: args }, undefined, onprogress ? { onprogress } : {})) as CallToolResult;
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return result.structuredContent as T;
}

/**
 * A worker's prompt that ends only once the tool has reported `first` ended (`GATE <file> <rest>` of
 * the memory substrate), and the progress handler that opens its gate: the order of the ends is the
 * test's, not the machine's (a 300 ms head start was lost on a loaded machine).
 */
function after(first: string, prompt: string): { prompt: string; onprogress: (p: Progress) => void } {
  const gate = join(work, `after-${first}`);
  return { prompt: `GATE ${gate} ${prompt}`, onprogress: (p) => void (p.message?.startsWith(`${first}: `) && writeFileSync(gate, '')) };
}

type Events = { events: FleetEvent[]; cursor?: string; more: boolean };
const brief = (r: Events) => r.events.map((e) => [e.worker, e.kind, ...(e.turn ? [e.turn] : [])]);

describe('umbel_events', () => {
  it('pages through the fleet with a cursor, and sleeps (wait) until the next event', async () => {
    await engine.spawn({ name: 'a', provider: 'mock', cwd: work });
    await engine.send({ name: 'a', prompt: 'ECHO one' });
    await engine.wait({ name: 'a' });
    const first = await ok<Events>('umbel_events', { limit: 2 });
    expect(brief(first)).toEqual([
      ['a', 'spawned'],
      ['a', 'ready'],
    ]);
    expect(first.more).toBe(true);
    const second = await ok<Events>('umbel_events', { since: first.cursor, limit: 2 });
    expect(brief(second)).toEqual([
      ['a', 'sent', 1],
      ['a', 'ended', 1],
    ]);
    expect(second.more).toBe(false);
    const empty = await ok<Events>('umbel_events', { since: second.cursor });
    expect(empty).toEqual({ events: [], cursor: second.cursor, more: false });
    const next = ok<Events>('umbel_events', { since: second.cursor, wait: '20s' });
    await engine.send({ name: 'a', prompt: 'ECHO two' });
    expect(brief(await next)[0]).toEqual(['a', 'sent', 2]);
  });
});

describe('umbel_wait_many', () => {
  it('all: every outcome in the order they ended, with next hints and the exit code; any: the first only', async () => {
    for (const name of ['a', 'b']) await engine.spawn({ name, provider: 'mock', cwd: work });
    const slow = after('b', 'ECHO slow');
    await engine.send({ name: 'a', prompt: slow.prompt });
    await engine.send({ name: 'b', prompt: 'DIE 4' });
    const all = await ok<{ outcomes: { worker: string; reason: string; next: string }[]; exitCode: number }>(
      'umbel_wait_many',
      { names: ['a', 'b'] },
      slow.onprogress,
    );
    expect(all.outcomes.map((o) => [o.worker, o.reason])).toEqual([
      ['b', 'dead'],
      ['a', 'completed'],
    ]);
    expect(all.outcomes[0]?.next).toContain('spawn a new worker');
    expect(all.exitCode).toBe(125);
    await engine.spawn({ name: 'c', provider: 'mock', cwd: work });
    await engine.send({ name: 'a', prompt: after('nobody', 'ECHO later').prompt });
    await engine.send({ name: 'c', prompt: 'ECHO now' });
    const any = await ok<{ outcomes: { worker: string; result?: string }[]; exitCode: number }>('umbel_wait_many', { names: ['a', 'c'], mode: 'any' });
    expect(any.outcomes.map((o) => [o.worker, o.result])).toEqual([['c', 'now']]);
    expect(any.exitCode).toBe(0);
  });
});

describe('progress notifications of the fleet tools', () => {
  it('umbel_wait_many: one per worker as it ends, naming worker and reason; progress always increases', async () => {
    for (const name of ['a', 'b']) await engine.spawn({ name, provider: 'mock', cwd: work });
    const slow = after('b', 'ECHO slow');
    await engine.send({ name: 'a', prompt: slow.prompt });
    await engine.send({ name: 'b', prompt: 'ECHO fast' });
    const progress: Progress[] = [];
    await ok('umbel_wait_many', { names: ['a', 'b'] }, (p) => {
      progress.push(p);
      slow.onprogress(p);
    });
    expect(progress.map((p) => p.message).filter((m) => m?.includes('ended'))).toEqual(['b: completed (1 of 2 ended)', 'a: completed (2 of 2 ended)']);
    expect(progress.map((p) => p.progress)).toEqual(progress.map((_, i) => i + 1));
  });

  it('umbel_events with wait: heartbeats while it sleeps, so a client that resets its timeout on progress keeps waiting', async () => {
    await closeServer();
    await client.close();
    const server = createMcpServer(engine, { log: () => undefined, progressIntervalMs: 50 });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    client = new Client({ name: 'umbel-test', version: '0.0.0' });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    closeServer = () => server.close();
    await engine.spawn({ name: 'a', provider: 'mock', cwd: work });
    const first = await ok<Events>('umbel_events', {});
    const progress: Progress[] = [];
    let sent: Promise<unknown> | undefined;
    const next = client.callTool({ name: 'umbel_events', arguments: { since: first.cursor, wait: '5s' } }, undefined, {
      onprogress: (p) => {
        progress.push(p);
        if (progress.length === 2) sent ??= engine.send({ name: 'a', prompt: 'ECHO two' });
      },
    });
    const result = (await next) as CallToolResult;
    await sent;
    expect(brief(result.structuredContent as Events)[0]).toEqual(['a', 'sent', 1]);
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress[0]?.message).toMatch(/^waiting for the next event: \d+s$/);
  });
});
