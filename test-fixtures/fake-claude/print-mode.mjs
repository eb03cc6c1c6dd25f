// `claude -p` (and no -p with a non-TTY stdout). Reference: claude-code.md §7 (table), §3 (hooks in -p),
// §6.4 (permissions in -p: default mode, denials reported).
import { FakeExit, uuid, VERSION } from './config.mjs';
import { common, finishTurn, runTurn } from './engine.mjs';
import { createContext } from './session.mjs';

const TOOLS = [
  'Task',
  'AskUserQuestion',
  'Bash',
  'Edit',
  'Glob',
  'Grep',
  'ListAgents',
  'NotebookEdit',
  'Read',
  'ReportFindings',
  'ScheduleWakeup',
  'Skill',
  'SlashCommand',
  'TodoWrite',
  'ToolSearch',
  'WebFetch',
  'WebSearch',
  'Workflow',
  'Write',
  'BashOutput',
  'KillShell',
  'ExitPlanMode',
  'DeferredToolPlaceholder',
];

/** Read all of stdin when it is not a TTY (empty when there is none). */
function readStdin(waitMs) {
  return new Promise((resolvePromise) => {
    if (process.stdin.isTTY) return resolvePromise('');
    let data = '';
    let timer;
    const done = () => {
      clearTimeout(timer);
      process.stdin.removeAllListeners();
      process.stdin.pause();
      resolvePromise(data);
    };
    if (waitMs !== undefined) timer = setTimeout(done, waitMs);
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (d) => (data += d));
    process.stdin.on('end', done);
    process.stdin.on('error', done);
  });
}

function write(text) {
  return new Promise((r) => process.stdout.write(text, () => r()));
}

/**
 * Run print mode; resolves with the exit code.
 * @param {any} opts parsed args
 * @param {NodeJS.ProcessEnv} env
 * @param {string} cwd
 * @param {any} paths
 */
