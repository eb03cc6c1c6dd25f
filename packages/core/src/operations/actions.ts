/**
 * actions: what a worker did in a turn (or in all of them), from its transcript — tools used and
 * how often, files read / edited / written, shell commands, failed tool calls, the final message.
 * Each turn is read through the ledger's turn reader (the transcript and the provider's side records,
 * behind the guard), its messages from the provider's `doReadMessages` (Claude's stream-json shape);
 * what a tool call means (a read, an edit, a command) is the provider's `doClassifyTool`.
 */
import { isAbsolute, resolve } from 'node:path';
import type { EngineContext } from '../engine/context.js';
import { TurnNotFoundError, TurnNotSubmittedError } from '../contract/errors.js';
import { usableWorker } from '../ledger/ledger.js';
import type { TurnView, UsableView } from '../ledger/ledger-types.js';
import type { ProviderV1Message, ProviderV1ToolCall, ProviderV1ToolResult, ProviderV1ToolUse, ProviderV1TurnRead } from '@umbel/provider';
import { guarded } from '../engine/provider-guard.js';
import type { ActionsResult } from '../contract/schemas.js';
import { latestSubmitted } from '../ledger/turns.js';
import { readMessages, readTurns } from '../ledger/turn-read.js';

/** An error is cut to this many characters. */
export const ACTION_ERROR_MAX = 300;

/** How to read tool calls (the provider's classification, or none). */
export interface ActionReaders {
  readonly classify?: (call: ProviderV1ToolCall) => ProviderV1ToolUse;
  readonly readError?: (result: ProviderV1ToolResult) => string | undefined;
  /** Relative paths are resolved against it. */
  readonly cwd: string;
}

/** What a list of messages shows (the parts of ActionsResult a transcript gives). */
export type ActionDigest = Pick<ActionsResult, 'toolsUsed' | 'toolCalls' | 'filesRead' | 'filesEdited' | 'filesWritten' | 'shellCommands' | 'errors'>;

type Block = Record<string, unknown>;

function blocksOf(message: ProviderV1Message): Block[] {
  const content = (message.message as { content?: unknown } | undefined)?.content;
  return Array.isArray(content) ? content.filter((b): b is Block => b !== null && typeof b === 'object') : [];
}

/** A tool_result's content as text (a string, or an array of text blocks). */
export function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === 'string' ? part : typeof (part as Block)?.text === 'string' ? ((part as Block).text as string) : ''))
      .filter((t) => t !== '')
      .join('\n');
  }
  return content === undefined || content === null ? '' : JSON.stringify(content);
}

