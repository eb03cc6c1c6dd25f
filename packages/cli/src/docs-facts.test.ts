/**
 * The facts the READMEs and docs/migration.md state about umbel, checked against the code they
 * describe: the outcome exit codes, the built-in providers, `status --json`'s fields, the worker
 * states and the status table's columns. A release that adds an outcome, a provider or a status
 * field fails here until the pages say so.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OUTCOME_EXIT_CODES, type WorkerStatus, WorkerStateSchema, WorkerStatusSchema } from '@umbel/core';
import { TOOL_NAMES } from '@umbel/mcp';
import { builtInProviders } from '@umbel/runtime';
import { describe, expect, it } from 'vitest';
import { statusTable } from './output.js';

const root = join(import.meta.dirname, '..', '..', '..');
const read = (file: string): string => readFileSync(join(root, file), 'utf8');
const readmes = ['README.md', ...readdirSync(join(root, 'packages')).map((dir) => `packages/${dir}/README.md`)].filter((file) => {
  try {
    return read(file) !== '';
  } catch {
    return false;
  }
});
const builtIns = builtInProviders().map((p) => p.provider.providerId);

/** The names of a `{a, b?, c?: {x, y}, …}` list (nested braces dropped, `?` removed). */
export function fieldNames(list: string): string[] {
  let flat = list.slice(1, -1);
  while (/\{[^{}]*\}/.test(flat)) flat = flat.replace(/\{[^{}]*\}/g, '');
  return flat
    .split(',')
    .map((part) => part.trim().replace(/[?:].*$/, ''))
    .filter(Boolean);
}

/** The second cell of the migration table row whose first cell starts with `first`. */
function migrationRow(first: string): string {
  const row = read('docs/migration.md')
    .split('\n')
    .find((line) => line.startsWith(`| ${first}`));
  expect(row, `docs/migration.md has a row for ${first}`).toBeDefined();
  return (row as string).split(' | ')[1] ?? '';
}

describe('the READMEs and docs/migration.md state what the code does', () => {
  it("every README's list of outcomes and exit codes names every outcome with its code", () => {
    const lists = readmes.flatMap((file) =>
      [...read(file).matchAll(/Outcomes and exit codes: ([^;]*);/g)].map((m) => ({ file, text: (m[1] as string).replace(/\s+/g, ' ') })),
    );
    expect(lists.map((l) => l.file)).toEqual(expect.arrayContaining(['README.md', 'packages/umbel/README.md']));
    for (const { file, text } of lists)
      for (const [reason, code] of Object.entries(OUTCOME_EXIT_CODES))
        if (code !== 0 || reason === 'completed') expect(text, `${file} names ${reason} ${code}`).toContain(`${reason} ${code}`);
  });

  it('every page that lists the built-in providers lists all of them', () => {
    const runtime = /the built-in\s+providers \(([^)]*)\)/.exec(read('packages/runtime/README.md'))?.[1];
    expect(runtime?.split(/,\s*/)).toEqual(builtIns);
    expect(
      migrationRow('providers')
        .match(/built in: ([^;]*);/)?.[1]
        ?.replaceAll('`', '')
        .split(', '),
    ).toEqual(builtIns);
  });

  it('no README lists some built-in providers as if they were all (claude, codex, gemini without opencode, copilot and qwen)', () => {
    // provider ids only: "Claude Code, Codex and Gemini CLI" are also the MCP hosts, which opencode is not here
    const partial = /\bclaude,? codex,? (and )?gemini\b(?!,? (and )?opencode,? (and )?copilot,? (and )?qwen)/;
    const found = readmes.flatMap((file) => {
      const text = read(file).replaceAll('`', '').replaceAll(' /', ',').replace(/\s+/g, ' ');
      return [...text.matchAll(new RegExp(partial, 'g'))].map((m) => `${file}: …${text.slice(Math.max(0, (m.index ?? 0) - 40), (m.index ?? 0) + 40)}…`);
    });
    expect(found).toEqual([]);
  });

  it("@umbel/mcp's README names every MCP tool", () => {
    const readme = read('packages/mcp/README.md');
    expect(TOOL_NAMES.filter((name) => !new RegExp(`\\b${name}\\b`).test(readme))).toEqual([]);
  });

  it("docs/migration.md names every field of status --json, every worker state and the status table's columns", () => {
    const fields = /\{name, [^|]*\}(?=`)/.exec(migrationRow('`status --json`'))?.[0] ?? '';
    expect(fieldNames(fields).sort()).toEqual(Object.keys(WorkerStatusSchema.shape).sort());
    const columns = /`(NAME [A-Z ]+)`; states `([a-z -]+)`/.exec(migrationRow('`status` columns'));
    expect(columns?.[2]?.split(' ')).toEqual(WorkerStateSchema.options);
    const worker = {
      name: 'w1',
      provider: 'claude',
      state: 'ready',
      alive: true,
      cwd: '/w',
      createdAt: new Date().toISOString(),
      turn: 0,
      completedTurn: 0,
      anonymous: false,
      billing: 'unknown',
    };
    const header = statusTable([worker as WorkerStatus])
      .split('\n')[0]
      ?.trim()
      .split(/ {2,}/);
    expect(columns?.[1]?.split(' ').join(' ')).toBe(header?.join(' '));
  });

  it('fieldNames reads nested and optional fields (the parser can fail)', () => {
    expect(fieldNames('{a, b?, c?: {x, y?}, d}')).toEqual(['a', 'b', 'c', 'd']);
  });
});
