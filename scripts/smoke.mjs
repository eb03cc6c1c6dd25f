#!/usr/bin/env node
// `pnpm smoke`: the smoke tier (docs/testing.md, tier 4). On a machine with real, signed-in CLIs it
// runs ONE tiny turn per installed CLI through every face — the CLI verbs (spawn, send, wait, read,
// kill), `umbel -p`, the MCP server (`umbel mcp` over stdio) and a YAML workflow (`umbel run`) —
// and prints a table. Each turn is a real model request on your own login: it runs only with
// UMBEL_SMOKE=1, never in CI, under its own temporary state root (your workers are never touched).
// Needs `pnpm build`. Exit 0 when every face of every installed CLI passed, 1 otherwise, 2 refused.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitCode, FACES, refusal, renderTable, SMOKE_PROMPT } from './lib/smoke.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(root, 'packages', 'cli', 'dist', 'cli.js');
const TURN_TIMEOUT = '3m';
const CALL_MS = 5 * 60_000;

function log(msg) {
  process.stderr.write(`[smoke] ${msg}\n`);
}

/** `umbel ARGS` in the scratch cwd with the scratch state root; never through a shell. */
function umbel(ctx, args) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ctx.work, env: ctx.env, encoding: 'utf8', timeout: CALL_MS, stdio: ['ignore', 'pipe', 'pipe'] });
  return { code: r.status ?? 1, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

const firstLine = (text) =>
  (
    text
      .trim()
      .split('\n')
      .find((l) => l.trim() !== '') ?? ''
  ).slice(0, 160);

/** The CLIs whose binary `umbel providers` finds, with their versions. */
function installed(ctx) {
  const r = umbel(ctx, ['providers', '--json']);
  if (r.code !== 0) throw new Error(`umbel providers failed: ${firstLine(r.stderr)}`);
  return JSON.parse(r.stdout)
    .providers.filter((p) => p.binary.status === 'found')
    .map((p) => ({ id: p.id, version: p.binary.version }));
}

/** Time one face; a throw is a failure with its message. */
async function timed(fn) {
  const started = Date.now();
  try {
    const detail = await fn();
    return { ok: detail === undefined, ms: Date.now() - started, ...(detail ? { detail } : {}) };
  } catch (error) {
    return { ok: false, ms: Date.now() - started, detail: error instanceof Error ? error.message : String(error) };
  }
}

/** spawn → send → wait → read → kill; returns why it failed, or undefined. */
function verbs(ctx, id) {
  const name = `smoke-${id}`;
  try {
    const steps = [
      ['spawn', name, '--provider', id],
      ['send', name, SMOKE_PROMPT],
      ['wait', name, '--timeout', TURN_TIMEOUT],
      ['read', name],
    ];
    for (const args of steps) {
      const r = umbel(ctx, args);
      if (r.code !== 0) return `${args[0]} exited ${r.code}: ${firstLine(r.stderr || r.stdout)}`;
      if (args[0] === 'read' && r.stdout.trim() === '') return 'read printed no answer';
    }
    return undefined;
  } finally {
    umbel(ctx, ['kill', name, '--purge']);
  }
}

/** `umbel -p --output-format json`: a result object that is no error. */
function print(ctx, id) {
  const r = umbel(ctx, ['-p', SMOKE_PROMPT, '--provider', id, '--output-format', 'json', '--timeout', TURN_TIMEOUT]);
  let result;
  try {
    result = JSON.parse(r.stdout);
  } catch {
    return `exit ${r.code}, no JSON result: ${firstLine(r.stderr)}`;
  }
  if (r.code !== 0 || result.is_error) return `exit ${r.code}: ${firstLine(String(result.result ?? result.umbel?.message ?? ''))}`;
  return undefined;
}

/** A line-delimited JSON-RPC client of `umbel mcp` on stdio. */
function mcpClient(ctx) {
  const child = spawn(process.execPath, [BIN, 'mcp'], { cwd: ctx.work, env: ctx.env, stdio: ['pipe', 'pipe', 'ignore'] });
  const pending = new Map();
  let buffer = '';
  let nextId = 1;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
      const line = buffer.slice(0, at).trim();
      buffer = buffer.slice(at + 1);
      if (!line) continue;
      const message = JSON.parse(line);
      pending.get(message.id)?.(message);
      pending.delete(message.id);
    }
  });
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => reject(new Error(`${method}: no answer within ${CALL_MS / 1000}s`)), CALL_MS);
      pending.set(id, (message) => {
        clearTimeout(timer);
        if (message.error) reject(new Error(`${method}: ${message.error.message}`));
        else resolve(message.result);
      });
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  const notify = (method) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
  const close = () => {
    child.stdin.end();
    child.kill();
  };
  return { request, notify, close };
}

