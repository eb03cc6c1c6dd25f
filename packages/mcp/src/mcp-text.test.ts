import {
  CwdMissingError,
  EnvUnresolvedError,
  NotSignedInError,
  OptionUnsupportedError,
  ProviderFailedError,
  ProviderUnknownError,
  SendBusyError,
  SendNotSubmittedError,
  StateUnwritableError,
  TurnNotFoundError,
  TurnNotSubmittedError,
  type UmbelError,
  WorkerCorruptError,
  WorkerDeadError,
  WorkerExistsError,
  WorkerNotFoundError,
  WorkerVanishedError,
} from '@umbel/core';
import { describe, expect, it } from 'vitest';
import { forMcp } from './mcp-text.js';

/** An instance of every typed error of core (the ones a tool call can meet). */
const ERRORS: UmbelError[] = [
  new EnvUnresolvedError('API_KEY'),
  new ProviderUnknownError('x', ['claude']),
  new OptionUnsupportedError('codex', '--allowed-tools', 'codex has no per-tool allow list'),
  new OptionUnsupportedError('codex', '--permission-mode plan', 'use one of default'),
  new OptionUnsupportedError('mock', '--unattended'),
  new OptionUnsupportedError('mock', '--append-system-prompt'),
  new CwdMissingError('/nope'),
  new WorkerExistsError('w1'),
  new WorkerNotFoundError('w1'),
  new WorkerDeadError('w1', 'process exited 1'),
  new NotSignedInError('Claude Code', 'Select login method'),
  new SendNotSubmittedError('w1', 3),
  new SendBusyError('w1', 30_000),
  new TurnNotSubmittedError('w1', 2, 'not confirmed'),
  new WorkerCorruptError('w1', 'meta.json is empty', '/s/meta.json'),
  new WorkerVanishedError('w1', 'while waiting'),
  new ProviderFailedError('claude', 'doReadTurn', new Error('boom')),
  new StateUnwritableError('/s', 'ENOSPC'),
  new StateUnwritableError('/s', 'EROFS'),
  new TurnNotFoundError('w1', 3, 2),
];

const CLI = /\bumbel (?!_)[a-z]|(^|[\s('"])--[a-z]/;

describe('forMcp', () => {
  it('no message or hint of a typed error names a CLI command or flag once rewritten', () => {
    for (const error of ERRORS) {
      for (const text of [error.message, error.hint ?? '']) expect(forMcp(text), `${error.name}: ${text}`).not.toMatch(CLI);
    }
  });

  it('names the tool and its input', () => {
    expect(forMcp("run 'umbel ls' to see the workers")).toBe('call umbel_list to see the workers');
    expect(forMcp("pick another name, or run 'umbel kill w1 --purge' first")).toBe('pick another name, or call umbel_kill {"name":"w1","purge":true} first');
    expect(forMcp("inspect it with 'umbel capture w1'")).toBe('inspect it with umbel_capture {"name":"w1"}');
    expect(forMcp('wait for it first: umbel wait w1 --turn 3')).toBe('wait for it first: umbel_wait {"name":"w1","turn":3}');
    expect(forMcp('free some space (umbel prune removes dead workers), then try again')).toBe(
      'free some space (umbel_prune removes dead workers), then try again',
    );
    expect(forMcp('export K before running umbel, or pass --env K=VALUE')).toBe(
      'set K in the MCP server\'s environment, or pass env {"K": "VALUE"} to umbel_spawn',
    );
    expect(forMcp("provider 'codex' does not support --permission-mode plan")).toBe("provider 'codex' does not support permissionMode plan");
    expect(forMcp("this is a defect; 'umbel doctor --provider claude' checks the installation")).toBe('this is a defect');
  });

  it("leaves another CLI's own flags and plain text alone", () => {
    expect(forMcp('use --approval-mode / policies in gemini settings')).toBe('use --approval-mode / policies in gemini settings');
    expect(forMcp('the worker keeps running')).toBe('the worker keeps running');
  });
});
