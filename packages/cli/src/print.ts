/**
 * `umbel -p`: a drop-in for `claude -p` that runs the prompt through the interactive TUI.
 * Same output formats (text, json, stream-json) and exit behaviour as `claude -p`; umbel's own
 * outcomes map to their exit codes (timeout 124, dead 125, needs-input 126, aborted 130).
 */
import { randomUUID } from 'node:crypto';
import { OUTCOME_EXIT_CODES, type Outcome, type Umbel, UmbelError, UsageError, WorkerNotFoundError } from '@umbel/core';
import type { CliIo } from './io.js';
import { printJson } from './output.js';
import { type Args, describeOutcome, envFromArgs } from './verbs.js';

const FORMATS = ['text', 'json', 'stream-json'] as const;
type Format = (typeof FORMATS)[number];

function str(value: unknown): string | undefined {
  return value === undefined || value === null ? undefined : String(value);
}

/** Claude's usage field names from umbel's. */
function claudeUsage(usage: Outcome['usage']): Record<string, number> {
  const names: Record<string, string> = {
    inputTokens: 'input_tokens',
    outputTokens: 'output_tokens',
    cacheReadTokens: 'cache_read_input_tokens',
    cacheCreationTokens: 'cache_creation_input_tokens',
  };
  const out: Record<string, number> = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
  for (const [k, v] of Object.entries(usage ?? {})) if (typeof v === 'number' && k !== 'costUsd') out[names[k] ?? k] = v;
  return out;
}

/** The `claude -p --output-format json` result object for an outcome (plus umbel's fields). */
export function resultObject(outcome: Outcome, extra: { durationMs: number; sessionId?: string }): Record<string, unknown> {
  const isError = outcome.reason !== 'completed';
  const result = outcome.reason === 'provider-error' ? (outcome.message ?? '') : (outcome.result ?? (isError ? (outcome.message ?? '') : ''));
  return {
    type: 'result',
    subtype: outcome.reason === 'completed' || outcome.reason === 'provider-error' ? 'success' : 'error_during_execution',
    is_error: isError,
    duration_ms: extra.durationMs,
    duration_api_ms: 0,
    num_turns: outcome.numTurns ?? 1,
    result,
    session_id: outcome.sessionId ?? extra.sessionId ?? '',
    total_cost_usd: outcome.usage?.costUsd ?? 0,
    usage: claudeUsage(outcome.usage),
    permission_denials: [],
    terminal_reason: outcome.reason === 'completed' ? 'completed' : outcome.reason === 'provider-error' ? 'api_error' : outcome.reason,
    uuid: randomUUID(),
    worker: outcome.worker,
    provider: outcome.provider,
    turn: outcome.turn,
    umbel: {
      reason: outcome.reason,
      exit_code: printExitCode(outcome),
      ...(outcome.message ? { message: outcome.message } : {}),
      ...(outcome.attempts ? { attempts: outcome.attempts } : {}),
      ...(outcome.transcriptPath ? { transcript_path: outcome.transcriptPath } : {}),
    },
  };
}

/** Exit code of `umbel -p` for an outcome: claude's 1 for a model error, umbel's codes otherwise. */
export function printExitCode(outcome: Outcome): number {
  return outcome.reason === 'provider-error' ? 1 : OUTCOME_EXIT_CODES[outcome.reason];
}

