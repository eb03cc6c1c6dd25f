/**
 * One error, one body on every face: the CLI's `--json` and text, `umbel -p`'s error result and the
 * RPC wire all show core's `errorBody` (MCP's is checked in @umbel/mcp's server.test.ts, workflow
 * results in run-printing.test.ts).
 */
import { errorBody, HostUnreachableError, SendNotSubmittedError, UsageError } from '@umbel/core';
import { encodeError } from '@umbel/remote';
import { describe, expect, it } from 'vitest';
import { reportError } from './output.js';
import { errorResultObject } from './print-result.js';

function sink(): { write(text: string): boolean; text(): string } {
  let out = '';
  return {
    write: (text: string) => {
      out += text;
      return true;
    },
    text: () => out,
  };
}

const typed = new SendNotSubmittedError('w1', 3, 'the last screen');
const issues = new UsageError('bad input', { issues: [{ path: 'name', message: 'required' }] });
const bug = new TypeError('x is undefined');

describe('the error body on every face', () => {
  it('is the same, facts included, for a typed error, a usage error with issues and a bug', () => {
    for (const error of [typed, issues, bug]) {
      const body = errorBody(error);
      const stdout = sink();
      reportError(error, { stdout, stderr: sink() }, true);
      expect(JSON.parse(stdout.text())).toEqual({ error: body });
      expect(errorResultObject(error, { durationMs: 0 }).umbel).toEqual({ reason: 'error', exit_code: expect.any(Number), ...body });
      expect(encodeError(error)).toEqual(body);
    }
    expect(errorBody(typed)).toMatchObject({ worker: 'w1', enterPresses: 3, paneTail: 'the last screen' });
    expect(errorBody(bug)).toEqual({ code: 'UMBEL_INTERNAL', name: 'Error', message: 'x is undefined' });
  });

  it("keeps an error's own reason fact beside umbel's reason in -p's result (error_reason)", () => {
    const unreachable = new HostUnreachableError('gpu', 'ssh: connect to host gpu port 22: Connection refused');
    expect(errorBody(unreachable)).toMatchObject({ reason: 'ssh: connect to host gpu port 22: Connection refused' });
    const { reason: _fact, ...rest } = errorBody(unreachable);
    expect(errorResultObject(unreachable, { durationMs: 0 }).umbel).toEqual({
      ...rest,
      reason: 'error',
      error_reason: 'ssh: connect to host gpu port 22: Connection refused',
      exit_code: 120,
    });
  });

  it('reads as text from the same body: message, hint, last screen', () => {
    const stderr = sink();
    expect(reportError(typed, { stdout: sink(), stderr }, false)).toBe(1);
    expect(stderr.text()).toBe(`umbel: ${typed.message}\n  hint: ${typed.hint}\n--- last screen ---\nthe last screen\n`);
  });
});
