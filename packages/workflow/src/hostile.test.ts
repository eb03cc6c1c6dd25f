/**
 * Hostile workflow files (issue 16, point 9): an alias bomb, a huge file, 10,000-step graphs
 * (a cycle, a chain, a file listed in reverse), and `file:` outputs that try to leave the
 * worker's cwd. Each is refused with a WorkflowInvalidError (exit 2, no stack trace) or runs in
 * bounded time and memory. Nothing here asserts a duration: the per-test timeouts are far above
 * what the linear code needs even on a loaded machine, and below what the old quadratic/recursive
 * code took.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUmbel, errorExitCode, type Umbel } from '@umbel/core';
import { createMemorySubstrate, createMockProvider, type MemorySubstrate } from '@umbel/core/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Parser } from 'yaml';
import { MAX_WORKFLOW_BYTES, MAX_YAML_DEPTH, parseWorkflow, runWorkflow, runWorkflowFile } from './index.js';
import { loadYaml, syntaxErrors } from './source.js';

const parse = (text: string) => parseWorkflow(text, { file: 'wf.yaml' });

/** The WorkflowInvalidError thrown by `fn` (fails the test when none, or another error, is thrown). */
function invalid(fn: () => unknown): Error & { issues: { path: string; message: string }[] } {
  try {
    fn();
  } catch (error) {
    expect(error).toMatchObject({ code: 'UMBEL_WORKFLOW_INVALID', name: 'WorkflowInvalidError' });
    return error as Error & { issues: { path: string; message: string }[] };
  }
  throw new Error('expected a WorkflowInvalidError, but the workflow parsed');
}

/** The "billion laughs": 9 levels of 9 aliases each (9^9 leaves once expanded). */
function aliasBomb(): string {
  const lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]'];
  let previous = 'a';
  for (const level of 'bcdefghi') {
    lines.push(`${level}: &${level} [${Array(9).fill(`*${previous}`).join(', ')}]`);
    previous = level;
  }
  return `${lines.join('\n')}\nworkers: {w: {}}\nsteps: [{id: s, worker: w, prompt: hi}]\n`;
}

/** `count` steps s0…s(count-1) on one worker, each needing the one before (s0 needs the last when `cycle`). */
function chain(count: number, options: { cycle?: boolean; reverse?: boolean; refs?: 'previous' | 'first' } = {}): string {
  const steps: string[] = [];
  for (let i = 0; i < count; i++) {
    const need = i > 0 ? `s${i - 1}` : options.cycle ? `s${count - 1}` : undefined;
    const ref = i === 0 || !options.refs ? 'go' : `"after {{ steps.s${options.refs === 'first' ? 0 : i - 1}.output }}"`;
    // In reverse order each step needs its own worker (one worker's steps run in list order).
    const worker = options.reverse ? `w${i}` : 'w';
    steps.push(`  - {id: s${i}, worker: ${worker}, prompt: ${ref}${need ? `, needs: [${need}]` : ''}}`);
  }
  if (options.reverse) steps.reverse();
  const workers = options.reverse ? Array.from({ length: count }, (_, i) => `  w${i}: {provider: mock}`).join('\n') : '  w: {provider: mock}';
  return `workers:\n${workers}\nsteps:\n${steps.join('\n')}\n`;
}

/**
 * The longest chain that fits in 1 MiB: `count` steps on one worker (so each runs after the one
 * listed before it), each prompt using the previous answer, or the first one's.
 */
function compactChain(count: number, refs: 'previous' | 'first'): string {
  const id = (i: number) => `s${i.toString(36)}`;
  const steps = Array.from({ length: count }, (_, i) =>
    i === 0 ? `- {id: ${id(0)}, worker: w, prompt: go}` : `- {id: ${id(i)}, worker: w, prompt: "{{steps.${id(refs === 'first' ? 0 : i - 1)}.output}}"}`,
  );
  return `workers: {w: {}}\nsteps:\n${steps.join('\n')}\n`;
}

