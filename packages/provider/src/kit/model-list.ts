/**
 * `--model` checked against the CLI's own model list before launching, for a CLI that silently falls
 * back to its default on a model it does not know: the list command runs with the worker's env and
 * cwd (no shell), its lines that look like model ids are the list, and an unknown model is a usage
 * error naming the known ones.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SpawnFailedError, UsageError } from '../errors.js';
import { lastLines, runCommand, stripAnsi } from './command.js';

/** How a CLI lists its models. */
export interface ModelListFacts {
  /** The CLI's name in messages (`opencode`). */
  readonly cli: string;
  /** The arguments that print the model ids, one a line (`['models']`). */
  readonly args: readonly string[];
  /** What a model id looks like; lines that do not match are not models. */
  readonly id: RegExp;
  /** How `--model` is written, for messages (`provider/model`), and an example of it. */
  readonly format?: string;
  readonly example?: string;
  /** How long the command may take (ms). Default 90 000. */
  readonly timeoutMs?: number;
  /** Env variables pointed at one scratch dir, removed after: state the command leaves never reaches the worker. */
  readonly scratchEnv?: readonly string[];
  /** Prefix of the errors' names (`Opencode` → `OpencodeModelUnknownError`). */
  readonly errorPrefix?: string;
}

/** How many models an unknown-model error names. */
export const MODELS_NAMED = 10;

/** `--model` names a model the CLI does not list. Exit 2. */
export class ModelUnknownError extends UsageError {
  readonly model: string;
  readonly known: readonly string[];
  constructor(facts: ModelListFacts, model: string, known: readonly string[]) {
    const hint = `pass one of \`${[facts.cli, ...facts.args].join(' ')}\` as --model${facts.format ? ` ${facts.format}` : ''}`;
    super(`${facts.cli} has no model '${model}': ${describeModels(model, known)}`, { hint });
    this.name = `${facts.errorPrefix ?? ''}ModelUnknownError`;
    this.model = model;
    this.known = known;
  }
}

/** The model list command failed or printed no model. Exit 1. */
export class ModelsUnreadableError extends SpawnFailedError {
  constructor(facts: ModelListFacts, detail: string) {
    const command = [facts.cli, ...facts.args].join(' ');
    super(`could not check --model: \`${command}\` ${detail}`, {
      hint: `run \`${command}\` by hand, or spawn without --model (${facts.cli} then uses its configured default)`,
    });
    this.name = `${facts.errorPrefix ?? ''}ModelsUnreadableError`;
  }
}

/** The model ids in the list's output (colours and lines that are no id ignored). */
export function parseModelList(stdout: string, id: RegExp): string[] {
  return stripAnsi(stdout)
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => id.test(line));
}

/** "it lists a, b, … and M more" ({@link MODELS_NAMED} at most), the models sharing the wanted one's `x/` prefix first. */
export function describeModels(model: string, known: readonly string[]): string {
  if (known.length === 0) return 'it lists none';
  const provider = `${model.split('/')[0]}/`;
  const ordered = [...known.filter((m) => m.startsWith(provider)), ...known.filter((m) => !m.startsWith(provider))];
  const named = ordered.slice(0, MODELS_NAMED);
  const rest = ordered.length - named.length;
  return `it lists ${named.join(', ')}${rest > 0 ? ` and ${rest} more` : ''}`;
}

/** Refuse (a UsageError, before any I/O) a `model` that does not look like a model id. */
export function checkModelFormat(facts: ModelListFacts, model: string): void {
  if (facts.id.test(model)) return;
  const how = `${facts.format ?? 'a model id'}${facts.example ? ` (e.g. ${facts.example})` : ''}`;
  throw new UsageError(`${facts.cli} takes --model as ${how}, not '${model}'`, { hint: `run \`${[facts.cli, ...facts.args].join(' ')}\` to see the ids` });
}

/** Throw {@link ModelUnknownError} unless `model` is one of `known`. */
export function checkModel(facts: ModelListFacts, model: string, known: readonly string[]): void {
  if (!known.includes(model)) throw new ModelUnknownError(facts, model, known);
}

/** Run the list command with `env` in `cwd` (the scratch env dirs removed after); its model ids, else {@link ModelsUnreadableError}. */
export async function listModels(facts: ModelListFacts, binary: string, env: Readonly<Record<string, string>>, cwd: string): Promise<string[]> {
  const scratch = facts.scratchEnv?.length ? await mkdtemp(join(tmpdir(), `umbel-${facts.cli}-models-`)) : undefined;
  const scratchEnv = Object.fromEntries((facts.scratchEnv ?? []).map((name) => [name, scratch as string]));
  const run = await runCommand(binary, facts.args, { env: { ...env, ...scratchEnv }, cwd, timeoutMs: facts.timeoutMs ?? 90_000 }).finally(
    () => scratch && rm(scratch, { recursive: true, force: true }),
  );
  if (!run.ok) throw new ModelsUnreadableError(facts, run.reason);
  const models = parseModelList(run.stdout, facts.id);
  if (models.length === 0) throw new ModelsUnreadableError(facts, `printed no model${run.stdout.trim() ? `: ${lastLines(run.stdout)}` : ''}`);
  return models;
}
