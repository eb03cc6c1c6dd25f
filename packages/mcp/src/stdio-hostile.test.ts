/**
 * Hostile input to the BUILT `umbel-mcp` bin over raw stdio (issue 38, item 7): a message over the
 * 10 MiB limit, invalid JSON-RPC of every kind, and an env value with a NUL byte each get a
 * JSON-RPC answer, and nothing queued behind them is lost. Needs `pnpm build` (the root test
 * script builds first).
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'umbel-mcp.js');
const MiB = 1024 * 1024;
type Message = Record<string, unknown>;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

interface Raw {
  readonly child: ChildProcessWithoutNullStreams;
  /** Every stdout line, parsed (a line that is not JSON fails the test where it is read). */
  readonly messages: Message[];
  write(line: string): void;
  /** Resolves once `n` messages have arrived (rejects when the server exits first). */
  count(n: number): Promise<Message[]>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function start(): Promise<Raw> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'umbel-mcp-hostile-')));
  await mkdir(join(root, 'home'));
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', CI: 'true', HOME: join(root, 'home'), UMBEL_HOME: join(root, 'state') };
  const child = spawn(process.execPath, [BIN], { env, stdio: ['pipe', 'pipe', 'pipe'], cwd: root });
  child.stdin.on('error', () => undefined); // a server that exited early fails the test where it is awaited
  const messages: Message[] = [];
  let partial = '';
  let stderr = '';
  let wake = () => {};
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    partial += chunk;
    for (let nl = partial.indexOf('\n'); nl !== -1; nl = partial.indexOf('\n')) {
      messages.push(JSON.parse(partial.slice(0, nl)) as Message);
      partial = partial.slice(nl + 1);
    }
    wake();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    await rm(root, { recursive: true, force: true });
  });
  const count = (n: number) =>
    new Promise<Message[]>((resolve, reject) => {
      const check = () => messages.length >= n && resolve(messages.slice());
      wake = check;
      check();
      void exited.then((e) => reject(new Error(`exited ${JSON.stringify(e)} after ${messages.length}/${n} messages; stderr:\n${stderr}`)));
    });
  return { child, messages, write: (line) => child.stdin.write(`${line}\n`), count, exited };
}

const call = (id: number, method: string, params?: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
const INIT = call(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'hostile', version: '0' } });
const byId = (messages: Message[], id: unknown) => messages.filter((m) => m.id === id);

describe('hostile JSON-RPC on the stdio server', () => {
  it('a message over 10 MiB gets an error reply; the calls queued behind it are answered; the server stays up', async () => {
    const server = await start();
    server.write(INIT);
    server.write(call(2, 'ping'));
    server.write(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping', params: { pad: 'x'.repeat(11 * MiB) } }));
    server.write(call(4, 'tools/list'));
    server.write(call(5, 'ping'));
    const messages = await server.count(5);
    expect(byId(messages, 2)[0]).toMatchObject({ result: {} });
    expect(byId(messages, null)).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/over the 10 MiB limit/) } }]);
    expect(byId(messages, 4)[0]?.result).toMatchObject({ tools: expect.any(Array) });
    expect(byId(messages, 5)[0]).toMatchObject({ result: {} });
    server.child.stdin.end();
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });

  it('six kinds of invalid JSON-RPC each get the error the spec asks for, and the server goes on', async () => {
    const server = await start();
    server.write(INIT);
    const invalid: [string, unknown, number][] = [
      ['{"jsonrpc":"2.0","id":7,"method":', null, -32700], // invalid JSON
      ['42', null, -32600], // not an object
      ['{"id":8,"method":"ping"}', 8, -32600], // missing jsonrpc
      ['{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}', null, -32600], // bad id type
      ['{"jsonrpc":"2.0","id":9}', 9, -32600], // missing method
      [`[${call(10, 'ping')},${call(11, 'ping')}]`, null, -32600], // a batch
      ['[]', null, -32600], // an empty batch
      ['{"jsonrpc":"1.0","id":"s","method":"ping"}', 's', -32600], // wrong version
    ];
    for (const [line] of invalid) server.write(line);
    server.write(call(12, 'ping'));
    const messages = await server.count(1 + invalid.length + 1);
    const errors = messages.filter((m) => 'error' in m); // written in order; the answers to 1 and 12 may come between
    expect(errors.map((m) => [m.id, (m.error as { code?: number } | undefined)?.code])).toEqual(invalid.map(([, id, code]) => [id, code]));
    for (const m of errors) expect(m).toMatchObject({ jsonrpc: '2.0', error: { message: expect.any(String) } });
    expect(byId(messages, 12)).toEqual([{ jsonrpc: '2.0', id: 12, result: {} }]);
    expect(server.child.exitCode).toBeNull();
  });

  it('an env value with a NUL byte is refused by the schema (usage), never delivered', async () => {
    const server = await start();
    server.write(INIT);
    server.write(call(2, 'tools/call', { name: 'umbel_spawn', arguments: { name: 'w', env: { X: 'a\u0000b' } } }));
    const [, reply] = await server.count(2);
    const result = reply?.result as { isError?: boolean; content: { text: string }[] };
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content[0]?.text ?? '{}')).toMatchObject({ error: { code: 'UMBEL_USAGE', message: expect.stringMatching(/NUL/) } });
  });
});