describe('hostile YAML', () => {
  it('an alias bomb is refused as invalid, located at its first alias', () => {
    const error = invalid(() => parse(aliasBomb()));
    expect(error.message).toMatch(/^invalid workflow: wf\.yaml:2:\d+: the YAML expands its aliases too often \(more than 100 times/);
    expect(error.message).not.toContain('resource exhaustion');
  });

  it('an alias before its anchor is refused as invalid (not a ReferenceError)', () => {
    expect(invalid(() => parse('workers: {w: *x}\nsteps: &x []\n')).message).toContain('wf.yaml:1:');
  });

  it('a file over the size limit is refused before it is parsed', () => {
    const text = `# ${'x'.repeat(MAX_WORKFLOW_BYTES)}\nworkers: {w: {}}\nsteps: [{id: s, worker: w, prompt: hi}]\n`;
    const error = invalid(() => parse(text));
    expect(error.message).toBe(`invalid workflow: wf.yaml is ${Buffer.byteLength(text)} bytes; a workflow file is at most 1 MiB (${MAX_WORKFLOW_BYTES} bytes)`);
    expect(error.issues).toHaveLength(1);
  });

  it('YAML nested too deeply says so, once, naming the first collection past the limit', () => {
    const deep = `description: ${'['.repeat(50_000)}${']'.repeat(50_000)}\n`;
    const error = invalid(() => parse(deep));
    expect(error.message).toBe(
      `invalid workflow: not valid YAML: wf.yaml:1:${13 + MAX_YAML_DEPTH}: the YAML is nested more than ${MAX_YAML_DEPTH} levels deep`,
    );
    expect(error.issues).toHaveLength(1);
    // block collections count as flow ones do
    const block = `description:\n${Array.from({ length: MAX_YAML_DEPTH + 1 }, (_, i) => `${' '.repeat(i + 1)}k${i}:`).join('\n')} x\n`;
    expect(invalid(() => parse(block)).message).toMatch(new RegExp(`: the YAML is nested more than ${MAX_YAML_DEPTH} levels deep$`));
    // the yaml package may report the overflow at several depths as the stack unwinds (a loaded fresh clone printed 35 lines)
    const overflow = (at: number) => ({ pos: [at, at + 1] as [number, number], message: 'Maximum call stack size exceeded' });
    const other = { pos: [2, 3] as [number, number], message: 'Unexpected flow-seq-end\nat line 1' };
    expect(syntaxErrors([overflow(831), overflow(830), other, overflow(829)])).toEqual([
      { at: 831, message: 'the YAML is nested too deeply' },
      { at: 2, message: 'Unexpected flow-seq-end' },
    ]);
  });

  it('deep YAML parsed again and again in one process is refused each time (it ran node out of stack until node aborted)', () => {
    // 3,000 levels: the yaml package's composer overflowed the stack, and the 19th overflow in one
    // process aborted node in V8's regex compiler ("RegExpCompiler Allocation failed")
    const deep = `description: ${'['.repeat(3_000)}${']'.repeat(3_000)}\n`;
    for (let i = 0; i < 30; i++) expect(invalid(() => parse(deep)).message).toMatch(/nested more than \d+ levels deep$/);
    // the top-level map is the first level
    const atLimit = `description: ${'['.repeat(MAX_YAML_DEPTH - 1)}x${']'.repeat(MAX_YAML_DEPTH - 1)}\n`;
    expect(JSON.stringify(loadYaml(atLimit, 'wf.yaml').value)).toBe(`{"description":${'['.repeat(MAX_YAML_DEPTH - 1)}"x"${']'.repeat(MAX_YAML_DEPTH - 1)}}`);
  });

  it('the text is tokenized once (the depth check and the document share the tokens); a second document is refused', () => {
    const tokenize = vi.spyOn(Parser.prototype, 'parse');
    try {
      expect(loadYaml('steps: [{id: s, worker: w, prompt: hi}]\n', 'wf.yaml').value).toEqual({ steps: [{ id: 's', worker: 'w', prompt: 'hi' }] });
      expect(tokenize).toHaveBeenCalledTimes(1);
    } finally {
      tokenize.mockRestore();
    }
    expect(invalid(() => parse('description: one\n---\ndescription: two\n')).message).toBe(
      'invalid workflow: not valid YAML: wf.yaml:2:1: Source contains multiple documents; please use YAML.parseAllDocuments()',
    );
  });

  it('a map with 40,000 keys is checked for duplicate keys in one pass', { timeout: 60_000 }, () => {
    const workers = Array.from({ length: 40_000 }, (_, i) => `  w${i}: {}`);
    const text = `workers:\n${workers.join('\n')}\n  w7: {}\nsteps: [{id: s, worker: w0, prompt: hi}]\n`;
    expect(invalid(() => parse(text)).message).toBe('invalid workflow: not valid YAML: wf.yaml:40002:3: Map keys must be unique');
    expect(Object.keys(parse(text.replace('  w7: {}\nsteps', 'steps')).spec.workers)).toHaveLength(40_000);
  });

  it('a 10,000-step cycle is reported (not a stack overflow), its middle elided', { timeout: 60_000 }, () => {
    const message = invalid(() => parse(chain(10_000, { cycle: true }))).message;
    expect(message).toMatch(
      /^invalid workflow: wf\.yaml:\d+:\d+: steps form a cycle of 10000 steps: s0 → s1 → s2 → s3 → … \(9992 more\) … → s9996 → s9997 → s9998 → s9999 → s0$/,
    );
  });

  it('a valid 10,000-step file listed in reverse order parses', { timeout: 60_000 }, () => {
    expect(parse(chain(10_000, { reverse: true })).spec.steps).toHaveLength(10_000);
  });

  it('a 16,000-step chain whose prompts use the previous answer validates (no quadratic ancestor sets)', { timeout: 60_000 }, () => {
    const text = compactChain(16_000, 'previous');
    expect(Buffer.byteLength(text)).toBeLessThan(MAX_WORKFLOW_BYTES);
    expect(parse(text).spec.steps).toHaveLength(16_000);
  });

  it('a 16,000-step chain whose prompts all use the first answer validates too', { timeout: 60_000 }, () => {
    expect(parse(compactChain(16_000, 'first')).spec.steps).toHaveLength(16_000);
  });

  it('a prompt with 40,000 unknown references is reported at once (the message lists the first 100)', { timeout: 60_000 }, () => {
    const prompt = Array(40_000).fill('{{ steps.nope.output }}').join(' ');
    const error = invalid(() => parse(`workers: {w: {}}\nsteps:\n  - {id: a, worker: w, prompt: "${prompt}"}\n`));
    expect(error.issues).toHaveLength(40_000);
    expect(error.message.split('\n')).toHaveLength(101);
  });

  it('a 10,000-step file with a reference that is not upstream still names it', { timeout: 60_000 }, () => {
    const text = chain(10_000, { reverse: true }).replace('{id: s0, worker: w0, prompt: go}', '{id: s0, worker: w0, prompt: "{{ steps.s9999.output }}"}');
    expect(invalid(() => parse(text)).message).toContain("{{ steps.s9999.output }}: step 's9999' is not upstream of 's0'");
  });
});

describe('hostile files through umbel run', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'umbel-wf-hostile-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const engine = { home: '/nonexistent-umbel-home', providerIds: ['mock'] } as unknown as Umbel;

  it('an alias bomb is one clear usage error (exit 2), no stack trace', async () => {
    const path = join(dir, 'bomb.yaml');
    await writeFile(path, aliasBomb());
    const error = await runWorkflowFile({ engine, file: path, env: {} }).catch((e: unknown) => e);
    expect(errorExitCode(error)).toBe(2);
    expect((error as Error).message).toMatch(/^invalid workflow: .*bomb\.yaml:2:\d+: the YAML expands its aliases too often/);
  });

  it('an endless file (/dev/zero) is refused after the size limit, without reading it all', async () => {
    const error = await runWorkflowFile({ engine, file: '/dev/zero', env: {} }).catch((e: unknown) => e);
    expect(errorExitCode(error)).toBe(2);
    expect((error as Error).message).toBe(`invalid workflow: /dev/zero is more than 1 MiB; a workflow file is at most 1 MiB (${MAX_WORKFLOW_BYTES} bytes)`);
  });
});