export async function runPrint(opts, env, cwd, paths) {
  const format = opts.outputFormat ?? 'text';
  if (!['text', 'json', 'stream-json'].includes(format)) {
    throw new FakeExit(1, `error: option '--output-format <format>' argument '${format}' is invalid. Allowed choices are text, json, stream-json.`);
  }
  if (format === 'stream-json' && !opts.verbose) throw new FakeExit(1, 'Error: When using --print, --output-format=stream-json requires --verbose');
  // With a prompt argument the real CLI does not wait forever for a pipe that never closes.
  const stdin = await readStdin(opts.prompt !== undefined ? 3000 : undefined);
  let prompt;
  if (opts.prompt !== undefined && stdin !== '') prompt = `${opts.prompt}\n${stdin}`;
  else prompt = opts.prompt ?? stdin;
  if (prompt === undefined || prompt === '') {
    throw new FakeExit(1, 'Error: Input must be provided either through stdin or as a prompt argument when using --print');
  }

  const ctx = createContext({ opts, env, cwd, paths, tui: false });
  const started = Date.now();
  const emit = (obj) => (format === 'stream-json' ? write(`${JSON.stringify(obj)}\n`) : Promise.resolve());

  await ctx.hooks.fire({ ...common(ctx, 'SessionStart'), source: ctx.source });
  await emit({
    type: 'system',
    subtype: 'init',
    cwd,
    session_id: ctx.sessionId,
    tools: TOOLS,
    mcp_servers: [],
    model: ctx.model,
    permissionMode: ctx.permissionMode,
    slash_commands: ['clear', 'compact', 'context', 'cost', 'init'],
    apiKeySource: ctx.world.method === 'api_key' ? 'ANTHROPIC_API_KEY' : 'none',
    claude_code_version: VERSION,
    output_style: 'default',
    agents: [],
    skills: [],
    plugins: [],
    uuid: uuid(),
  });

  // Known slash commands run even in -p (§5): /clear prints an empty line.
  if (/^\/(clear|reset|new)\s*$/.test(prompt)) {
    await ctx.hooks.fire({ ...common(ctx, 'SessionEnd'), reason: 'other' });
    if (format === 'text') await write('\n');
    return 0;
  }

  const promptId = uuid();
  ctx.promptIndex++;
  await ctx.hooks.fire({ ...common(ctx, 'UserPromptSubmit', promptId), permission_mode: ctx.permissionMode, prompt });
  const pending = [];
  const io = {
    entry: (e) => {
      pending.push(
        emit(
          e.type === 'assistant'
            ? {
                type: 'assistant',
                message: { ...e.message, stop_reason: null, context_management: null },
                parent_tool_use_id: null,
                session_id: ctx.sessionId,
                uuid: e.uuid,
                timestamp: e.timestamp,
                request_id: e.requestId,
              }
            : {
                type: 'user',
                message: e.message,
                parent_tool_use_id: null,
                session_id: ctx.sessionId,
                uuid: e.uuid,
                timestamp: e.timestamp,
                tool_use_result: e.toolUseResult,
              },
        ),
      );
    },
    rateLimit: (info) => {
      pending.push(emit({ type: 'rate_limit_event', rate_limit_info: info, uuid: uuid(), session_id: ctx.sessionId }));
    },
    retry: ({ attempt, max, status, error }) => {
      pending.push(
        emit({
          type: 'system',
          subtype: 'api_retry',
          attempt,
          max_retries: max,
          retry_delay_ms: 0,
          error_status: status,
          error,
          session_id: ctx.sessionId,
          uuid: uuid(),
        }),
      );
    },
  };
  const r = await runTurn(ctx, { prompt, promptId, promptSource: 'sdk', io, maxTurns: opts.maxTurns !== undefined ? Number(opts.maxTurns) : undefined });
  await Promise.all(pending);
  if (r.finalEntries) for (const e of r.finalEntries) io.entry(e);
  await Promise.all(pending);
  await finishTurn(ctx, r, { tui: false, lastPrompt: prompt });
  await ctx.hooks.fire({ ...common(ctx, 'SessionEnd', promptId), reason: 'other' });
  await ctx.transcript.flush();

  const durationMs = Date.now() - started;
  const u = r.outcome === 'error' ? { ...r.usage, input_tokens: 0, output_tokens: 0 } : r.usage;
  const modelUsage =
    r.outcome === 'error'
      ? {}
      : {
          [ctx.model]: {
            inputTokens: u.input_tokens,
            outputTokens: u.output_tokens,
            cacheReadInputTokens: 0,
            cacheCreationInputTokens: 0,
            webSearchRequests: 0,
            costUSD: 0,
            contextWindow: 1000000,
            maxOutputTokens: 128000,
          },
        };
  // Key order as recorded from 2.1.328 (test-fixtures/real/recorded/claude-p-json.json).
  const base = {
    duration_api_ms: r.apiMs,
    stop_reason: 'end_turn',
    session_id: ctx.sessionId,
    total_cost_usd: 0,
    usage: u,
    modelUsage,
    permission_denials: r.denials,
    terminal_reason: 'completed',
    is_error: false,
    num_turns: r.turns,
    subtype: 'success',
    api_error_status: null,
    result: '',
    type: 'result',
    duration_ms: durationMs,
    uuid: uuid(),
  };
  let out;
  let text;
  let rc = 0;
  if (r.outcome === 'completed') {
    out = { ...base, result: r.text };
    text = `${r.text}\n`;
  } else if (r.outcome === 'error') {
    const { result: _r, type: _t, duration_ms: _d, uuid: _u, ...head } = base;
    out = {
      ...head,
      stop_reason: 'stop_sequence',
      terminal_reason: 'api_error',
      is_error: true,
      api_error_status: r.status,
      ...(r.apiErrorType != null ? { api_error_type: r.apiErrorType } : {}),
      ...(r.usageLimit ? { api_error: 'usage_limit_reached' } : {}),
      result: r.text,
      type: 'result',
      duration_ms: durationMs,
      uuid: base.uuid,
    };
    text = `${r.text}\n`;
    rc = 1;
  } else if (r.outcome === 'max_turns') {
    const { result: _omit, ...rest } = base;
    out = {
      ...rest,
      stop_reason: 'tool_use',
      terminal_reason: 'max_turns',
      is_error: true,
      subtype: 'error_max_turns',
      errors: [`Reached maximum number of turns (${opts.maxTurns})`],
    };
    text = `Error: Reached max turns (${opts.maxTurns})`;
    rc = 1;
  } else {
    out = { ...base, is_error: true, result: 'Interrupted', terminal_reason: 'aborted' };
    text = 'Interrupted\n';
    rc = 1;
  }
  if (format === 'text') await write(text);
  else await write(`${JSON.stringify(out)}\n`);
  return rc;
}