function cut(text: string, max: number): string {
  const flat = text.trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A list that keeps each value once, in first-seen order. */
function uniqueList(): { add(values: readonly string[] | undefined, cwd: string): void; values: string[] } {
  const seen = new Set<string>();
  const values: string[] = [];
  return {
    values,
    add(paths, cwd) {
      for (const path of paths ?? []) {
        if (typeof path !== 'string' || path === '') continue;
        const abs = isAbsolute(path) ? resolve(path) : resolve(cwd, path);
        if (!seen.has(abs)) {
          seen.add(abs);
          values.push(abs);
        }
      }
    },
  };
}

/** Digest a turn's messages. Pure (the readers are the provider's pure members). */
export function digestMessages(messages: readonly ProviderV1Message[], readers: ActionReaders): ActionDigest {
  const toolsUsed: Record<string, number> = {};
  const names = new Map<string, string>();
  const [read, edited, written] = [uniqueList(), uniqueList(), uniqueList()];
  const shellCommands: string[] = [];
  const errors: string[] = [];
  let toolCalls = 0;
  for (const message of messages) {
    for (const block of blocksOf(message)) {
      if (block.type === 'tool_use' && typeof block.name === 'string') {
        const name = block.name;
        toolCalls += 1;
        toolsUsed[name] = (toolsUsed[name] ?? 0) + 1;
        if (typeof block.id === 'string') names.set(block.id, name);
        const use = readers.classify?.({ name, input: block.input ?? {} }) ?? {};
        read.add(use.read, readers.cwd);
        edited.add(use.edited, readers.cwd);
        written.add(use.written, readers.cwd);
        if (typeof use.command === 'string' && use.command.trim() !== '') shellCommands.push(use.command);
      } else if (block.type === 'tool_result') {
        const name = typeof block.tool_use_id === 'string' ? names.get(block.tool_use_id) : undefined;
        const content = resultText(block.content);
        const isError = block.is_error === true;
        const error = readers.readError?.({ ...(name ? { name } : {}), content, isError }) ?? (isError ? content : undefined);
        if (error !== undefined) errors.push(cut(`${name ? `${name}: ` : ''}${error}`, ACTION_ERROR_MAX));
      }
    }
  }
  return { toolsUsed, toolCalls, filesRead: read.values, filesEdited: edited.values, filesWritten: written.values, shellCommands, errors };
}

/** The turns `actions` reports: the one asked, every submitted one (`all`), or the latest sent. */
function pickTurns(view: UsableView, asked: number | 'all' | undefined): TurnView[] {
  if (asked === 'all') return view.turns.filter((t) => !t.notSubmitted);
  if (asked === undefined) {
    const latest = latestSubmitted(view.turns);
    return latest ? [latest] : [];
  }
  const turn = view.turns.find((t) => t.turn === asked);
  if (!turn)
    throw new TurnNotFoundError(
      view.name,
      asked,
      view.turns.reduce((max, t) => Math.max(max, t.turn), 0),
    );
  if (turn.notSubmitted) throw new TurnNotSubmittedError(view.name, asked, turn.notSubmitted.message ?? turn.notSubmitted.reason);
  return [turn];
}

/** The readers of a worker's provider, behind the guard. */
export function readersOf(view: UsableView): ActionReaders {
  const provider = view.provider;
  return {
    cwd: view.meta.cwd,
    ...(provider.doClassifyTool ? { classify: (call) => guarded(provider, 'doClassifyTool', () => provider.doClassifyTool?.(call) ?? {}) } : {}),
    ...(provider.doReadToolError ? { readError: (result) => guarded(provider, 'doReadToolError', () => provider.doReadToolError?.(result)) } : {}),
  };
}

const ENDED = new Set<ProviderV1TurnRead['status']>(['completed', 'failed', 'interrupted']);

function merge(into: ActionDigest, more: ActionDigest): ActionDigest {
  const once = (a: readonly string[], b: readonly string[]) => [...a, ...b.filter((x) => !a.includes(x))];
  const toolsUsed = { ...into.toolsUsed };
  for (const [name, n] of Object.entries(more.toolsUsed)) toolsUsed[name] = (toolsUsed[name] ?? 0) + n;
  return {
    toolsUsed,
    toolCalls: into.toolCalls + more.toolCalls,
    filesRead: once(into.filesRead, more.filesRead),
    filesEdited: once(into.filesEdited, more.filesEdited),
    filesWritten: once(into.filesWritten, more.filesWritten),
    shellCommands: [...into.shellCommands, ...more.shellCommands],
    errors: [...into.errors, ...more.errors],
  };
}

const EMPTY: ActionDigest = { toolsUsed: {}, toolCalls: 0, filesRead: [], filesEdited: [], filesWritten: [], shellCommands: [], errors: [] };

/** The digest of some turns of a worker, each read as wait and read read it (./../ledger/turn-read.ts), from one read of its transcript. */
export async function digestTurns(
  view: UsableView,
  turns: readonly TurnView[],
): Promise<{ digest: ActionDigest; reads: ProviderV1TurnRead[]; missing: boolean }> {
  const turnReads = await readTurns(view, turns);
  if (turnReads.some((t) => t.options === undefined)) return { digest: EMPTY, reads: [], missing: true };
  const readers = readersOf(view);
  let digest = EMPTY;
  for (const { options } of turnReads) digest = merge(digest, digestMessages(readMessages(view, options), readers));
  return { digest, reads: turnReads.map((t) => t.read), missing: false };
}

/** `actions`: what the worker did in a turn, or in every turn. */
export async function workerActions(ctx: EngineContext, options: { name: string; turn?: number | 'all' }): Promise<ActionsResult> {
  const view = usableWorker(ctx, options.name);
  const turns = pickTurns(view, options.turn);
  const base = {
    worker: view.name,
    provider: view.meta.provider,
    cwd: view.meta.cwd,
    turns: turns.map((t) => t.turn),
    turnCount: turns.length,
    classified: view.provider.doClassifyTool !== undefined,
    ...(view.transcript.path ? { transcriptPath: view.transcript.path } : {}),
  };
  if (turns.length === 0) return { ...base, ...EMPTY, complete: true, note: `no turn was sent to '${view.name}' yet` };
  const { digest, reads, missing } = await digestTurns(view, turns);
  if (missing) return { ...base, ...EMPTY, complete: false, note: `no transcript of '${view.name}' can be read yet` };
  const errors = [...digest.errors];
  reads.forEach((read, i) => {
    if (read.status === 'failed') errors.push(cut(`turn ${turns[i]?.turn} failed: ${read.message}`, ACTION_ERROR_MAX));
  });
  const last = reads[reads.length - 1];
  const finalMessage = last?.status === 'completed' ? last.answer : last?.status === 'failed' ? last.message : undefined;
  return {
    ...base,
    ...digest,
    errors,
    complete: reads.every((r) => ENDED.has(r.status)),
    ...(finalMessage !== undefined ? { finalMessage } : {}),
  };
}
