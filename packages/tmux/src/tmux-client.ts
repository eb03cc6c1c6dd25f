/**
 * The one way @umbel/tmux runs tmux: `tmux -u -L <socket> -f /dev/null <commands…>` with an argv
 * array and the minimal client environment, each invocation bounded, at most N at once.
 */
import { SubstrateError, UmbelErrorCode } from '@umbel/core';
import { escapeTmuxArgument } from './tmux-answers.js';
import { resolveTmuxBinary, runTmux, type TmuxResult } from './run-tmux.js';

/** What a client needs: where tmux is, which socket, with which environment, and its bounds. */
export interface TmuxClientSettings {
  readonly tmuxBin: string;
  readonly socket: string;
  readonly clientEnv: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** More attempts of a `retry` call that tmux did not answer in time. */
  readonly retries: number;
  readonly maxConcurrentCalls: number;
}

/** Runs tmux invocations on one socket. */
export interface TmuxClient {
  /**
   * Run one invocation made of one or more commands (each an argv), chained with `;`. With `retry`
   * (reads and idempotent commands only), an unanswered attempt is repeated up to `retries` times,
   * each attempt in its own concurrency slot and with its own bound.
   */
  call(commands: readonly (readonly string[])[], options?: { input?: string; retry?: boolean }): Promise<TmuxResult>;
  /** Delete a buffer, best effort (the error that made it a leftover matters more). */
  deleteBuffer(buffer: string): Promise<void>;
}

/** A counting semaphore: `run(task)` starts `task` once fewer than `limit` run. */
function limiter(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const queue: (() => void)[] = [];
  return async (task) => {
    if (active >= limit) await new Promise<void>((resolve) => queue.push(resolve));
    active += 1;
    try {
      return await task();
    } finally {
      active -= 1;
      queue.shift()?.();
    }
  };
}

export function createTmuxClient(settings: TmuxClientSettings): TmuxClient {
  const { tmuxBin, socket, clientEnv, timeoutMs, retries } = settings;
  const slot = limiter(Math.max(1, settings.maxConcurrentCalls));
  const call: TmuxClient['call'] = async (commands, options = {}) => {
    const bin = resolveTmuxBinary(tmuxBin, clientEnv['PATH']);
    // -u: the client speaks UTF-8 whatever the caller's locale, so screens (❯, ─) and our field
    // separator are never mangled into '_' by a C locale.
    const args: string[] = ['-u', '-L', socket, '-f', '/dev/null'];
    commands.forEach((command, index) => {
      if (index > 0) args.push(';');
      for (const arg of command) args.push(escapeTmuxArgument(arg));
    });
    const input = options.input;
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await slot(() => runTmux({ bin, args, env: clientEnv, timeoutMs, ...(input === undefined ? {} : { input }) }));
      } catch (error) {
        const unanswered = error instanceof SubstrateError && error.code === UmbelErrorCode.TmuxTimeout;
        if (!unanswered || !options.retry || attempt >= retries) throw error;
      }
    }
  };
  return {
    call,
    async deleteBuffer(buffer) {
      try {
        await call([['delete-buffer', '-b', buffer]], { retry: true });
      } catch {
        /* best effort: the original error matters more */
      }
    },
  };
}
