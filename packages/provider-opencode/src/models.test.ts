import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorExitCode } from '@umbel/core';
import { afterAll, describe, expect, it } from 'vitest';
import {
  checkModel as checkModelOf,
  describeModels,
  listModels as listModelsOf,
  ModelsUnreadableError,
  ModelUnknownError,
  parseModelList as parseModelListOf,
} from '@umbel/provider';
import { OPENCODE_MODELS } from './provider.js';

// the kit's model-list check on opencode's facts
const parseModelList = (stdout: string) => parseModelListOf(stdout, OPENCODE_MODELS.id);
const checkModel = (model: string, known: readonly string[]) => checkModelOf(OPENCODE_MODELS, model, known);
const listModels = (binary: string, env: Record<string, string>, cwd: string) => listModelsOf(OPENCODE_MODELS, binary, env, cwd);

// `opencode models` of the real 1.18.33 with the mock provider configured (FACTS.md §e)
const REAL = `opencode/big-pickle
opencode/ling-3.0-flash-fin-free
opencode/longcat-2.5-preview-free
opencode/mimo-v2.6-flash-free
opencode/muse-spark-1.3-contributor-free
opencode/nemotron-3-ultra-free
opencode/nemotron-3.5-lightning-free
opencode/space-bunny-free
mock/mock-model
mock/mock-model-2
`;
const root = mkdtempSync(join(tmpdir(), 'umbel-oc-models-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
/** A stand-in `opencode` printing `stdout` / `stderr` and exiting `code` for `opencode models`. */
function bin(name: string, body: string): string {
  const file = join(root, name);
  writeFileSync(file, `#!/bin/sh\n[ "$1" = models ] || exit 99\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

describe('the model list', () => {
  it('parses `opencode models` (colour codes and non-model lines ignored)', () => {
    expect(parseModelList(REAL)).toHaveLength(10);
    expect(parseModelList(`\x1b[1mmock/a\x1b[0m\n\nwarning: something\nmock/b/c\n`)).toEqual(['mock/a', 'mock/b/c']);
  });

  it('an unknown model: exit 2, naming the first ten (its provider first) and how many more', () => {
    const many = [...parseModelList(REAL), 'extra/one', 'extra/two'];
    let error: unknown;
    try {
      checkModel('mock/nope', many);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ModelUnknownError);
    expect(errorExitCode(error)).toBe(2);
    expect((error as Error).name).toBe('OpencodeModelUnknownError');
    expect((error as Error).message).toBe(
      "opencode has no model 'mock/nope': it lists mock/mock-model, mock/mock-model-2, opencode/big-pickle, opencode/ling-3.0-flash-fin-free, opencode/longcat-2.5-preview-free, opencode/mimo-v2.6-flash-free, opencode/muse-spark-1.3-contributor-free, opencode/nemotron-3-ultra-free, opencode/nemotron-3.5-lightning-free, opencode/space-bunny-free and 2 more",
    );
    expect(describeModels('x/y', ['a/b'])).toBe('it lists a/b');
    expect(() => checkModel('mock/mock-model-2', many)).not.toThrow();
  });

  it('runs `opencode models` with the given env and cwd, no shell', async () => {
    const echoEnv = bin('env-models', 'printf "%s\\n" "mock/$WHICH" "cwd/$(basename "$PWD")"');
    expect(await listModels(echoEnv, { PATH: '/usr/bin:/bin', WHICH: 'from-env' }, root)).toEqual(['mock/from-env', `cwd/${root.split('/').at(-1)}`]);
  });

  it('runs it with a state dir of its own, removed after: the install lock it leaves never stalls the start of the worker', async () => {
    // `opencode models` exits before its background install has failed and leaves the install's lock
    // in $XDG_STATE_HOME/opencode/locks; an opencode started on the same state dir waits ~60 s for it.
    const state = join(root, 'worker-state');
    const seen = join(root, 'seen-state');
    const locking = bin('locking', `mkdir -p "$XDG_STATE_HOME/opencode/locks/x.lock" && echo "$XDG_STATE_HOME" > '${seen}' && echo mock/m`);
    expect(await listModels(locking, { PATH: '/usr/bin:/bin', XDG_STATE_HOME: state }, root)).toEqual(['mock/m']);
    const used = readFileSync(seen, 'utf8').trim();
    expect(used).not.toBe(state);
    expect(used).not.toBe('');
    expect(existsSync(join(state, 'opencode'))).toBe(false);
    expect(existsSync(used)).toBe(false);
  });

  it('a list it cannot read is a clear error (exit 1): a failing command, no models, a missing binary', async () => {
    const failing = bin('failing', 'printf "\\033[91mError: \\033[0mProvider config broken\\n" >&2; exit 1');
    await expect(listModels(failing, { PATH: '/usr/bin:/bin' }, root)).rejects.toThrow(
      'could not check --model: `opencode models` failed (1): Error: Provider config broken',
    );
    const empty = bin('empty', 'echo "nothing here"');
    const error = await listModels(empty, { PATH: '/usr/bin:/bin' }, root).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelsUnreadableError);
    expect(errorExitCode(error)).toBe(1);
    expect((error as Error).name).toBe('OpencodeModelsUnreadableError');
    expect((error as Error).message).toBe('could not check --model: `opencode models` printed no model: nothing here');
    await expect(listModels(join(root, 'missing'), { PATH: '/usr/bin:/bin' }, root)).rejects.toThrow(/`opencode models` failed \(ENOENT\)/);
  });
});
