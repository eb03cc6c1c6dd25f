// One model turn, shared by the TUI and print mode. Replies come from test-fixtures/lib/directives.mjs
// (`plan()`), never from a network. Reference: claude-code.md §1 (replies, retries), §3 (hook payloads),
// §4 (transcript entries), §6 (permissions), §7 (error texts).
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { plan, toolResultReply } from '../lib/directives.mjs';
import { accountErrorWords, applyQuota, errorKindOf, isRetried, notLoggedIn } from './account.mjs';
import { backgroundStartedText, runningBackground, startBackgroundShell } from './background.mjs';
import { anthropicId, usage } from './transcript.mjs';

/** The rejection text of a denied permission dialog (§4). */
export const REJECT_TEXT =
  "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";
/** Marker written after an interrupted tool use (§4). */
export const INTERRUPT_MARKER = '[Request interrupted by user for tool use]';
/** tool_result text of a successful Bash command that printed nothing (real 2.1.328). */
export const NO_OUTPUT_TEXT = '(Bash completed with no output)';

/** Thrown by an aborted wait. */
class Interrupted extends Error {}

/** Sleep that an AbortSignal cuts short (throws Interrupted). */
export function sleep(ms, signal) {
  return new Promise((resolvePromise, reject) => {
    if (signal?.aborted) return reject(new Interrupted());
    if (ms <= 0) return resolvePromise();
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolvePromise();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new Interrupted());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Anthropic error `type` by status. */
export function apiErrorType(status) {
  const map = {
    400: 'invalid_request_error',
    401: 'authentication_error',
    403: 'permission_error',
    404: 'not_found_error',
    429: 'rate_limit_error',
    529: 'overloaded_error',
  };
  return map[status] ?? 'api_error';
}

/** The CLI's error text for an API failure (§7 table). */
export function apiErrorText(status, message, model, env) {
  if (status === 401 || status === 403) return `Failed to authenticate. API Error: ${status} ${message}`;
  if (status === 404)
    return `There's an issue with the selected model (${model}). It may not exist or you may not have access to it. Run --model to pick a different model.`;
  if (status === 429) return `API Error: Request rejected (429) · ${message}`;
  if (status >= 500) {
    let where = 'check status.claude.com';
    try {
      if (env.ANTHROPIC_BASE_URL) where = `check your inference gateway (${new URL(env.ANTHROPIC_BASE_URL).host})`;
    } catch {
      // keep the default
    }
    return `API Error: ${status} ${message}. This is a server-side issue, usually temporary — try again in a moment. If it persists, ${where}.`;
  }
  return `API Error: ${status} ${message}`;
}

const READ_ONLY = new Set([
  'echo',
  'printf',
  'cat',
  'ls',
  'pwd',
  'true',
  'false',
  'date',
  'whoami',
  'head',
  'tail',
  'wc',
  'grep',
  'which',
  'uname',
  'id',
  'hostname',
  'sleep',
]);

/** A crude version of the real read-only check: a known harmless command, no redirection or chaining. */
export function isReadOnly(command) {
  if (/[>;&|`]|\$\(/.test(command)) return false;
  return READ_ONLY.has(command.trim().split(/\s+/)[0] ?? '');
}

/** Does a permission rule (`Bash`, `Bash(*)`, `Bash(git:*)`, `Bash(git *)`, `Bash(exact cmd)`) allow `command`? */
export function ruleAllows(rule, command) {
  const r = rule.trim();
  if (r === 'Bash' || r === 'Bash(*)') return true;
  const m = /^Bash\(([\s\S]*)\)$/.exec(r);
  if (!m) return false;
  const spec = m[1];
  const cmd = command.trim();
  if (spec.endsWith(':*')) {
    const prefix = spec.slice(0, -2);
    return cmd === prefix || cmd.startsWith(`${prefix} `);
  }
  if (spec.endsWith(' *')) return cmd.startsWith(spec.slice(0, -1)) || cmd === spec.slice(0, -2);
  return cmd === spec;
}

/** Run a shell command like the Bash tool (sh -c, cwd), killable through `signal`. */
function runShell(command, cwd, env, signal) {
  return new Promise((resolvePromise) => {
    const child = spawn('sh', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let interrupted = false;
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const kill = () => {
      interrupted = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(kill, 120_000);
    signal?.addEventListener('abort', kill, { once: true });
    child.on('error', (e) => {
      clearTimeout(timer);
      resolvePromise({ code: 127, stdout, stderr: stderr || String(e.message), interrupted });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', kill);
      resolvePromise({ code: code ?? 1, stdout, stderr, interrupted });
    });
  });
}

/** Hook payload fields every event carries (§3). */
export function common(ctx, event, promptId) {
  const p = { session_id: ctx.sessionId, transcript_path: ctx.transcript.path, cwd: ctx.cwd };
  if (promptId) p.prompt_id = promptId;
  p.hook_event_name = event;
  return p;
}

/**
 * Run one turn.
 * @param {any} ctx session context (see tui.mjs / print-mode.mjs)
 * @param {{prompt: string, modelPrompt?: string, promptId: string, promptSource?: string, userEntries?: any[], io: any, signal?: AbortSignal, maxTurns?: number}} t
 * @returns {Promise<any>} outcome
 */
export async function runTurn(ctx, t) {
  const { io, signal, promptId } = t;
  const tr = ctx.transcript;
  const startedAt = Date.now();
  const result = { startedAt, apiCalls: 0, turns: 0, apiMs: 0, denials: [], usage: usage('', ''), messages: [], promptId };

  // The user's entry (§4): promptId, origin human, promptSource typed|queued.
  const userEntries = t.userEntries ?? [
    tr.base({
      promptId,
      type: 'user',
      message: { role: 'user', content: t.prompt },
      permissionMode: ctx.permissionMode,
      origin: { kind: 'human' },
      promptSource: t.promptSource ?? 'typed',
      turnOrigin: 'human',
      turnPosition: { promptIndex: ctx.promptIndex, turnIndex: ctx.promptIndex },
    }),
  ];
  if (ctx.turnsInFile === 0) tr.write(tr.metaLines(ctx.permissionMode, userEntries[0].uuid));
  ctx.turnsInFile++;
  tr.write(userEntries);

  const modelPrompt = t.modelPrompt ?? t.prompt;
  // Fake-only directives: EXIT <code>, KILLSELF <SIGNAME> (die mid-turn, no SessionEnd).
  let m;
  if ((m = /^EXIT (\d+)\s*$/.exec(modelPrompt))) {
    await tr.flush();
    io.die?.();
    process.exit(Number(m[1]));
  }
  if ((m = /^KILLSELF ([A-Z0-9]+)\s*$/.exec(modelPrompt))) {
    await tr.flush();
    io.die?.();
    const sig = m[1].startsWith('SIG') ? m[1] : `SIG${m[1]}`;
    for (const s of ['SIGTERM', 'SIGHUP', 'SIGINT']) process.removeAllListeners(s);
    process.kill(process.pid, sig);
    await sleep(60_000);
  }

  if (ctx.world?.blocked) return noLoginOutcome(ctx, result);

  let outputShown = false;
  const assistantEntry = (msgId, requestId, block, stopReason, u) =>
    tr.base({
      message: { id: msgId, type: 'message', role: 'assistant', model: ctx.model, content: [block], stop_reason: stopReason, stop_sequence: null, usage: u },
      requestId,
      type: 'assistant',
    });

  /** Handle a reply plan; returns the outcome. */
  const respond = async (p) => {
    try {
      await sleep(p.delayMs, signal);
    } catch {
      return { ...result, outcome: 'interrupted', afterOutput: outputShown };
    }
    const apiStart = Date.now();
    if (p.quota) {
      ctx.planUsage = applyQuota(ctx.planUsage, p.quota);
      if (ctx.world?.subscriber) io.rateLimit?.(rateLimitInfo(ctx, 'allowed'));
    }
    if (p.kind === 'error') {
      const attempts = isRetried(p, ctx.world ?? {}) ? 1 + ctx.maxRetries : 1;
      const failures = Math.min(p.times, attempts);
      for (let a = 1; a < failures + (p.times < attempts ? 1 : 0); a++) {
        io.retry?.({ attempt: a, max: ctx.maxRetries, status: p.status, error: errorKindOf(p) });
      }
      result.apiCalls += failures;
      if (p.times < attempts) return respond({ ...plan(p.rest), delayMs: 0 });
      result.turns++;
      result.apiMs += Date.now() - apiStart;
      return errorOutcome(ctx, p, result, io);
    }
    result.apiCalls++;
    result.turns++;
    if (p.kind === 'text') {
      const u = usage(modelPrompt, p.text);
      result.usage = u;
      const entry = assistantEntry(anthropicId('msg'), anthropicId('req'), { type: 'text', text: p.text }, 'end_turn', u);
      result.apiMs += Date.now() - apiStart;
      outputShown = true;
      return { ...result, outcome: 'completed', text: p.text, finalEntries: [entry], messageId: entry.message.id };
    }
    // Tool call: text "Running: <cmd>" + tool_use Bash in one API message → two entries (§1, §4).
    const command = p.command;
    const msgId = anthropicId('msg');
    const reqId = anthropicId('req');
    const toolUseId = anthropicId('toolu');
    const input = { command, description: `Run ${command}`.slice(0, 80), ...(p.background ? { run_in_background: true } : {}) };
    const u = usage(modelPrompt, command);
    const e1 = assistantEntry(msgId, reqId, { type: 'text', text: `Running: ${command}` }, 'tool_use', u);
    const e2 = assistantEntry(msgId, reqId, { type: 'tool_use', id: toolUseId, name: 'Bash', input }, 'tool_use', u);
    tr.write([e1, e2]);
    io.entry?.(e1);
    io.entry?.(e2);
    result.apiMs += Date.now() - apiStart;
    outputShown = true;
    io.assistantText?.(`Running: ${command}`);
    io.toolStart?.(command);
    if (t.maxTurns !== undefined && result.turns >= t.maxTurns) return { ...result, outcome: 'max_turns' };

    const toolPayload = { permission_mode: ctx.permissionMode, tool_name: 'Bash', tool_input: input, tool_use_id: toolUseId };
    const pre = await ctx.hooks.fire({ ...common(ctx, 'PreToolUse', promptId), ...toolPayload });
    let decision = decide(ctx, command);
    let denyText;
    const blocked = pre.find((r) => r.code === 2);
    if (blocked) {
      decision = 'deny';
      denyText = blocked.stderr.trim() || 'Blocked by hook';
    } else {
      for (const r of pre) {
        const d = parseJson(r.stdout)?.hookSpecificOutput?.permissionDecision;
        if (d === 'allow' || d === 'deny') {
          decision = d;
          if (d === 'deny') denyText = parseJson(r.stdout)?.hookSpecificOutput?.permissionDecisionReason ?? 'Denied by hook';
        }
      }
    }
    if (decision === 'deny' && !denyText) {
      denyText =
        ctx.permissionMode === 'dontAsk'
          ? "Permission to use Bash has been denied because Claude Code is running in don't ask mode. Only tools that were pre-approved can be used."
          : `Permission to use Bash with command ${command} has been denied.`;
    }
    if (decision === 'ask') {
      const pr = await ctx.hooks.fire({
        ...common(ctx, 'PermissionRequest', promptId),
        permission_mode: ctx.permissionMode,
        tool_name: 'Bash',
        tool_input: input,
      });
      for (const r of pr) {
        const b = parseJson(r.stdout)?.hookSpecificOutput?.decision?.behavior;
        if (b === 'allow' || b === 'deny') decision = b;
      }
      if (decision === 'deny') denyText = `Permission to use Bash with command ${command} has been denied.`;
    }
    if (decision === 'ask') {
      if (!io.askPermission) {
        // print mode cannot ask (§6.4)
        decision = 'deny';
        denyText = `${command.trim().split(/\s+/)[0]} in '${ctx.cwd}' needs approval, and no one can approve it in --print mode. Ask the user to allow it (--allowedTools or --permission-mode).`;
      } else {
        const answer = await io.askPermission({ command, input, toolUseId, promptId });
        if (answer === 'no') {
          const rej = tr.base({
            promptId,
            type: 'user',
            message: { role: 'user', content: [{ type: 'tool_result', content: REJECT_TEXT, is_error: true, tool_use_id: toolUseId }] },
            toolUseResult: 'User rejected tool use',
            toolDenialKind: 'user-rejected',
            sourceToolAssistantUUID: e2.uuid,
          });
          const marker = tr.base({ promptId, type: 'user', message: { role: 'user', content: [{ type: 'text', text: INTERRUPT_MARKER }] } });
          tr.write([rej, marker]);
          return { ...result, outcome: 'interrupted', afterOutput: true, denied: true };
        }
        if (answer === 'always') ctx.allowRules.push(`Bash(${command.trim().split(/\s+/)[0]}:*)`);
        if (answer === 'auto') io.setMode?.('auto');
        decision = 'allow';
      }
    }

    let content;
    let isError;
    let toolUseResult;
    if (decision === 'deny') {
      content = denyText;
      isError = true;
      toolUseResult = `Error: ${denyText}`;
      result.denials.push({ tool_name: 'Bash', tool_use_id: toolUseId, tool_input: input });
      io.toolOutput?.(`Error: ${denyText}`, true);
    } else if (p.background) {
      const id = startBackgroundShell(ctx, command, input.description, { ...ctx.env, ...ctx.bashMarkers() });
      content = backgroundStartedText(id);
      isError = false;
      toolUseResult = { stdout: '', stderr: '', interrupted: false, isImage: false, noOutputExpected: false, backgroundTaskId: id };
      io.toolOutput?.('Running in the background', false);
      await ctx.hooks.fire({ ...common(ctx, 'PostToolUse', promptId), ...toolPayload, tool_response: toolUseResult });
    } else {
      io.toolRunning?.();
      const r = await runShell(command, ctx.cwd, { ...ctx.env, ...ctx.bashMarkers() }, signal);
      if (r.interrupted && signal?.aborted) {
        const res = tr.base({
          promptId,
          type: 'user',
          message: { role: 'user', content: [{ type: 'tool_result', content: INTERRUPT_MARKER, is_error: true, tool_use_id: toolUseId }] },
          toolUseResult: { stdout: r.stdout, stderr: r.stderr, interrupted: true, isImage: false, noOutputExpected: false },
          sourceToolAssistantUUID: e2.uuid,
        });
        const marker = tr.base({ promptId, type: 'user', message: { role: 'user', content: [{ type: 'text', text: INTERRUPT_MARKER }] } });
        tr.write([res, marker]);
        return { ...result, outcome: 'interrupted', afterOutput: true };
      }
      const out = [r.stdout.replace(/\n$/, ''), r.stderr.replace(/\n$/, '')].filter(Boolean).join('\n');
      isError = r.code !== 0;
      // Real 2.1.328: a successful command without output is sent to the model (and written to the
      // transcript) as "(Bash completed with no output)", never as an empty tool_result.
      content = isError ? `Error: Exit code ${r.code}${out ? `\n${out}` : ''}` : out === '' ? NO_OUTPUT_TEXT : out;
      toolUseResult = {
        stdout: r.stdout.replace(/\n$/, ''),
        stderr: r.stderr.replace(/\n$/, ''),
        interrupted: false,
        isImage: false,
        noOutputExpected: out === '',
      };
      io.toolOutput?.(out, isError);
      await ctx.hooks.fire({ ...common(ctx, isError ? 'PostToolUseFailure' : 'PostToolUse', promptId), ...toolPayload, tool_response: toolUseResult });
    }
    const resultEntry = tr.base({
      promptId,
      type: 'user',
      message: { role: 'user', content: [{ tool_use_id: toolUseId, type: 'tool_result', content, is_error: isError }] },
      toolUseResult,
      sourceToolAssistantUUID: e2.uuid,
    });
    tr.write(resultEntry);
    io.entry?.(resultEntry);
    await ctx.hooks.fire({
      ...common(ctx, 'PostToolBatch', promptId),
      tool_calls: [{ tool_name: 'Bash', tool_input: input, tool_use_id: toolUseId, tool_response: content }],
    });
    if (t.maxTurns !== undefined && result.turns >= t.maxTurns) return { ...result, outcome: 'max_turns' };
    return respond({ kind: 'text', text: toolResultReply(content), delayMs: 0 });
  };

  // Fake-only: RECALL — the earlier prompts of this conversation, read back from its session file
  // (so a `--resume` that really resumed it shows them; a fresh session has none).
  if (/^RECALL\s*$/.test(modelPrompt)) {
    await tr.flush();
    const earlier = humanPrompts(tr.path).slice(0, -1);
    return respond(plan(`ECHO RECALL: ${earlier.length ? earlier.join(' | ') : '(nothing)'}`));
  }
  // Fake-only: SUBAGENT <ms> <rest> — a Task subagent works for <ms> behind a still screen (no
  // spinner, no hook), appending to its own transcript (`<transcript dir>/<session>/subagents/`),
  // then the turn goes on with <rest>.
  if ((m = /^SUBAGENT (\d+) ([\s\S]*)$/.exec(modelPrompt))) {
    await runSubagent(ctx, Number(m[1]), io, signal);
    return respond(plan(m[2]));
  }
  return respond(plan(modelPrompt));
}

/** The prompts a person typed in the session file at `path`, oldest first (tool results and metadata skipped). */
function humanPrompts(path) {
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  const prompts = [];
  for (const line of text.split('\n')) {
    let entry;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (entry?.type === 'user' && entry.origin?.kind === 'human' && typeof entry.message?.content === 'string') prompts.push(entry.message.content);
  }
  return prompts;
}

/** The synthetic assistant entry of a failed turn (model `<synthetic>`), with `extra` fields. */
function syntheticEntry(ctx, text, extra) {
  return ctx.transcript.base({
    type: 'assistant',
    message: {
      id: anthropicId('msg'),
      type: 'message',
      role: 'assistant',
      model: '<synthetic>',
      content: [{ type: 'text', text }],
      stop_reason: 'stop_sequence',
      stop_sequence: '',
      usage: usage('', ''),
    },
    ...extra,
    isApiErrorMessage: true,
  });
}

/** A turn sent with no usable credential: StopFailure authentication_failed, nothing sent (real 2.1.328). */
function noLoginOutcome(ctx, result) {
  const words = notLoggedIn(ctx.world);
  const entry = syntheticEntry(ctx, words.text, { error: 'authentication_failed' });
  return {
    ...result,
    outcome: 'error',
    text: words.text,
    screenText: words.screen,
    status: null,
    errorKind: 'authentication_failed',
    apiErrorType: null,
    finalEntries: [entry],
  };
}

/** The `rate_limit_info` of the session's plan usage (-p stream-json `rate_limit_event`). */
function rateLimitInfo(ctx, status, limit) {
  const windows = {};
  for (const [key, w] of Object.entries(ctx.planUsage ?? {}))
    windows[key] = { utilization: w.used_percentage / 100, resetsAt: w.resets_at, status: key === limit?.key ? 'rejected' : 'allowed' };
  const claim = limit?.key ?? Object.entries(ctx.planUsage ?? {}).sort((a, b) => b[1].used_percentage - a[1].used_percentage)[0]?.[0];
  return {
    status,
    resetsAt: limit?.resetsAt ?? ctx.planUsage?.[claim]?.resets_at,
    rateLimitType: claim,
    ...(limit ? { overageStatus: 'rejected', overageDisabledReason: 'org_level_disabled' } : {}),
    isUsingOverage: false,
    unifiedWindows: windows,
  };
}

/** The outcome of a failed API call: texts, error kind, the synthetic transcript entry (§4, §7). */
function errorOutcome(ctx, p, result, io) {
  const words = accountErrorWords(p, ctx.world ?? {}, { tui: Boolean(ctx.tui), usage: ctx.planUsage });
  const text = words?.text ?? apiErrorText(p.status, p.message, ctx.model, ctx.env);
  const kind = errorKindOf(p);
  const type = p.account?.type ?? apiErrorType(p.status);
  const extra = { error: kind, apiErrorStatus: p.status, apiErrorType: type };
  if (words?.limit) {
    const { info } = words.limit;
    ctx.planUsage = { ...ctx.planUsage, [words.limit.key]: { used_percentage: 100, resets_at: words.limit.resetsAt } };
    extra.apiError = 'usage_limit_reached';
    extra.apiErrorParams = { rate_limit_info: info };
    extra.quotaLimits = {
      status: 'rejected',
      resetsAt: info.resetsAt,
      unifiedRateLimitFallbackAvailable: false,
      rateLimitType: info.rateLimitType,
      overageStatus: 'rejected',
      overageDisabledReason: info.overageDisabledReason,
      isUsingOverage: false,
    };
    io.rateLimit?.(rateLimitInfo(ctx, 'rejected', words.limit));
  }
  const entry = syntheticEntry(ctx, text, { requestId: anthropicId('req'), ...extra });
  return {
    ...result,
    outcome: 'error',
    text,
    screenText: words?.screen ?? text,
    usageLimit: words?.limit,
    resetWhen: words?.when,
    status: p.status,
    errorKind: kind,
    apiErrorType: type,
    finalEntries: [entry],
  };
}

/** allow | ask | deny for a Bash command under the session's mode and rules (§6). */
export function decide(ctx, command) {
  if (ctx.denyRules.some((r) => ruleAllows(r, command))) return 'deny';
  if (['bypassPermissions', 'auto', 'acceptEdits'].includes(ctx.permissionMode)) return 'allow';
  if (ctx.allowRules.some((r) => ruleAllows(r, command))) return 'allow';
  if (isReadOnly(command)) return 'allow';
  if (ctx.permissionMode === 'dontAsk') return 'deny';
  return 'ask';
}

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * End a turn: Stop / StopFailure hooks, then the lagging transcript writes (§3, §4).
 * @param {any} ctx
 * @param {any} r outcome of runTurn
 * @param {{tui: boolean, lastPrompt: string}} o
 */
export async function finishTurn(ctx, r, o) {
  const late = ctx.lateFinalMs;
  if (r.outcome === 'completed') {
    if (ctx.hooks.has('MessageDisplay')) {
      await ctx.hooks.fire({
        ...common(ctx, 'MessageDisplay', r.promptId),
        turn_id: r.promptId,
        message_id: r.messageId,
        index: 0,
        final: true,
        delta: r.text,
      });
    }
    const results = await ctx.hooks.fire(
      {
        ...common(ctx, 'Stop', r.promptId),
        permission_mode: ctx.permissionMode,
        effort: 'medium',
        stop_hook_active: false,
        last_assistant_message: r.text,
        background_tasks: runningBackground(ctx),
        session_crons: [],
      },
      { CLAUDE_EFFORT: 'medium' },
    );
    writeTail(ctx, r, o, late, results);
  } else if (r.outcome === 'error') {
    await ctx.hooks.fire({ ...common(ctx, 'StopFailure', r.promptId), effort: 'medium', error: r.errorKind, last_assistant_message: r.text });
    writeTail(ctx, r, o, late, undefined);
  }
}

function writeTail(ctx, r, o, late, stopResults) {
  const tr = ctx.transcript;
  tr.write(r.finalEntries, late);
  const tail = [];
  if (stopResults && stopResults.length > 0) {
    tail.push(
      tr.base({
        type: 'system',
        subtype: 'stop_hook_summary',
        hookCount: stopResults.length,
        hookInfos: stopResults.map((h) => ({ command: h.command, durationMs: h.durationMs })),
        hookErrors: [],
        preventedContinuation: false,
        stopReason: '',
        hasOutput: false,
        level: 'suggestion',
      }),
    );
  }
  if (o.tui) {
    const td = tr.base({ type: 'system', subtype: 'turn_duration', durationMs: Date.now() - r.startedAt, messageCount: tr.messageCount, isMeta: false });
    tail.push(td);
    tail.push({ type: 'last-prompt', lastPrompt: o.lastPrompt, leafUuid: td.uuid, sessionId: ctx.sessionId });
  }
  if (tail.length > 0) tr.write(tail, 20);
}

/** A subagent's work: its own transcript grows every 500 ms for `ms`, the screen stays still. */
async function runSubagent(ctx, ms, io, signal) {
  const tr = ctx.transcript;
  await tr.flush();
  const dir = join(tr.path.replace(/\.jsonl$/, ''), 'subagents');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `agent-${anthropicId('a').slice(-8)}.jsonl`);
  io.still?.(true);
  try {
    for (const until = Date.now() + ms; Date.now() < until; ) {
      appendFileSync(file, `${JSON.stringify({ isSidechain: true, type: 'assistant', timestamp: new Date().toISOString() })}\n`);
      await sleep(Math.min(500, until - Date.now()), signal).catch(() => undefined);
      if (signal?.aborted) return;
    }
  } finally {
    io.still?.(false);
  }
}
