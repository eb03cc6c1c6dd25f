/**
 * The guardrail primitive: after a turn completes, run an external check (a shell command and/or
 * a JSON Schema). Accept, or send the worker a feedback prompt with the check's output and wait
 * again — up to `retries` times — then halt with `guardrail-halted`. Enforced, external, looped;
 * never advisory.
 */
import { spawn as spawnProcess } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { join, resolve as resolvePath } from 'node:path';
import { createRequire } from 'node:module';
import type { EngineInternals } from './engine.js';
import { UmbelError, UsageError } from './errors.js';
import { writeFileAtomic } from './fs-atomic.js';
import { type Attempt, OUTCOME_EXIT_CODES, type Outcome, type WaitOptionsParsed } from './schemas.js';
import type { JsonSchemaValidator, WaitContext } from './umbel.js';
import { tailText } from './util.js';
import { waitForTurn } from './wait.js';

/** Bound on the check output kept in attempts and fed back. */
export const CHECK_OUTPUT_TAIL = 4000;

/** The default JSON Schema validator (ajv, all errors). */
export const ajvValidator: JsonSchemaValidator = (schema, value) => {
  // ajv is loaded on first use (it is CommonJS, so require() works synchronously).
  const require = createRequire(import.meta.url);
  const { Ajv } = require('ajv') as typeof import('ajv');
  const { Ajv2020 } = require('ajv/dist/2020') as typeof import('ajv/dist/2020');
  const draft = typeof schema === 'object' && schema !== null ? String((schema as { $schema?: unknown }).$schema ?? '') : '';
  const ajv = /2020-12|2019-09/.test(draft) ? new Ajv2020({ allErrors: true, strict: false }) : new Ajv({ allErrors: true, strict: false });
  const validate = ajv.compile(schema as object);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`);
};

/** Extract a JSON value from an answer: the whole text, or the first fenced block. */
export function extractJson(answer: string): { ok: true; value: unknown } | { ok: false; error: string } {
  const candidates = [answer.trim()];
  const fence = /```(?:json|JSON)?\s*\n([\s\S]*?)\n?```/.exec(answer);
  if (fence?.[1] !== undefined) candidates.push(fence[1].trim());
  for (const text of candidates) {
    try {
      return { ok: true, value: JSON.parse(text) };
    } catch {
      // try the next candidate
    }
  }
  return { ok: false, error: 'the answer is not JSON (neither the whole answer nor a ```json fenced block parses)' };
}

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

/** wait + check → feedback → retry → halt. */
export async function runGuarded(
  x: EngineInternals,
  options: WaitOptionsParsed,
  context: WaitContext & { send?: (name: string, prompt: string) => Promise<{ turn: number }> } = {},
): Promise<Outcome> {
  let schema: unknown;
  if (options.schema) {
    const path = resolvePath(options.schema);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch {
      throw new UsageError(`--schema ${options.schema}: cannot read ${path}`, { code: 'UMBEL_CHECK_INVALID' });
    }
    try {
      schema = JSON.parse(text);
    } catch (error) {
      throw new UsageError(`--schema ${options.schema}: not valid JSON (${(error as Error).message})`, { code: 'UMBEL_CHECK_INVALID' });
    }
  }
  const validate = x.settings.validateJsonSchema ?? ajvValidator;
  if (schema !== undefined) {
    try {
      validate(schema, null);
    } catch (error) {
      throw new UsageError(`--schema ${options.schema}: not a usable JSON Schema (${(error as Error).message})`, { code: 'UMBEL_CHECK_INVALID' });
    }
  }
  const send = context.send;
  if (!send) throw new UmbelError({ code: 'UMBEL_INTERNAL', message: 'guardrail needs a send function' });
  const attempts: Attempt[] = [];
  let turn = options.turn;
  for (let attempt = 1; ; attempt++) {
    const t0 = Date.now();
    context.onProgress?.({ worker: options.name, turn: turn ?? 0, elapsedMs: 0, attempt });
    const outcome = await waitForTurn(x, { name: options.name, turn, timeout: options.timeout, idleTimeout: options.idleTimeout }, context);
    turn = outcome.turn;
    if (outcome.reason !== 'completed') {
      attempts.push({
        attempt,
        turn: outcome.turn,
        reason: outcome.reason,
        accepted: false,
        durationMs: Date.now() - t0,
        ...(outcome.result !== undefined ? { answer: outcome.result } : {}),
      });
      return { ...outcome, attempts };
    }
    const answer = outcome.result ?? '';
    let schemaErrors: string[] | undefined;
    if (schema !== undefined) {
      const parsed = extractJson(answer);
      schemaErrors = parsed.ok ? [...validate(schema, parsed.value)] : [parsed.error];
    }
    let run: CheckRun | undefined;
    if (options.check) {
      const { meta } = await x.loadWorker(options.name);
      const dir = join(x.paths.worker(options.name).dir, 'guard');
      await mkdir(dir, { recursive: true });
      const answerFile = join(dir, `turn-${outcome.turn}.txt`);
      await writeFileAtomic(answerFile, answer);
      run = await runCheck(options.check, {
        cwd: meta.cwd,
        answer,
        answerFile,
        env: x.env,
        timeoutMs: options.checkTimeout,
        extraEnv: { UMBEL_WORKER: options.name, UMBEL_TURN: String(outcome.turn), UMBEL_ATTEMPT: String(attempt) },
      });
    }
    const accepted = (schemaErrors?.length ?? 0) === 0 && (!run || run.exitCode === 0);
    attempts.push({
      attempt,
      turn: outcome.turn,
      reason: 'completed',
      answer,
      ...(run ? { checkExitCode: run.exitCode, checkOutput: run.output } : {}),
      ...(schemaErrors ? { schemaErrors } : {}),
      accepted,
      durationMs: Date.now() - t0,
    });
    if (accepted) return { ...outcome, attempts };
    if (attempt > options.retries) {
      return {
        ...outcome,
        reason: 'guardrail-halted',
        exitCode: OUTCOME_EXIT_CODES['guardrail-halted'],
        message: `the answer was rejected ${attempt} time${attempt === 1 ? '' : 's'}; halted after ${options.retries} ${options.retries === 1 ? 'retry' : 'retries'}`,
        attempts,
      };
    }
    const sent = await send(options.name, feedbackPrompt({ command: options.check, run, schemaErrors, attempt, remaining: options.retries - attempt + 1 }));
    turn = sent.turn;
  }
}
