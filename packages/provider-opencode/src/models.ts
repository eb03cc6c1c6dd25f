/**
 * `--model provider/model`, checked against the models opencode lists. The TUI silently falls back
 * to its default model for an unknown one (FACTS.md §e), so umbel asks `opencode models` (one
 * `provider/model` per line, exit 0; ~7 s) before launching, with the worker's env and cwd (the
 * user's and the project's providers) — in `doBuildLaunch`, the first member that may do I/O
 * (`doValidate` only checks the shape). Unknown → {@link OpencodeModelUnknownError} (a UsageError,
 * exit 2); the list unreadable → {@link OpencodeModelsUnreadableError} (exit 1).
 */
import { execFile } from 'node:child_process';
import { SpawnFailedError, UsageError } from '@umbel/provider';

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
  return stdout
    .replace(/\x1b\[[0-9;]*m/g, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /^[^/\s]+\/\S+$/.test(line));
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

const oneLine = (text: string) =>
  text
    .replace(/\x1b\[[0-9;]*m/g, '')
    .trim()
    .split('\n')
    .slice(-3)
    .join(' / ')
    .slice(0, 300);

/** Run `<binary> models` in `cwd` with `env` (no shell, nothing on argv but the word). */
export function listModels(binary: string, env: Readonly<Record<string, string>>, cwd: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile(binary, ['models'], { env, cwd, timeout: MODELS_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) {
        const how = error.killed ? `did not answer within ${MODELS_TIMEOUT_MS / 1000}s` : `failed (${error.code ?? error.signal ?? 'error'})`;
        const said = oneLine(stderr || stdout);
        reject(new OpencodeModelsUnreadableError(`${how}${said ? `: ${said}` : ''}`));
        return;
      }
      const models = parseModelList(stdout);
      if (models.length === 0) reject(new OpencodeModelsUnreadableError(`printed no model${stdout.trim() ? `: ${oneLine(stdout)}` : ''}`));
      else resolve(models);
    });
  });
}
