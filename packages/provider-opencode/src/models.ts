/**
 * `--model provider/model`, checked against `opencode models` (one `provider/model` per line) before
 * launching: the TUI silently falls back to its default for an unknown model (FACTS.md §e;
 * docs/providers/opencode.md, "The model check").
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastLines, runCommand, SpawnFailedError, stripAnsi, UsageError } from '@umbel/provider';
import { MODEL_ID } from './facts.js';

/** How many models an unknown-model error names. */
export const MODELS_NAMED = 10;
/** How long `opencode models` may take (it boots the whole app: ~7 s on a loaded machine). */
export const MODELS_TIMEOUT_MS = 90_000;

/** `--model` names a model opencode does not list. Exit 2. */
export class OpencodeModelUnknownError extends UsageError {
  readonly model: string;
  readonly known: readonly string[];
  constructor(model: string, known: readonly string[]) {
    super(`opencode has no model '${model}': ${describeModels(model, known)}`, { hint: 'pass one of `opencode models` as --model provider/model' });
    this.name = 'OpencodeModelUnknownError';
    this.model = model;
    this.known = known;
  }
}

/** `opencode models` failed or printed no model. Exit 1. */
export class OpencodeModelsUnreadableError extends SpawnFailedError {
  constructor(detail: string) {
    super(`could not check --model: \`opencode models\` ${detail}`, {
      hint: 'run `opencode models` by hand, or spawn without --model (opencode then uses its configured default)',
    });
    this.name = 'OpencodeModelsUnreadableError';
  }
}

/** The model ids in `opencode models` output (one `provider/model` per line; colours and blank lines ignored). */
export function parseModelList(stdout: string): string[] {
  return stripAnsi(stdout)
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => MODEL_ID.test(line));
}

/** "N models: a, b, … and M more", the wanted provider's models first. */
export function describeModels(model: string, known: readonly string[]): string {
  if (known.length === 0) return 'it lists none';
  const provider = `${model.split('/')[0]}/`;
  const ordered = [...known.filter((m) => m.startsWith(provider)), ...known.filter((m) => !m.startsWith(provider))];
  const named = ordered.slice(0, MODELS_NAMED);
  const rest = ordered.length - named.length;
  return `it lists ${named.join(', ')}${rest > 0 ? ` and ${rest} more` : ''}`;
}

/** Throw {@link OpencodeModelUnknownError} unless `model` is one of `known`. */
export function checkModel(model: string, known: readonly string[]): void {
  if (!known.includes(model)) throw new OpencodeModelUnknownError(model, known);
}

/**
 * Run `<binary> models` in `cwd` with `env` (no shell, nothing on argv but the word), on a state dir
 * of its own, removed after: it exits before its background install has failed and leaves that
 * install's lock in `$XDG_STATE_HOME/opencode/locks`, and the worker's opencode, started right after
 * on the same state dir, would wait ~60 s for the lock to go stale (FACTS.md §a).
 */
export async function listModels(binary: string, env: Readonly<Record<string, string>>, cwd: string): Promise<string[]> {
  const state = await mkdtemp(join(tmpdir(), 'umbel-opencode-models-'));
  const run = await runCommand(binary, ['models'], { env: { ...env, XDG_STATE_HOME: state }, cwd, timeoutMs: MODELS_TIMEOUT_MS }).finally(() =>
    rm(state, { recursive: true, force: true }),
  );
  if (!run.ok) throw new OpencodeModelsUnreadableError(run.reason);
  const models = parseModelList(run.stdout);
  if (models.length === 0) throw new OpencodeModelsUnreadableError(`printed no model${run.stdout.trim() ? `: ${lastLines(run.stdout)}` : ''}`);
  return models;
}