/** Run print mode. Returns the exit code. */
export async function runPrint(args: Args, io: CliIo, engine: Umbel, signal: AbortSignal): Promise<number> {
  const format = (str(args.outputFormat) ?? 'text') as Format;
  if (!FORMATS.includes(format)) throw new UsageError(`--output-format must be one of ${FORMATS.join(', ')} (got '${format}')`);
  if (format === 'stream-json' && args.verbose !== true) {
    io.stderr.write('Error: When using --print, --output-format=stream-json requires --verbose\n');
    return 1;
  }
  if (args.name !== undefined && args.resume !== undefined) throw new UsageError('use --name or --resume, not both');
  const arg = str(args.prompt);
  const piped = await io.readStdin();
  const stdinText = piped && piped.length > 0 ? piped : undefined;
  const prompt = arg !== undefined && stdinText !== undefined ? `${arg}\n${stdinText}` : (arg ?? stdinText);
  if (prompt === undefined || prompt === '') {
    throw new UsageError('Input must be provided either through stdin or as a prompt argument when using --print', {
      hint: 'umbel -p "PROMPT", or echo PROMPT | umbel -p',
    });
  }

  const started = Date.now();
  let worker: string | undefined;
  let anonymous = false;
  const resume = str(args.resume);
  const named = str(args.name);
  try {
    if (resume !== undefined) {
      worker = (await engine.status(resume)).name;
    } else {
      let reuse = false;
      if (named !== undefined) {
        try {
          const existing = await engine.status(named);
          reuse = existing.alive;
          if (!existing.alive) throw new UsageError(`worker '${named}' exists but is ${existing.state}; kill it with --purge or pick another name`);
        } catch (error) {
          if (!(error instanceof WorkerNotFoundError || (UmbelError.isInstance(error) && error.code === 'UMBEL_WORKER_NOT_FOUND'))) throw error;
        }
      }
      if (reuse) worker = named;
      else {
        anonymous = named === undefined;
        const status = await engine.spawn(
          {
            name: named,
            provider: str(args.provider) ?? 'claude',
            cwd: str(args.cwd) ?? io.cwd,
            model: str(args.model),
            env: envFromArgs(args.env),
            permissionMode: str(args.permissionMode),
            allowedTools: str(args.allowedTools),
            appendSystemPrompt: str(args.appendSystemPrompt),
            unattended: args.unattended === true,
          },
          { signal },
        );
        worker = status.name;
      }
    }
    if (signal.aborted) return abortCode(signal);
    const name: string = worker as string;
    const { turn } = await engine.send({ name, prompt }, { signal });
    // Read the status after the prompt was accepted: some CLIs (codex) report their session id
    // only in the first prompt's hook payload. Only stream-json prints it before the answer; the
    // other formats take the session id from the outcome.
    const status = format === 'stream-json' ? await engine.status(name) : undefined;
    if (status) {
      printJson(io.stdout, {
        type: 'system',
        subtype: 'init',
        cwd: status.cwd,
        session_id: status.sessionId ?? '',
        tools: [],
        mcp_servers: [],
        model: status.model ?? 'default',
        permissionMode: str(args.permissionMode) ?? 'default',
        apiKeySource: 'none',
        output_style: 'default',
        uuid: randomUUID(),
        worker: status.name,
        provider: status.provider,
      });
    }
    const outcome = await engine.wait(
      {
        name,
        turn,
        timeout: str(args.timeout) ?? '30m',
        check: str(args.check),
        schema: str(args.schema),
        retries: args.retries === undefined ? undefined : Number(args.retries),
      },
      {
        signal,
        onProgress:
          format === 'stream-json'
            ? (p) => {
                for (const m of p.messages ?? [])
                  printJson(io.stdout, {
                    type: m.type,
                    message: m.message,
                    parent_tool_use_id: null,
                    session_id: status?.sessionId ?? '',
                    uuid: m.uuid ?? randomUUID(),
                  });
              }
            : undefined,
      },
    );
    const code = outcome.reason === 'aborted' ? abortCode(signal) : printExitCode(outcome);
    if (format === 'text') {
      if (outcome.reason === 'completed') io.stdout.write(`${outcome.result ?? ''}\n`);
      else if (outcome.reason === 'provider-error') io.stdout.write(`${outcome.message ?? 'API Error'}\n`);
      else io.stderr.write(describeOutcome(outcome));
    } else {
      printJson(io.stdout, resultObject(outcome, { durationMs: Date.now() - started, sessionId: status?.sessionId }));
      if (outcome.reason !== 'completed' && outcome.reason !== 'provider-error') io.stderr.write(describeOutcome(outcome));
    }
    return code;
  } catch (error) {
    if (UmbelError.isInstance(error) && error.code === 'UMBEL_ABORTED') return abortCode(signal);
    throw error;
  } finally {
    // Teardown runs after the answer is printed: never on the critical path of the output.
    if (anonymous && worker) await engine.kill({ name: worker, purge: true }).catch(() => undefined);
  }
}

function abortCode(signal: AbortSignal): number {
  return signal.reason === 'SIGTERM' ? 143 : 130;
}
