/**
 * read: the answer of a turn from the transcript (or, while the transcript lags, the CLI's own stop
 * payload, marked incomplete), optionally shaped (a section, the head, the tail); and the messages of
 * a turn for stream output.
 */
import { shapeAnswer } from './answer.js';
import type { EngineContext } from '../engine/context.js';
import { TranscriptUnavailableError, TurnNotFoundError, TurnNotSubmittedError } from '../contract/errors.js';
import { usableWorker } from '../ledger/ledger.js';
import type { TurnView, UsableView } from '../ledger/ledger-types.js';
import type { ProviderV1Message } from '@umbel/provider';
import type { ReadResult } from '../contract/schemas.js';
import { latestEnded } from '../ledger/turns.js';
import { readMessages, readTurn } from '../ledger/turn-read.js';

function pick(view: UsableView, asked: number | undefined): TurnView {
  const latest = view.turns.reduce((max, t) => Math.max(max, t.turn), 0);
  const n = asked ?? latestEnded(view.turns)?.turn ?? latest;
  const turn = view.turns.find((t) => t.turn === n);
  if (!turn) throw new TurnNotFoundError(view.name, asked ?? 0, latest);
  if (turn.notSubmitted) throw new TurnNotSubmittedError(view.name, n, turn.notSubmitted.message ?? turn.notSubmitted.reason);
  return turn;
}

async function readWhole(ctx: EngineContext, options: { name: string; turn?: number }): Promise<ReadResult> {
  const view = usableWorker(ctx, options.name);
  const turn = pick(view, options.turn);
  const answer = (result: string, complete: boolean): ReadResult => ({
    worker: view.name,
    provider: view.meta.provider,
    turn: turn.turn,
    result,
    complete,
    ...(view.transcript.sessionId ? { sessionId: view.transcript.sessionId } : {}),
    ...(view.transcript.path ? { transcriptPath: view.transcript.path } : {}),
  });
  const { read } = await readTurn(view, turn);
  if (read.status === 'completed') return answer(read.answer, true);
  if (read.status === 'failed') return answer(read.message, true);
  if (turn.stopMessage !== undefined) return answer(turn.stopMessage, false);
  const where = view.transcript.path;
  throw new TranscriptUnavailableError(
    where ? `the transcript of '${view.name}' has no answer for turn ${turn.turn} yet (${where})` : `no transcript is known for '${view.name}' yet`,
  );
}

/** `read`: the answer, shaped when asked. */
export async function readAnswer(
  ctx: EngineContext,
  options: { name: string; turn?: number; section?: string; head?: number; tail?: number },
): Promise<ReadResult> {
  const whole = await readWhole(ctx, options);
  if (options.section === undefined && options.head === undefined && options.tail === undefined) return whole;
  const shaped = shapeAnswer(whole.result, { section: options.section, head: options.head, tail: options.tail });
  return { ...whole, result: shaped.text, ...(shaped.elidedTokens ? { elidedTokens: shaped.elidedTokens } : {}) };
}

/** Transcript messages of a turn (default the latest sent), for stream output. */
export async function turnMessages(ctx: EngineContext, name: string, turnNo?: number): Promise<readonly ProviderV1Message[]> {
  const view = usableWorker(ctx, name);
  const n = turnNo ?? view.turns.reduce((max, t) => Math.max(max, t.turn), 0);
  const turn = view.turns.find((t) => t.turn === n);
  if (!turn || turn.notSubmitted) return [];
  const { options } = await readTurn(view, turn);
  return readMessages(view, options);
}
