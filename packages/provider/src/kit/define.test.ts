import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { UsageError } from '../errors.js';
import type { ProviderV1ReadTurnOptions } from '../spec.js';
import { defineProvider } from './define.js';
import type { ProviderFacts } from './facts.js';

const base: Omit<ProviderFacts<readonly string[]>, 'transcript'> = {
  id: 'acme',
  displayName: 'Acme',
  verifiedVersions: ['1.0.0'],
  binary: { name: 'acme' },
  hooks: { events: { Submit: 'prompt', Done: 'stop' }, install: () => ({}) },
  screens: { ready: { hook: 'prompt' } },
};

/** Launch options of one worker in `dir`, the CLI at `bin` (found by UMBEL_ACME_BIN). */
const launchIn = (dir: string, bin: string, path = '/nonexistent') => ({
  worker: 'w',
  cwd: dir,
  unattended: false,
  env: {},
  callerEnv: { PATH: path, UMBEL_ACME_BIN: bin },
  workerDir: join(dir, 'worker'),
  sharedDir: join(dir, 'shared'),
  sessionId: 's',
  hookCommand: () => 'sink',
  hookSinkPath: 'sink',
});

const options = (content: string, over: Partial<ProviderV1ReadTurnOptions> = {}): ProviderV1ReadTurnOptions => ({
  content,
  transcriptPath: '/t.jsonl',
  ordinal: 1,
  stopSeen: true,
  ...over,
});

describe('defineProvider: the transcript reader', () => {
  const reader = () => {
    const parse = vi.fn((content: string) => content.split('\n').filter(Boolean));
    const provider = defineProvider({
      ...base,
      transcript: {
        parse,
        turn: (lines, o) => (lines.length >= o.ordinal ? { status: 'completed', answer: lines[o.ordinal - 1] ?? '' } : { status: 'missing' }),
        messages: (lines) => lines.map((text) => ({ type: 'assistant' as const, message: { content: text } })),
      },
    });
    return { parse, provider };
  };

  it('parses a text once for every reader when the engine passes what doParseTranscript made', () => {
    const { parse, provider } = reader();
    const parsed = provider.doParseTranscript?.({ content: 'a\nb\n', transcriptPath: '/t.jsonl' });
    const o = options('a\nb\n', { parsed, ordinal: 2 });
    expect(provider.doReadTurn(o)).toMatchObject({ status: 'completed', answer: 'b' });
    expect(provider.doReadMessages?.(o)).toHaveLength(2);
    expect(parse).toHaveBeenCalledTimes(1);
  });

  it('parses the content itself for an engine that passes nothing parsed', () => {
    const { parse, provider } = reader();
    expect(provider.doReadTurn(options('a\n'))).toMatchObject({ status: 'completed', answer: 'a' });
    expect(provider.doReadTurn(options('', { ordinal: 1 }))).toEqual({ status: 'missing' });
    expect(parse).toHaveBeenCalledTimes(2);
  });

  it('still takes the unparsed form (read, messages) and then has no doParseTranscript', () => {
    const provider = defineProvider({ ...base, transcript: { read: () => ({ status: 'running' }) } });
    expect(provider.doParseTranscript).toBeUndefined();
    expect(provider.doReadMessages).toBeUndefined();
    expect(provider.doReadTurn(options('x'))).toEqual({ status: 'running' });
  });
});

