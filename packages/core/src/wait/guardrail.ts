/**
 * The guardrail loop: after a turn completes, run the external check (a shell command and/or a JSON
 * Schema). Accept, or send the worker a feedback prompt with what failed and wait again — up to
 * `retries` times — then halt with `guardrail-halted`. Enforced, external, looped; never advisory.
 * `timeout` bounds the whole loop (every attempt gets what is left, a check at most that too): a
 * loop cut by it ends `timeout` with the turn to wait for next and the retries left.
 */
import { join } from 'node:path';
import { type CheckRun, feedbackPrompt, runCheck } from './check-runner.js';
import type { EngineContext } from '../engine/context.js';
import { writeFileAtomic } from '@umbel/provider';
import { ajvValidator, extractJson, loadJsonSchema } from './json-schema.js';
import { usableWorker } from '../ledger/ledger.js';
import { outcomeOf } from '../contract/outcome.js';
import type { Attempt, Outcome, WaitOptionsParsed } from '../contract/schemas.js';
import type { JsonSchemaValidator, WaitContext } from '../contract/umbel.js';
import { formatMs } from '../engine/util.js';
import { waitForTurn } from './wait.js';

/** How the guardrail sends its feedback prompt (the engine's own send). */
export type FeedbackSend = (name: string, prompt: string) => Promise<{ turn: number }>;

interface Judgement {
  readonly run?: CheckRun;
  readonly schemaErrors?: string[];
  readonly accepted: boolean;
}

async function judge(
  ctx: EngineContext,
  options: WaitOptionsParsed,
  outcome: Outcome,
  attempt: number,
  schema: { value: unknown; validate: JsonSchemaValidator } | undefined,
  leftMs: number,
): Promise<Judgement> {
  const answer = outcome.result ?? '';
  let schemaErrors: string[] | undefined;
  if (schema) {
    const parsed = extractJson(answer);
    schemaErrors = parsed.ok ? [...schema.validate(schema.value, parsed.value)] : [parsed.error];
  }
  let run: CheckRun | undefined;
  if (options.check) {
    const view = usableWorker(ctx, options.name);
    const answerFile = join(view.paths.dir, 'guard', `turn-${outcome.turn}.txt`);
    await writeFileAtomic(answerFile, answer);
    run = await runCheck(options.check, {
      cwd: view.meta.cwd,
      answer,
      answerFile,
      env: ctx.env,
      timeoutMs: Math.max(1, Math.min(options.checkTimeout, leftMs)),
      extraEnv: { UMBEL_WORKER: options.name, UMBEL_TURN: String(outcome.turn), UMBEL_ATTEMPT: String(attempt) },
    });
  }
  const accepted = (schemaErrors?.length ?? 0) === 0 && (!run || run.exitCode === 0);
  return { ...(run ? { run } : {}), ...(schemaErrors ? { schemaErrors } : {}), accepted };
}

function attemptOf(attempt: number, outcome: Outcome, judgement: Judgement | undefined, t0: number): Attempt {
  return {
    attempt,
    turn: outcome.turn,
    reason: outcome.reason,
    ...(outcome.result !== undefined ? { answer: outcome.result } : {}),
    ...(judgement?.run ? { checkExitCode: judgement.run.exitCode, checkOutput: judgement.run.output } : {}),
    ...(judgement?.schemaErrors ? { schemaErrors: judgement.schemaErrors } : {}),
    accepted: judgement?.accepted ?? false,
    durationMs: Date.now() - t0,
  };
}

/** A loop the deadline cut: what to wait for next to go on (the same check, the retries left). */
function stillRunning(outcome: Outcome, options: WaitOptionsParsed, attempt: number, attempts: Attempt[], what: string): Outcome {
  const left = options.retries - (attempt - 1);
  const { result: _unjudged, ...rest } = outcome;
  return outcomeOf('timeout', {
    ...rest,
    message: `still running: ${what} within ${formatMs(options.timeout)} (attempt ${attempt}, turn ${outcome.turn}); to go on, wait for turn ${outcome.turn} again with the same check and retries ${left}`,
    attempts,
  });
}

/** wait + check → feedback → retry → halt. */
export async function runGuarded(ctx: EngineContext, options: WaitOptionsParsed, send: FeedbackSend, context: WaitContext = {}): Promise<Outcome> {
  const validate = ctx.settings.validateJsonSchema ?? ajvValidator;
  const schema = options.schema ? { value: await loadJsonSchema(options.schema, validate), validate } : undefined;
  const attempts: Attempt[] = [];
  let turn = options.turn;
  const deadline = Date.now() + options.timeout;
  for (let attempt = 1; ; attempt++) {
    const t0 = Date.now();
    context.onProgress?.({ worker: options.name, turn: turn ?? 0, elapsedMs: 0, attempt });
    const left = Math.max(0, deadline - Date.now());
    const outcome = await waitForTurn(ctx, { name: options.name, turn, timeout: left, idleTimeout: options.idleTimeout }, context);
    if (outcome.reason !== 'completed') {
      attempts.push(attemptOf(attempt, outcome, undefined, t0));
      if (outcome.reason === 'timeout' && attempt > 1) return stillRunning(outcome, options, attempt, attempts, 'the turn did not end');
      return { ...outcome, attempts };
    }
    const judgeLeft = Math.max(0, deadline - Date.now());
    const judgement = await judge(ctx, options, outcome, attempt, schema, judgeLeft);
    if (judgement.run?.timedOut && judgeLeft < options.checkTimeout) {
      // The deadline, not the check's own limit, cut it: the answer is unjudged, so judge it again next time.
      attempts.push(attemptOf(attempt, { ...outcome, reason: 'timeout' }, undefined, t0));
      return stillRunning(outcome, options, attempt, attempts, 'the check did not finish');
    }
    attempts.push(attemptOf(attempt, outcome, judgement, t0));
    if (judgement.accepted) return { ...outcome, attempts };
    if (attempt > options.retries) {
      return outcomeOf('guardrail-halted', {
        ...outcome,
        message: `the answer was rejected ${attempt} time${attempt === 1 ? '' : 's'}; halted after ${options.retries} ${options.retries === 1 ? 'retry' : 'retries'}`,
        attempts,
      });
    }
    const feedback = feedbackPrompt({
      command: options.check,
      run: judgement.run,
      schemaErrors: judgement.schemaErrors,
      attempt,
      remaining: options.retries - attempt + 1,
    });
    turn = (await send(options.name, feedback)).turn;
  }
}
