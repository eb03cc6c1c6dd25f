/**
 * `umbel_doctor` through the SDK's own Client over an in-memory transport, on the memory substrate:
 * the tool is listed with its cost warning, answers the core report as structured content, and
 * maps bad input to the typed error. (The live checks run on real tmux: packages/runtime's test.)
 */
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createUmbel, DoctorReportSchema } from '@umbel/core';
import { createMemorySubstrate, createMockProvider } from '@umbel/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer } from './server.js';

let dir: string;
let client: Client;
let server: ReturnType<typeof createMcpServer>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'umbel-mcp-doctor-'));
  const cli = join(dir, 'echo-cli');
  await writeFile(cli, '#!/bin/sh\necho "echo-cli 1.2.0"\n');
  await chmod(cli, 0o755);
  const found = { ...createMockProvider(), providerId: 'found', displayName: 'Found CLI', verifiedVersions: ['1.1.0'], doFindBinary: async () => cli };
  const engine = createUmbel({
    substrate: createMemorySubstrate(),
    providers: [found, createMockProvider()],
    home: join(dir, 'state'),
    env: { PATH: process.env.PATH },
  });
  server = createMcpServer(engine, { log: () => undefined });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: 'umbel-doctor-test', version: '0.0.0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
});

afterAll(async () => {
  await client.close().catch(() => undefined);
  await server.close().catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
});

const call = async (args: Record<string, unknown>) => (await client.callTool({ name: 'umbel_doctor', arguments: args })) as CallToolResult;

describe('umbel_doctor', () => {
  it('is listed, and says that turn makes a model request', async () => {
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === 'umbel_doctor');
    expect(tool?.description).toMatch(/ONE small model request/);
    expect(Object.keys((tool?.inputSchema as { properties: object }).properties).sort()).toEqual(['env', 'providers', 'startupTimeout', 'turn']);
  });

  it('answers the report: a newer version passes and says so, the live checks are skipped without a scratch host', async () => {
    const result = await call({ providers: ['found'] });
    expect(result.isError).toBeFalsy();
    const report = DoctorReportSchema.parse(result.structuredContent);
    expect(JSON.parse((result.content as { text: string }[])[0]?.text ?? '')).toEqual(result.structuredContent);
    expect(report.ok).toBe(true);
    const found = report.providers[0];
    expect(found?.version).toBe('echo-cli 1.2.0');
    expect(found?.checks.find((c) => c.id === 'version')).toMatchObject({ status: 'pass', detail: expect.stringContaining('newer than verified') });
    expect(found?.checks.find((c) => c.id === 'launch')).toMatchObject({ status: 'skip' });
  });

  it('by default checks only the providers whose binary is found', async () => {
    const report = DoctorReportSchema.parse((await call({})).structuredContent);
    expect(report.providers.map((p) => p.provider)).toEqual(['found']);
  });

  it('a provider that cannot find its CLI fails the report', async () => {
    const report = DoctorReportSchema.parse((await call({ providers: ['found', createMockProvider().providerId] })).structuredContent);
    expect(report.ok).toBe(false);
    expect(report.providers[1]?.checks[0]).toMatchObject({ id: 'binary', status: 'fail' });
  });

  it('bad input is a typed error result', async () => {
    const unknown = await call({ providers: ['nope'] });
    expect(unknown.isError).toBe(true);
    expect((unknown.content as { text: string }[])[0]?.text).toContain('ProviderUnknownError');
    const extra = await call({ provider: 'found' });
    expect(extra.isError).toBe(true);
    expect((extra.content as { text: string }[])[0]?.text).toContain('UMBEL_USAGE');
  });
});
