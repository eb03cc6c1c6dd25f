/**
 * Run one of the CLI's own subcommands (a model list, a version) and read what it prints: no
 * shell, nothing on argv but the arguments given, the env and cwd the caller names, a time limit.
 * It never rejects: a failure comes back as one line saying why.
 */
import { execFile } from 'node:child_process';

/** What {@link runCommand} got: the output, or why there is none (`failed (1): Error: …`, `did not answer within 90s`). */
export type CommandResult = { readonly ok: true; readonly stdout: string } | { readonly ok: false; readonly reason: string };

/** Where and how long {@link runCommand} runs a command. */
export interface CommandOptions {
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly timeoutMs: number;
}

/** The text without terminal colour codes (`\x1b[1m` …). */
export function stripAnsi(text: string): string {
  return text.replace(/\x1b\[[0-9;]*m/g, '');
}

/** The last three lines of a CLI's output in one line (`a / b / c`), colours removed, at most 300 characters. */
export function lastLines(text: string): string {
  return stripAnsi(text).trim().split('\n').slice(-3).join(' / ').slice(0, 300);
}

/** Run `binary args` and resolve with its stdout, or with a one-line reason it failed (its exit, then the last lines it wrote). */
export function runCommand(binary: string, args: readonly string[], { env, cwd, timeoutMs }: CommandOptions): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile(binary, [...args], { env, cwd, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (!error) return resolve({ ok: true, stdout });
      const how = error.killed ? `did not answer within ${timeoutMs / 1000}s` : `failed (${error.code ?? error.signal ?? 'error'})`;
      const said = lastLines(stderr || stdout);
      resolve({ ok: false, reason: `${how}${said ? `: ${said}` : ''}` });
    });
  });
}
