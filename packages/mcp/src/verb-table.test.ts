/**
 * The verb table (@umbel/core's VERBS) against the MCP server: every verb the table gives a tool
 * is registered under that name and its tool calls that verb of the engine with the caller's
 * options; every other tool is one of the few that are no verb of the engine. A verb added to the
 * table with a tool but not registered fails here.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type Umbel, VERB_NAMES, VERB_TOOLS, type VerbName, VERBS } from '@umbel/core';
import { createMockProvider } from '@umbel/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMcpServer, TOOL_NAMES } from './server.js';

/** The tools that are no verb of the engine: help, a wait on several workers (core's waitMany), the pools. */
const NOT_VERB_TOOLS = ['umbel_help', 'umbel_wait_many', 'umbel_pool_start', 'umbel_pool_status', 'umbel_pool_stop'];

let work: string;
let calls: { verb: string; options: unknown }[];
let client: Client;

/** The tool's input for a verb on worker `w`. */
function inputOf(verb: VerbName): Record<string, unknown> {
  const extra: Partial<Record<VerbName, Record<string, unknown>>> = {
    spawn: { provider: 'mock', cwd: work },
    send: { prompt: 'hi' },
    keys: { keys: ['Enter'] },
  };
  if (VERBS[verb].route !== 'worker' && verb !== 'spawn') return {};
  return { name: 'w', ...extra[verb] };
}

/** An engine whose every verb records its call (and answers nothing useful: only the call is looked at). */
function spyEngine(): Umbel {
  const provider = createMockProvider();
  const verbs = Object.fromEntries(
    VERB_NAMES.map((verb) => [
      verb,
      verb === 'events'
        ? async function* (options: unknown) {
            calls.push({ verb, options });
            yield* [];
          }
        : async (options: unknown) => {
            calls.push({ verb, options });
            return {};
          },
    ]),
  );
  return { home: work, providerIds: [provider.providerId], provider: () => provider, pool: {} as never, ...verbs } as unknown as Umbel;
}

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'umbel-mcp-verbs-'));
  calls = [];
  const server = createMcpServer(spyEngine(), { log: () => undefined });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: 'umbel-test', version: '0.0.0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
});
afterEach(async () => {
  await client.close();
  await rm(work, { recursive: true, force: true });
});

describe('the MCP tools of the verb table', () => {
  it('are every tool but the few that are no verb', async () => {
    const listed = (await client.listTools()).tools.map((t) => t.name);
    expect([...listed].sort()).toEqual([...VERB_TOOLS.map((v) => v.tool), ...NOT_VERB_TOOLS].sort());
    expect([...TOOL_NAMES].sort()).toEqual([...listed].sort());
  });

  it.each(VERB_TOOLS)('$tool calls $verb', async ({ verb, tool }) => {
    const input = inputOf(verb);
    await client.callTool({ name: tool, arguments: input });
    const made = calls.filter((c) => c.verb === verb);
    expect(made.length, `${tool} reached ${verb}`).toBeGreaterThan(0);
    if (VERBS[verb].route === 'worker') expect(made[0]?.options).toMatchObject(input);
  });
});