describe('defineProvider: the extras are facts', () => {
  it('compiles tools, scratch cleanup and activity dirs into their spec members', async () => {
    const forgetScratch = vi.fn(async () => undefined);
    const readError = (result: { content: string }) => (result.content.startsWith('boom') ? result.content : undefined);
    const provider = defineProvider({
      ...base,
      transcript: { read: () => ({ status: 'missing' }) },
      tools: { table: { sh: { does: 'command', fields: ['cmd'] } }, readError },
      forgetScratch,
      activityDirs: (path) => [`${path}.d`],
    });
    expect(provider.doClassifyTool?.({ name: 'sh', input: { cmd: 'ls' } })).toEqual({ command: 'ls' });
    expect(provider.doReadToolError?.({ content: 'boom!', isError: false })).toBe('boom!');
    await provider.doForgetScratch?.({ folder: '/f', sessionIds: ['s'], env: {} });
    expect(forgetScratch).toHaveBeenCalledWith({ folder: '/f', sessionIds: ['s'], env: {} });
    expect(provider.doFindActivityDirs?.('/t')).toEqual(['/t.d']);
  });

  it('forgets a scratch session by its scratch facts (the kit edits and removes; they win over forgetScratch)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'umbel-kit-scratch-'));
    try {
      await writeFile(join(dir, 'history.jsonl'), '{"s":"session-0001"}\n{"s":"other"}\n');
      const forgetScratch = vi.fn(async () => undefined);
      const provider = defineProvider({
        ...base,
        transcript: { read: () => ({ status: 'missing' }) },
        forgetScratch,
        scratch: ({ sessionIds }) => ({
          edits: [
            {
              path: join(dir, 'history.jsonl'),
              edit: (text) =>
                text
                  .split('\n')
                  .filter((l) => !sessionIds.some((id) => l.includes(id)))
                  .join('\n'),
            },
          ],
        }),
      });
      await provider.doForgetScratch?.({ folder: '/f', sessionIds: ['session-0001'], env: {} });
      expect(await readFile(join(dir, 'history.jsonl'), 'utf8')).toBe('{"s":"other"}\n');
      expect(forgetScratch).not.toHaveBeenCalled();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses a variable the worker's env owns (env.owned) before any I/O, then runs the provider's own validate", () => {
    const validate = vi.fn();
    const provider = defineProvider({
      ...base,
      env: { owned: { ACME_HOME: { what: 'per-worker home for Acme', hint: 'set ACME_CONFIG instead' } } },
      transcript: { read: () => ({ status: 'missing' }) },
      validate,
    });
    const spawn = (env: Record<string, string>) => ({ spawn: { env, unattended: false } }) as never;
    expect(() => provider.doValidate?.(spawn({ ACME_HOME: '/x' }))).toThrow(UsageError);
    expect(() => provider.doValidate?.(spawn({ ACME_HOME: '/x' }))).toThrow("ACME_HOME is umbel's per-worker home for Acme and cannot be passed in");
    expect(validate).not.toHaveBeenCalled();
    provider.doValidate?.(spawn({ OTHER: '1' }));
    expect(validate).toHaveBeenCalledTimes(1);
    try {
      provider.doValidate?.(spawn({ ACME_HOME: '/x' }));
    } catch (error) {
      expect((error as UsageError).hint).toBe('set ACME_CONFIG instead');
    }
  });

  it('has none of those members without the facts', () => {
    const provider = defineProvider({ ...base, transcript: { read: () => ({ status: 'missing' }) } });
    for (const member of ['doClassifyTool', 'doReadToolError', 'doForgetScratch', 'doFindActivityDirs', 'promptHook'] as const)
      expect(provider[member]).toBeUndefined();
  });

  it("passes the hooks' `promptHook` fact on as the spec member", () => {
    const hooks = { ...base.hooks, promptHook: 'every-prompt' as const };
    expect(defineProvider({ ...base, hooks, transcript: { read: () => ({ status: 'missing' }) } }).promptHook).toBe('every-prompt');
  });
});

