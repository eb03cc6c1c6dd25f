/**
 * `wait A B C [--any | --all]`: one wait per worker, run side by side; the outcomes in the order the
 * workers ended. `all` (the default) returns when every one ended, `any` as soon as the first did —
 * then the other waits are cancelled (their workers keep running) and only that outcome returns.
 * The decision and the exit code are pure (below); the waits are each worker's own, so timeouts and
 * guardrails behave as for one.
 */
import { usageFromZod } from '../contract/errors.js';
import { type Outcome, type WaitManyOptions, WaitManyOptionsSchema, type WaitMode, type WaitOptions } from '../contract/schemas.js';
import type { WaitContext } from '../contract/umbel.js';

/** Whether a multi-wait is over once `ended` of `total` workers ended. */
export function waitManyDone(mode: WaitMode, ended: number, total: number): boolean {
  return mode === 'any' ? ended >= 1 : ended >= total;
}

/** 0 when every outcome completed (or met its until), else the first non-zero outcome's code. */
export function waitManyExitCode(outcomes: readonly Pick<Outcome, 'exitCode'>[]): number {
  return outcomes.find((o) => o.exitCode !== 0)?.exitCode ?? 0;
}

type WaitOne = (options: WaitOptions, context: WaitContext) => Promise<Outcome>;

/** Wait on several workers through `wait` (an engine's, or a fleet's); the outcomes in the order they ended. */
export async function waitMany(wait: WaitOne, input: WaitManyOptions, context: WaitContext = {}): Promise<Outcome[]> {
  const parsed = WaitManyOptionsSchema.safeParse(input);
  if (!parsed.success) throw usageFromZod(parsed.error, 'wait options');
  const { names, mode } = parsed.data;
  const { names: _names, mode: _mode, ...each } = input;
  const stop = new AbortController();
  const cancel = () => stop.abort(context.signal?.reason);
  if (context.signal?.aborted) cancel();
  context.signal?.addEventListener('abort', cancel, { once: true });
  const ended: Outcome[] = [];
  let failure: { error: unknown } | undefined;
  const one = async (name: string) => {
    try {
      const outcome = await wait({ ...each, name }, { ...context, signal: stop.signal });
      // after `any` is over, the others end as `aborted` by us: not theirs to report
      if (!waitManyDone(mode, ended.length, names.length) || context.signal?.aborted) ended.push(outcome);
    } catch (error) {
      failure ??= { error };
    }
    if (failure || waitManyDone(mode, ended.length, names.length)) stop.abort();
  };
  try {
    await Promise.all(names.map(one));
  } finally {
    context.signal?.removeEventListener('abort', cancel);
  }
  if (failure) throw failure.error;
  return ended;
}
