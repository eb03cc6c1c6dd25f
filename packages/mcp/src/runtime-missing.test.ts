/** The bin's answer when @umbel/runtime, an optional peer, is not installed (the pack check runs it from the tarball alone). */
import { errorExitCode, UmbelError } from '@umbel/core';
import { describe, expect, it } from 'vitest';
import { runtimeMissing } from './runtime-missing.js';

const notFound = (name: string) =>
  Object.assign(new Error(`Cannot find package '${name}' imported from /x/node_modules/@umbel/mcp/dist/bin.js`), { code: 'ERR_MODULE_NOT_FOUND' });

describe('runtimeMissing', () => {
  it('is a usage error (exit 2) naming @umbel/runtime and `umbel mcp` when the runtime itself is missing', () => {
    const error = runtimeMissing(notFound('@umbel/runtime'));
    expect(UmbelError.isInstance(error)).toBe(true);
    expect(errorExitCode(error)).toBe(2);
    expect(`${error?.message}\n${error?.hint}`).toMatch(/@umbel\/runtime[\s\S]*umbel mcp/);
  });

  it('leaves any other failure as it is: a package the runtime imports, another error', () => {
    expect(runtimeMissing(notFound('@umbel/tmux'))).toBeUndefined();
    expect(runtimeMissing(new Error("Cannot find package '@umbel/runtime'"))).toBeUndefined();
    expect(runtimeMissing(undefined)).toBeUndefined();
  });
});