describe('defineProvider: code where a table cannot say it', () => {
  it('reads the input box with the provider reader, and clears it with its keys', () => {
    const provider = defineProvider({
      ...base,
      transcript: { read: () => ({ status: 'missing' }) },
      screens: { ready: { inputBox: true }, inputBox: { read: (screen) => /\[(.*)\]/.exec(screen)?.[1], clearKeys: ['C-c'] } },
    });
    expect(provider.doReadInputBox?.('title\n[draft]')).toBe('draft');
    expect(provider.doReadInputBox?.('no box')).toBeUndefined();
    expect(provider.input?.clearKeys).toEqual(['C-c']);
    expect(provider.doDetectStartup({ screen: '[]', events: [] }).state).toBe('ready');
    expect(provider.doDetectStartup({ screen: 'loading', events: [] }).state).toBe('starting');
  });

  it("carries out an install's plan: prepares and reads first, then the parts from what it got", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'umbel-kit-prepare-'));
    try {
      const bin = join(dir, 'acme');
      await writeFile(bin, '#!/bin/sh\n', { mode: 0o755 });
      await writeFile(join(dir, 'user.json'), '{"theme":"dark"}');
      const provider = defineProvider({
        ...base,
        hooks: {
          ...base.hooks,
          install: ({ launch }) => ({
            prepare: { dirs: [join(launch.workerDir, 'tmp')], readJson: { user: { path: join(dir, 'user.json'), what: 'Acme settings' } } },
            parts: ({ json }) => ({ env: { ACME_THEME: String(json.user?.theme), ACME_TMP: join(launch.workerDir, 'tmp') } }),
          }),
        },
        transcript: { read: () => ({ status: 'missing' }) },
      });
      const launch = await provider.doBuildLaunch(launchIn(dir, bin));
      expect(launch.env).toEqual({ ACME_THEME: 'dark', ACME_TMP: join(dir, 'worker', 'tmp') });
      expect((await stat(join(dir, 'worker', 'tmp'))).isDirectory()).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('checks --model by the models facts: its format before any I/O, then the list before launching (unless check is false)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'umbel-kit-models-'));
    try {
      const bin = join(dir, 'acme');
      await writeFile(bin, '#!/bin/sh\n[ "$1" = models ] && printf "acme/m1\\nacme/$ACME_EXTRA\\n"\n', { mode: 0o755 });
      const models = {
        cli: 'acme',
        args: ['models'],
        id: /^acme\/\S+$/,
        format: 'acme/model',
        env: (env: Record<string, string>) => ({ ...env, ACME_EXTRA: 'm2' }),
      };
      const make = (check?: boolean) =>
        defineProvider({ ...base, transcript: { read: () => ({ status: 'missing' }) }, models: { ...models, ...(check === undefined ? {} : { check }) } });
      const spawn = { spawn: { env: {}, unattended: false, model: 'no-slash' } } as never;
      expect(() => make().doValidate?.(spawn)).toThrow(UsageError);
      const options = launchIn(dir, bin, process.env.PATH ?? '');
      expect((await make().doBuildLaunch({ ...options, model: 'acme/m2' })).argv[0]).toBe(bin);
      await expect(make().doBuildLaunch({ ...options, model: 'acme/m3' })).rejects.toThrow(UsageError);
      expect((await make(false).doBuildLaunch({ ...options, model: 'acme/m3' })).argv[0]).toBe(bin);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('runs checkLaunch with the executable found, and a refusal refuses the launch', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'umbel-kit-check-'));
    try {
      const bin = join(dir, 'acme');
      await writeFile(bin, '#!/bin/sh\n', { mode: 0o755 });
      const seen: string[] = [];
      const provider = defineProvider({
        ...base,
        hooks: { ...base.hooks, install: () => ({}) },
        transcript: { read: () => ({ status: 'missing' }) },
        checkLaunch: async (binary, options) => {
          seen.push(binary);
          if (options.model === 'nope') throw new UsageError('unknown model nope');
        },
      });
      const options = launchIn(dir, bin);
      expect((await provider.doBuildLaunch(options)).argv[0]).toBe(bin);
      expect(seen).toEqual([bin]);
      await expect(provider.doBuildLaunch({ ...options, model: 'nope' })).rejects.toThrow(UsageError);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('defineProvider: a first prompt on the command line', () => {
  it('puts the prompt last, after everything else, where flags.prompt says; launchPrompt follows from the fact', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'umbel-kit-prompt-'));
    try {
      const bin = join(dir, 'acme');
      await writeFile(bin, '#!/bin/sh\n', { mode: 0o755 });
      const provider = defineProvider({
        ...base,
        flags: { allowedTools: '--allowed', prompt: (text) => ['--', text], extraArgs: ['--x'] },
        transcript: { read: () => ({ status: 'missing' }) },
      });
      expect(provider.capabilities.launchPrompt).toBe(true);
      const launch = await provider.doBuildLaunch({ ...launchIn(dir, bin), allowedTools: 'Read', prompt: '-v is a prompt' });
      expect(launch.argv).toEqual([bin, '--allowed', 'Read', '--x', '--', '-v is a prompt']);
      expect((await provider.doBuildLaunch(launchIn(dir, bin))).argv).toEqual([bin, '--x']);
      const without = defineProvider({ ...base, transcript: { read: () => ({ status: 'missing' }) } });
      expect(without.capabilities.launchPrompt).toBeUndefined();
      await expect(without.doBuildLaunch({ ...launchIn(dir, bin), prompt: 'hi' })).rejects.toThrow(/no flags\.prompt/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