describe('file: outputs stay inside the worker cwd', () => {
  let home: string;
  let dir: string;
  let substrate: MemorySubstrate;
  let engine: Umbel;
  const env = { PATH: process.env.PATH, HOME: '/nonexistent-home' };
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'umbel-wf-hostile-home-'));
    dir = await mkdtemp(join(tmpdir(), 'umbel-wf-hostile-dir-'));
    await mkdir(join(dir, 'repo'));
    await writeFile(join(dir, 'secret.txt'), 'SECRET outside the cwd');
    substrate = createMemorySubstrate();
    engine = createUmbel({ substrate, providers: [createMockProvider()], home, env });
  });
  afterEach(async () => {
    for (const name of await substrate.list()) await substrate.kill(name);
    await rm(home, { recursive: true, force: true, maxRetries: 5 });
    await rm(dir, { recursive: true, force: true });
  });

  const workflow = (source: string, cwd = 'repo') =>
    parseWorkflow(`workers: {w: {provider: mock, cwd: ${cwd}}}\nsteps:\n  - {id: a, worker: w, prompt: ECHO hi, outputs: {out: "file:${source}"}}\n`, {
      file: join(dir, 'wf.yaml'),
    });

  it('a path that leaves the cwd, or an absolute one, is invalid before anything runs', () => {
    for (const source of ['../secret.txt', '../../../../etc/hostname', 'sub/../../secret.txt', '/etc/hostname', '..']) {
      expect(invalid(() => workflow(source)).message, source).toContain(
        `out: a file output is a path inside the worker's cwd (no absolute path, no '..' out of it): '${source}'`,
      );
    }
    expect(workflow('sub/../inside.md').spec.steps[0]?.outputs).toEqual({ out: 'file:sub/../inside.md' });
  });

  it('a symlink the agent left pointing outside the cwd fails the step; nothing is copied', async () => {
    await symlink(join(dir, 'secret.txt'), join(dir, 'repo', 'leak.md'));
    const summary = await runWorkflow(engine, workflow('leak.md'), { runId: 'h1', env });
    expect(summary).toMatchObject({ ok: false, exitCode: 1, failedStep: { id: 'a', reason: 'UMBEL_WORKFLOW_FAILED' } });
    expect(summary.failedStep?.message).toMatch(/^step 'a': output 'out' \(file:leak\.md\) resolves to .*secret\.txt, outside the worker's cwd .*repo$/);
    expect(JSON.stringify(summary)).not.toContain('SECRET');
    await expect(readdir(join(home, 'runs', 'h1', 'outputs'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('so does a symlinked directory on the way', async () => {
    await symlink(dir, join(dir, 'repo', 'up'));
    const summary = await runWorkflow(engine, workflow('up/secret.txt'), { runId: 'h2', env });
    expect(summary.failedStep?.message).toContain("outside the worker's cwd");
    expect(JSON.stringify(summary)).not.toContain('SECRET');
  });

  it('a FIFO is refused as not a regular file (reading it would block forever)', { timeout: 20_000 }, async () => {
    execFileSync('mkfifo', [join(dir, 'repo', 'pipe')]);
    const summary = await runWorkflow(engine, workflow('pipe'), { runId: 'h3', env });
    expect(summary.failedStep?.message).toMatch(/output 'out' \(file:pipe\) is not a regular file/);
  });

  it('a symlink inside the cwd, and a cwd reached through a symlink, are fine', async () => {
    await writeFile(join(dir, 'repo', 'real.md'), 'inside');
    await symlink('real.md', join(dir, 'repo', 'link.md'));
    await symlink(join(dir, 'repo'), join(dir, 'repo-link'));
    expect((await runWorkflow(engine, workflow('link.md'), { runId: 'h4', env })).outputs.a?.outputs).toEqual({ out: 'inside' });
    expect((await runWorkflow(engine, workflow('real.md', 'repo-link'), { runId: 'h5', env })).outputs.a?.outputs).toEqual({ out: 'inside' });
  });
});

describe('a 10,000-step run listed in reverse order', () => {
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'umbel-wf-hostile-run-'));
  });
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('schedules every step without recursing through the chain', { timeout: 30_000 }, async () => {
    // The old scheduler recursed from the last-listed step down to the first before anything ran.
    // Here the first step's spawn fails, so the run ends at once: s0 failed, the rest cancelled.
    const spawned: string[] = [];
    const engine = {
      home,
      providerIds: ['mock'],
      spawn: async (o: { name: string }) => {
        spawned.push(o.name);
        throw new Error('no spawn in this test');
      },
      kill: async () => ({}),
    } as unknown as Umbel;
    const wf = parseWorkflow(chain(10_000, { reverse: true }), { file: join(home, 'wf.yaml') });
    const summary = await runWorkflow(engine, wf, { runId: 'big', env: {} });
    expect(summary).toMatchObject({ ok: false, exitCode: 1, failedStep: { id: 's0', message: 'no spawn in this test' } });
    expect(spawned).toEqual(['big-w0']);
    expect(summary.steps.filter((s) => s.status === 'cancelled')).toHaveLength(9_999);
  });
});
