/**
 * The guardrail's check side: run the caller's check command in the worker's cwd with the answer on
 * stdin and in a file, bounded in time and output, and build the feedback prompt from what failed.
 */
import { spawn as spawnProcess } from 'node:child_process';
import { tailText } from '../engine/util.js';

/** Bound on the check output kept in attempts and fed back. */
export const CHECK_OUTPUT_TAIL = 4000;

/** Result of one check command run. */
export interface CheckRun {
  readonly exitCode: number | null;
  readonly output: string;
  readonly timedOut: boolean;
}

/** Run `command` with `sh -c` in `cwd`, the answer on stdin and in `$UMBEL_ANSWER_FILE`. */
export function runCheck(
  command: string,
  options: {
    cwd: string;
    answer: string;
    answerFile: string;
    env: Readonly<Record<string, string | undefined>>;
    timeoutMs: number;
    extraEnv: Record<string, string>;
  },
): Promise<CheckRun> {
  return new Promise((resolve) => {
    const child = spawnProcess('sh', ['-c', command], {
      cwd: options.cwd,
      env: { ...options.env, ...options.extraEnv, UMBEL_ANSWER_FILE: options.answerFile },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    const add = (chunk: Buffer) => {
      output = tailText(output + chunk.toString('utf8'), CHECK_OUTPUT_TAIL * 4);
    };
    child.stdout.on('data', add);
    child.stderr.on('data', add);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, options.timeoutMs);
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.answer);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ exitCode: null, output: `could not run the check: ${error.message}`, timedOut: false });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ exitCode: timedOut ? null : code, output: tailText(output, CHECK_OUTPUT_TAIL), timedOut });
    });
  });
}

/** The prompt that tells the worker why its answer was rejected. */
export function feedbackPrompt(input: { command?: string; run?: CheckRun; schemaErrors?: readonly string[]; attempt: number; remaining: number }): string {
  const parts = [
    `Your previous answer was rejected by an automated check (attempt ${input.attempt}; ${input.remaining} ${input.remaining === 1 ? 'retry' : 'retries'} left). Fix the problem and answer again in full.`,
  ];
  if (input.command && input.run && (input.run.exitCode !== 0 || input.run.timedOut)) {
    parts.push(
      `The check \`${input.command}\` ${input.run.timedOut ? 'timed out' : `exited with status ${input.run.exitCode}`}. Its output (last part):\n\`\`\`\n${input.run.output.trim() || '(no output)'}\n\`\`\``,
    );
  }
  if (input.schemaErrors?.length) {
    parts.push(`The answer must be JSON that matches the required JSON Schema. Problems:\n${input.schemaErrors.map((e) => `- ${e}`).join('\n')}`);
  }
  return parts.join('\n\n');
}