/** umbel_spawn → umbel_send → umbel_wait → umbel_kill over `umbel mcp`. */
async function mcp(ctx, id) {
  const client = mcpClient(ctx);
  const name = `smoke-mcp-${id}`;
  const tool = async (toolName, args) => {
    const result = await client.request('tools/call', { name: toolName, arguments: args });
    if (result.isError) throw new Error(`${toolName}: ${firstLine(result.content?.[0]?.text ?? 'failed')}`);
    return result.structuredContent;
  };
  try {
    await client.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'umbel-smoke', version: '1' } });
    client.notify('notifications/initialized');
    await tool('umbel_spawn', { name, provider: id, cwd: ctx.work });
    await tool('umbel_send', { name, prompt: SMOKE_PROMPT });
    const outcome = await tool('umbel_wait', { name, timeout: TURN_TIMEOUT });
    return outcome?.reason === 'completed'
      ? undefined
      : `umbel_wait: ${outcome?.reason ?? 'no outcome'}${outcome?.message ? `: ${firstLine(outcome.message)}` : ''}`;
  } finally {
    await tool('umbel_kill', { name, purge: true }).catch(() => undefined);
    client.close();
  }
}

/** A one-step workflow run with `umbel run`. */
function yaml(ctx, id) {
  const file = join(ctx.work, `smoke-${id}.yaml`);
  const workflow = `workers:\n  cli:\n    provider: ${id}\nsteps:\n  - id: pong\n    worker: cli\n    prompt: ${SMOKE_PROMPT}\n    timeout: ${TURN_TIMEOUT}\n`;
  writeFileSync(file, workflow, { mode: 0o600 });
  const r = umbel(ctx, ['run', file, '--json']);
  return r.code === 0 ? undefined : `umbel run exited ${r.code}: ${firstLine(r.stderr || r.stdout)}`;
}

const FACE_RUNS = { verbs, print, mcp, yaml };

async function main() {
  const why = refusal(process.env);
  if (why) {
    process.stderr.write(`umbel smoke: refused: ${why}\n`);
    return 2;
  }
  if (!existsSync(BIN)) {
    process.stderr.write(`umbel smoke: ${BIN} is missing: run pnpm build first\n`);
    return 2;
  }
  const scratch = mkdtempSync(join(tmpdir(), 'umbel-smoke-'));
  const ctx = { work: join(scratch, 'work'), env: { ...process.env, UMBEL_HOME: join(scratch, 'state') } };
  mkdirSync(ctx.work, { mode: 0o700 });
  try {
    const rows = [];
    for (const cli of installed(ctx)) {
      const row = { provider: cli.id, version: cli.version, faces: {} };
      for (const face of FACES) {
        log(`${cli.id}: ${face}`);
        row.faces[face] = await timed(() => FACE_RUNS[face](ctx, cli.id));
      }
      rows.push(row);
    }
    process.stdout.write(renderTable(rows));
    return exitCode(rows);
  } finally {
    umbel(ctx, ['prune']);
    rmSync(scratch, { recursive: true, force: true });
  }
}

process.exitCode = await main();
