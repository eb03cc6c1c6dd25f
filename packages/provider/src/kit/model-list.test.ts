import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  checkModel,
  checkModelFormat,
  describeModels,
  listModels,
  type ModelListFacts,
  ModelsUnreadableError,
  ModelUnknownError,
  parseModelList,
} from './model-list.js';

const root = mkdtempSync(join(tmpdir(), 'umbel-kit-models-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const FACTS: ModelListFacts = { cli: 'acme', args: ['list', 'models'], id: /^[a-z]+\/\S+$/, format: 'vendor/model', errorPrefix: 'Acme' };
/** A stand-in CLI running `body` for `list models`. */
function bin(name: string, body: string): string {
  const file = join(root, name);
  writeFileSync(file, `#!/bin/sh\n[ "$1 $2" = "list models" ] || exit 99\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}
const ENV = { PATH: '/usr/bin:/bin' };

describe('a model checked against the CLI model list', () => {
  it('reads the ids (colours and other lines ignored) and names ten, the wanted prefix first', () => {
    expect(parseModelList('\x1b[1mv/a\x1b[0m\n\nwarning: x\nv/b/c\nNo/x\n', FACTS.id)).toEqual(['v/a', 'v/b/c']);
    const known = ['a/1', 'a/2', 'a/3', 'a/4', 'a/5', 'a/6', 'a/7', 'a/8', 'a/9', 'b/1', 'b/2', 'a/10'];
    expect(describeModels('b/x', known)).toBe('it lists b/1, b/2, a/1, a/2, a/3, a/4, a/5, a/6, a/7, a/8 and 2 more');
    expect(describeModels('b/x', [])).toBe('it lists none');
  });

  it('an unknown model is a usage error named after the CLI, with the known ones and a hint', () => {
    let error: ModelUnknownError | undefined;
    try {
      checkModel(FACTS, 'v/nope', ['v/a']);
    } catch (e) {
      error = e as ModelUnknownError;
    }
    expect(error).toBeInstanceOf(ModelUnknownError);
    expect([error?.name, error?.message, error?.hint, error?.known]).toEqual([
      'AcmeModelUnknownError',
      "acme has no model 'v/nope': it lists v/a",
      'pass one of `acme list models` as --model vendor/model',
      ['v/a'],
    ]);
    expect(() => checkModel(FACTS, 'v/a', ['v/a'])).not.toThrow();
  });

  it('a model that is no id is refused before any I/O, saying how one is written', () => {
    expect(() => checkModelFormat(FACTS, 'nope')).toThrow("acme takes --model as vendor/model, not 'nope'");
    expect(() => checkModelFormat({ ...FACTS, format: undefined, example: 'v/m' }, 'x')).toThrow("acme takes --model as a model id (e.g. v/m), not 'x'");
    expect(() => checkModelFormat(FACTS, 'v/a')).not.toThrow();
  });

  it('runs the command with the env and cwd, the scratch variables on a dir removed after', async () => {
    const seen = join(root, 'seen');
    const cli = bin('ok', `echo "$STATE" > '${seen}'; mkdir -p "$STATE/x"; printf "%s\\n" "v/$WHICH" "v/$(basename "$PWD")"`);
    const models = await listModels({ ...FACTS, scratchEnv: ['STATE'] }, cli, { ...ENV, WHICH: 'env', STATE: '/nowhere' }, root);
    expect(models).toEqual(['v/env', `v/${root.split('/').at(-1)}`]);
    const used = readFileSync(seen, 'utf8').trim();
    expect(used).not.toBe('/nowhere');
    expect(used).not.toBe('');
    expect(existsSync(used)).toBe(false);
  });

  it('a list it cannot read is a spawn failure saying why', async () => {
    await expect(listModels(FACTS, bin('fail', 'echo broken >&2; exit 3'), ENV, root)).rejects.toThrow(
      'could not check --model: `acme list models` failed (3): broken',
    );
    const error = (await listModels(FACTS, bin('none', 'echo nothing'), ENV, root).catch((e: unknown) => e)) as ModelsUnreadableError;
    expect(error).toBeInstanceOf(ModelsUnreadableError);
    expect([error.name, error.message]).toEqual(['AcmeModelsUnreadableError', 'could not check --model: `acme list models` printed no model: nothing']);
    expect(error.hint).toBe('run `acme list models` by hand, or spawn without --model (acme then uses its configured default)');
  });
});
