import { readFileSync } from 'node:fs';
import type { ProviderV1 } from '@umbel/core';
import { describe, expect, it } from 'vitest';
import * as pkg from './index.js';
import { claude, createClaude, VERSION } from './index.js';

describe('createClaude', () => {
  it('declares the Claude Code provider', () => {
    const provider: ProviderV1 = createClaude();
    expect(provider.specificationVersion).toBe('umbel-provider-v1');
    expect(provider.providerId).toBe('claude');
    expect(provider.displayName).toBe('Claude Code');
    expect(provider.capabilities).toEqual({
      unattended: true,
      allowedTools: true,
      appendSystemPrompt: true,
      permissionModes: ['default', 'acceptEdits', 'plan', 'auto', 'dontAsk', 'bypassPermissions', 'manual'],
      model: true,
      resume: true,
      launchPrompt: true,
    });
    expect(provider.input).toEqual({ alwaysPaste: true, confirmTimeoutMs: 1500, maxSubmitRetries: 3, submitDelayMs: 0, clearKeys: ['Escape', 'Escape'] });
    expect(provider.verifiedVersions).toEqual(['2.1.328', '2.1.332']);
    expect(provider.description).toContain('Claude Code');
    for (const member of [
      'doValidate',
      'doReconcileEnv',
      'doBuildLaunch',
      'doDetectStartup',
      'doPreparePrompt',
      'doParseEvent',
      'doReadTurn',
      'doReadMessages',
      'doDetectSignIn',
      'doDetectInputPrompt',
      'doReadInputBox',
      'doFindBinary',
    ] as const) {
      expect(typeof provider[member]).toBe('function');
    }
  });

  it('exports a default instance, VERSION equal to package.json, and the pure helpers', () => {
    expect(claude.providerId).toBe('claude');
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(VERSION).toBe(manifest.version);
    for (const name of ['readClaudeTurn', 'readClaudeMessages', 'encodeClaudeProjectDir', 'splitAllowedTools']) {
      expect(typeof (pkg as Record<string, unknown>)[name]).toBe('function');
    }
  });
});

describe('doPreparePrompt', () => {
  it('adds one leading space to prompts starting with / or !', () => {
    expect(claude.doPreparePrompt?.('/notacommand arg')).toBe(' /notacommand arg');
    expect(claude.doPreparePrompt?.('!ls')).toBe(' !ls');
  });

  it('leaves everything else unchanged', () => {
    for (const prompt of ['hello', ' /already spaced', '#memo', 'a/b', 'multi\nline\t', '']) expect(claude.doPreparePrompt?.(prompt)).toBe(prompt);
  });
});

describe('provider members delegate to the helpers', () => {
  it('doReconcileEnv and doValidate', () => {
    expect(claude.doReconcileEnv?.({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_AUTH_TOKEN: 't' })).toEqual({ ANTHROPIC_AUTH_TOKEN: 't' });
    expect(() => claude.doValidate?.({ spawn: { cwd: '/w', unattended: true, env: {}, callerEnv: {} }, isRoot: true })).toThrow(/IS_SANDBOX=1/);
  });

  it('doParseEvent, doDetectSignIn, doDetectStartup, doReadTurn', () => {
    expect(claude.doParseEvent({ kind: 'stop', at: 1n, payload: { last_assistant_message: 'x' } }).lastMessage).toBe('x');
    expect(claude.doDetectSignIn?.(' Select login method:')).toBe('Select login method:');
    expect(claude.doDetectStartup({ screen: '', events: [] })).toEqual({ state: 'starting' });
    expect(claude.doReadTurn({ content: '', transcriptPath: 'x', ordinal: 1, stopSeen: false })).toEqual({ status: 'missing' });
  });
});
