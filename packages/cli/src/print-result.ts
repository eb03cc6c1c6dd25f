/** The `claude -p --output-format json` result objects `umbel -p` prints (plus umbel's fields). */
import { randomUUID } from 'node:crypto';
import { errorBody, errorExitCode, type Outcome, PRINT_EXIT_CODES } from '@umbel/core';

/** snake_case of a camelCase key (`reasoningTokens` → `reasoning_tokens`). */
const snake = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Claude's usage field names from umbel's; any other count in claude -p's snake_case. */
function claudeUsage(usage: Outcome['usage']): Record<string, number> {
  const names: Record<string, string> = {
    inputTokens: 'input_tokens',
    outputTokens: 'output_tokens',
    cacheReadTokens: 'cache_read_input_tokens',
    cacheCreationTokens: 'cache_creation_input_tokens',
  };
  const out: Record<string, number> = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
  for (const [k, v] of Object.entries(usage ?? {})) if (typeof v === 'number' && k !== 'costUsd') out[names[k] ?? snake(k)] = v;
  return out;
}

/** Claude's `modelUsage`: the answering model with its token counts (no cost or context window: the transcript has none). */
function modelUsage(outcome: Outcome): Record<string, Record<string, number>> {
  if (!outcome.model) return {};
  const u = outcome.usage ?? {};
  return {
    [outcome.model]: {
      inputTokens: u.inputTokens ?? 0,
      outputTokens: u.outputTokens ?? 0,
      cacheReadInputTokens: u.cacheReadTokens ?? 0,
      cacheCreationInputTokens: u.cacheCreationTokens ?? 0,
    },
  };
}

/** The API failed: a provider error or an account one (claude -p reports all of them the same way). */
export function isApiFailure(outcome: Outcome): boolean {
  return outcome.reason === 'provider-error' || outcome.reason === 'rate-limited' || outcome.reason === 'auth-failed';
}

/**
 * Exit code of `umbel -p` for an outcome: claude's 1 for a model error, umbel's codes otherwise
 * (an account failure has its own: rate-limited 118, auth-failed 119).
 */
export function printExitCode(outcome: Outcome): number {
  return PRINT_EXIT_CODES[outcome.reason];
}

/** What umbel adds of an account failure under `umbel`: when the limit resets and which one. */
function accountKeys(outcome: Outcome): Record<string, string> {
  return { ...(outcome.resetsAt ? { resets_at: outcome.resetsAt } : {}), ...(outcome.limit ? { limit: outcome.limit } : {}) };
}

/** The result object for an outcome. `exitCode` overrides the outcome's (an interrupt's code). */
export function resultObject(outcome: Outcome, extra: { durationMs: number; sessionId?: string; exitCode?: number }): Record<string, unknown> {
  const isError = outcome.reason !== 'completed';
  const apiFailure = isApiFailure(outcome);
  const result = apiFailure ? (outcome.message ?? '') : (outcome.result ?? (isError ? (outcome.message ?? '') : ''));
  return {
    type: 'result',
    subtype: outcome.reason === 'completed' || apiFailure ? 'success' : 'error_during_execution',
    is_error: isError,
    duration_ms: extra.durationMs,
    duration_api_ms: 0,
    num_turns: outcome.numTurns ?? 1,
    result,
    session_id: outcome.sessionId ?? extra.sessionId ?? '',
    total_cost_usd: outcome.usage?.costUsd ?? 0,
    usage: claudeUsage(outcome.usage),
    modelUsage: modelUsage(outcome),
    permission_denials: [],
    terminal_reason: outcome.reason === 'completed' ? 'completed' : apiFailure ? 'api_error' : outcome.reason,
    stop_reason: outcome.stopReason ?? null,
    api_error_status: outcome.apiErrorStatus ?? null,
    ...(outcome.apiErrorType ? { api_error_type: outcome.apiErrorType } : {}),
    uuid: randomUUID(),
    worker: outcome.worker,
    provider: outcome.provider,
    turn: outcome.turn,
    umbel: {
      reason: outcome.reason,
      exit_code: extra.exitCode ?? printExitCode(outcome),
      ...(outcome.message ? { message: outcome.message } : {}),
      ...accountKeys(outcome),
      ...(outcome.attempts ? { attempts: outcome.attempts } : {}),
      ...(outcome.transcriptPath ? { transcript_path: outcome.transcriptPath } : {}),
      ...(outcome.billing ? { billing: outcome.billing } : {}),
      ...(outcome.billingEvidence ? { billing_evidence: outcome.billingEvidence } : {}),
      ...(outcome.quota ? { quota: outcome.quota } : {}),
    },
  };
}

/**
 * What `umbel -p` adds of an error under `umbel`: umbel's reason `error`, the exit code and core's
 * error body; a fact of the error named `reason` (a host's, a state file's) is kept as `error_reason`.
 */
function umbelOfError(body: ReturnType<typeof errorBody>, exitCode: number): Record<string, unknown> {
  const { reason, ...rest } = body as Record<string, unknown>;
  return { ...rest, reason: 'error', ...(reason === undefined ? {} : { error_reason: reason }), exit_code: exitCode };
}

/**
 * The result object for a run that failed before it had an outcome (spawn failed, no such worker,
 * the prompt was not submitted): `is_error`, the message as `result`, and under `umbel` the
 * reason `error` with core's error body (code, name, message, hint and the error's facts).
 */
export function errorResultObject(error: unknown, extra: { durationMs: number; worker?: string; provider?: string }): Record<string, unknown> {
  const body = errorBody(error);
  return {
    type: 'result',
    subtype: 'error_during_execution',
    is_error: true,
    duration_ms: extra.durationMs,
    duration_api_ms: 0,
    num_turns: 0,
    result: body.message,
    session_id: '',
    total_cost_usd: 0,
    usage: claudeUsage(undefined),
    modelUsage: {},
    permission_denials: [],
    terminal_reason: 'error',
    stop_reason: null,
    api_error_status: null,
    uuid: randomUUID(),
    ...(extra.worker ? { worker: extra.worker } : {}),
    ...(extra.provider ? { provider: extra.provider } : {}),
    umbel: umbelOfError(body, errorExitCode(error)),
  };
}
