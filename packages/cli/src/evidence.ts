/** The text faces of `actions` and `diff` (for people; `--json` prints the results as they are). */
import { relative } from 'node:path';
import type { ActionsResult, DiffResult } from '@umbel/core';

/** A path as shown: relative when inside the worker's cwd, else as it is. */
function shown(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel !== '' && !rel.startsWith('..') && !rel.startsWith('/') ? rel : path;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\r?\n/g, ' ⏎ ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function list(title: string, paths: readonly string[], cwd: string): string[] {
  if (paths.length === 0) return [`${title}: none`];
  return [`${title} (${paths.length}):`, ...paths.map((p) => `  ${shown(p, cwd)}`)];
}

/** The digest of `umbel actions`. */
export function actionsText(a: ActionsResult): string {
  const which =
    a.turnCount === 0 ? 'no turns' : a.turnCount === 1 ? `turn ${a.turns[0]}` : `turns ${a.turns[0]}–${a.turns[a.turns.length - 1]} (${a.turnCount} turns)`;
  const lines = [`## Worker actions: ${a.worker}, ${which}`];
  if (a.note) return `${[...lines, `(${a.note})`].join('\n')}\n`;
  if (!a.complete) lines.push('(a turn is still running: more may come)');
  const tools = Object.entries(a.toolsUsed).map(([name, n]) => `${name}×${n}`);
  lines.push(`Tools (${a.toolCalls} calls): ${tools.length ? tools.join(', ') : 'none'}`);
  if (!a.classified) lines.push(`(provider '${a.provider}' does not say what its tools do: files and commands are not listed)`);
  else {
    lines.push(...list('Files read', a.filesRead, a.cwd), ...list('Files edited', a.filesEdited, a.cwd), ...list('Files written', a.filesWritten, a.cwd));
    lines.push(a.shellCommands.length ? `Shell commands (${a.shellCommands.length}):` : 'Shell commands: none');
    for (const command of a.shellCommands) lines.push(`  $ ${oneLine(command, 200)}`);
  }
  lines.push(`## Errors (${a.errors.length})`, ...a.errors.map((e) => `  ${oneLine(e, 300)}`));
  lines.push('## Final message', a.finalMessage ?? '(none yet)');
  return `${lines.join('\n')}\n`;
}

/** What `umbel diff` prints on stdout (the patch, or the files) and on stderr (the note). */
export function diffText(d: DiffResult): { stdout: string; stderr: string } {
  const note = d.note ? `umbel: ${d.note}\n` : '';
  if (d.kind === 'text' || d.method === 'git') return { stdout: d.patch, stderr: note };
  const files = d.files.map((f) => `${f.status.padEnd(8)} ${f.path}\n`).join('');
  return {
    stdout: files,
    stderr: `${note}umbel: ${d.files.length ? 'the files the transcript says the turn wrote (no contents)' : 'the transcript names no file the turn wrote'}\n`,
  };
}
