/**
 * A mock provider for tests: the facts of an imaginary CLI ("mock-cli") that the in-memory
 * substrate of ./memory-substrate.ts plays. Records every call, like vercel/ai's MockLanguageModel.
 */
import { join } from 'node:path';
import type {
  HookEvent,
  ProviderV1,
  ProviderV1AccountError,
  ProviderV1BackgroundTask,
  ProviderV1EventInfo,
  ProviderV1LaunchOptions,
  ProviderV1Quota,
  ProviderV1ReadTurnOptions,
  ProviderV1StartupState,
  ProviderV1ToolCall,
  ProviderV1ToolUse,
  ProviderV1TurnRead,
} from '@umbel/provider';
import { PROVIDER_SPEC_V1 } from '@umbel/provider';

/** One line of the mock transcript (JSONL). */
export type MockTranscriptLine =
  | { type: 'user'; key: string; text: string; meta?: boolean }
  | { type: 'assistant'; key: string; text: string }
  | { type: 'tool'; key: string; name: string; id?: string; input?: unknown }
  | { type: 'tool-result'; key: string; id: string; content: string; isError?: boolean }
  | { type: 'end'; key: string }
  | { type: 'quota'; key: string; quota: ProviderV1Quota }
  | { type: 'error'; key: string; message: string; account?: ProviderV1AccountError };

/** Read one turn of a mock transcript. Pure. */
export function readMockTurn(options: ProviderV1ReadTurnOptions): ProviderV1TurnRead {
  const lines: MockTranscriptLine[] = [];
  for (const raw of options.content.split('\n')) {
    try {
      if (raw.trim()) lines.push(JSON.parse(raw) as MockTranscriptLine);
    } catch {
      // partial line
    }
  }
  const users = lines.filter((l) => l.type === 'user');
  // a prompt the CLI wrote itself (an automatic continue) is not one umbel sent: no ordinal
  const key = options.turnKey ?? users.filter((u) => u.type === 'user' && !u.meta)[options.ordinal - 1]?.key;
  if (!key || !users.some((u) => u.key === key)) return { status: 'missing' };
  const mine = lines.filter((l) => l.key === key);
  const usage = mine.findLast((l) => l.type === 'quota');
  const quota = usage?.type === 'quota' ? { quota: usage.quota } : {};
  const error = mine.find((l) => l.type === 'error');
  if (error?.type === 'error') return { status: 'failed', message: error.message, ...(error.account ? { account: error.account } : {}), ...quota };
  const answer = mine
    .filter((l) => l.type === 'assistant')
    .map((l) => (l.type === 'assistant' ? l.text : ''))
    .pop();
  if (mine.some((l) => l.type === 'end') && answer !== undefined) return { status: 'completed', answer, numTurns: 1, ...quota };
  const tool = [...mine].reverse().find((l) => l.type === 'tool');
  return { status: 'running', ...(tool?.type === 'tool' ? { activity: tool.name } : {}) };
}

/** What a mock-cli tool call does (its tools are named like Claude Code's). Pure. */
export function classifyMockTool(call: ProviderV1ToolCall): ProviderV1ToolUse {
  const input = (call.input ?? {}) as Record<string, unknown>;
  const path = typeof input.file_path === 'string' ? [input.file_path] : [];
  if (call.name === 'Read') return { read: path };
  if (call.name === 'Write') return { written: path };
  if (call.name === 'Edit') return { edited: path };
  if (call.name === 'Bash' && typeof input.command === 'string') return { command: input.command };
  return {};
}

/** Settings of the mock provider. */
export interface MockProviderSettings {
  readonly providerId?: string;
  readonly inheritEnv?: readonly string[];
  readonly unattended?: boolean;
  /** Whether it declares `--model` support (default true). */
  readonly model?: boolean;
  /** Declare that the CLI drops input typed while a turn runs (`input.whileBusy: 'drop'`; play it with MOCK_CLI_DROP_WHILE_BUSY=1). */
  readonly dropsInputWhileBusy?: boolean;
  /** Declare that the CLI may take input typed while a turn runs into that turn (`input.whileBusy: 'merge'`). */
  readonly mergesInputWhileBusy?: boolean;
  /** Declare that it resumes a conversation (`capabilities.resume`; the launch gets `--resume <id>`). */
  readonly resume?: boolean;
  /** Declare that every prompt the CLI takes fires its prompt hook (`promptHook: 'every-prompt'`; a SELFTURN turn fires none). */
  readonly everyPromptHooked?: boolean;
  /** Declare that it starts on a prompt on its command line (`capabilities.launchPrompt`; the launch ends with `-- <prompt>`). */
  readonly launchPrompt?: boolean;
}

/** A ProviderV1 for the memory substrate's mock CLI, with a call log. */
export interface MockProvider extends ProviderV1 {
  readonly calls: { method: string; args: unknown }[];
}

/** Create the mock provider. */
export function createMockProvider(settings: MockProviderSettings = {}): MockProvider {
  const calls: { method: string; args: unknown }[] = [];
  return {
    specificationVersion: PROVIDER_SPEC_V1,
    providerId: settings.providerId ?? 'mock',
    displayName: 'Mock CLI',
    capabilities: {
      unattended: settings.unattended ?? true,
      allowedTools: false,
      appendSystemPrompt: false,
      permissionModes: ['default', 'bypass'],
      model: settings.model ?? true,
      ...(settings.resume ? { resume: true } : {}),
      ...(settings.launchPrompt ? { launchPrompt: true } : {}),
    },
    inheritEnv: settings.inheritEnv ?? ['MOCK_API_KEY'],
    ...(settings.everyPromptHooked ? { promptHook: 'every-prompt' as const } : {}),
    input: {
      confirmTimeoutMs: 400,
      maxSubmitRetries: 2,
      clearKeys: ['C-u'],
      ...(settings.dropsInputWhileBusy ? { whileBusy: 'drop' as const } : settings.mergesInputWhileBusy ? { whileBusy: 'merge' as const } : {}),
    },
    calls,
    async doBuildLaunch(options: ProviderV1LaunchOptions) {
      calls.push({ method: 'doBuildLaunch', args: { ...options, hookCommand: undefined } });
      const transcriptPath = join(options.workerDir, 'transcript.jsonl');
      const hooks = {
        session: options.hookCommand('session'),
        prompt: options.hookCommand('prompt'),
        stop: options.hookCommand('stop'),
        'stop-failure': options.hookCommand('stop-failure'),
        permission: options.hookCommand('permission'),
        notify: options.hookCommand('notify'),
      };
      return {
        argv: [
          'mock-cli',
          '--transcript',
          transcriptPath,
          ...(options.unattended ? ['--yolo'] : []),
          ...(options.model ? ['--model', options.model] : []),
          ...(options.resume ? ['--resume', options.resume.sessionId] : []),
          ...(options.prompt !== undefined ? ['--', options.prompt] : []),
        ],
        env: { MOCK_CLI_HOOKS: JSON.stringify(hooks) },
        files: [{ path: join(options.workerDir, 'mock-settings.json'), content: JSON.stringify({ hooks }) }],
        sessionId: options.sessionId,
        transcriptPath,
      };
    },
    doDetectStartup({ screen, events }): ProviderV1StartupState {
      calls.push({ method: 'doDetectStartup', args: { screen } });
      if (/Please sign in/.test(screen)) return { state: 'sign-in', line: 'Please sign in' };
      if (/FATAL: (.*)/.test(screen)) return { state: 'fatal', message: /FATAL: (.*)/.exec(screen)?.[1] ?? 'fatal' };
      if (/Trust this folder\? \[y\/N\]/.test(screen)) return { state: 'dialog', id: 'trust', keys: ['y'] };
      if (/^mock> /m.test(screen) && events.some((e) => e.kind === 'session')) return { state: 'ready' };
      return { state: 'starting' };
    },
    // mock-cli runs `/x` and `!x` as its own commands; a leading space makes them text.
    doPreparePrompt(prompt) {
      return prompt.startsWith('/') || prompt.startsWith('!') ? ` ${prompt}` : prompt;
    },
    doParseEvent(event: HookEvent): ProviderV1EventInfo {
      const p = (event.payload ?? {}) as Record<string, unknown>;
      const info: { -readonly [K in keyof ProviderV1EventInfo]: ProviderV1EventInfo[K] } = {};
      if (typeof p.session_id === 'string') info.sessionId = p.session_id;
      if (typeof p.transcript_path === 'string') info.transcriptPath = p.transcript_path;
      if (typeof p.key === 'string') info.turnKey = p.key;
      if (event.kind === 'permission')
        info.needsInput = {
          kind: 'permission',
          tool: typeof p.tool === 'string' ? p.tool : undefined,
          message: typeof p.message === 'string' ? p.message : undefined,
        };
      if (event.kind === 'stop-failure') info.error = String(p.error ?? 'error');
      if (event.kind === 'stop-failure' && p.account && typeof p.account === 'object') info.account = p.account as ProviderV1AccountError;
      if (event.kind === 'stop' && typeof p.last === 'string') info.lastMessage = p.last;
      if (event.kind === 'stop' && Array.isArray(p.background)) info.background = p.background as ProviderV1BackgroundTask[];
      if (event.kind === 'tool' && typeof p.tool === 'string') info.activity = p.tool;
      if (p.quota && typeof p.quota === 'object') info.quota = p.quota as ProviderV1Quota;
      if (event.kind === 'notify' && p.resume === true) info.autoContinue = true;
      return info;
    },
    doReadTurn: readMockTurn,
    doReadMessages(options) {
      const out: { type: 'assistant' | 'user'; message: unknown }[] = [];
      const key = options.turnKey;
      for (const raw of options.content.split('\n')) {
        try {
          const line = JSON.parse(raw) as MockTranscriptLine;
          if (key && line.key !== key) continue;
          if (line.type === 'assistant') out.push({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: line.text }] } });
          if (line.type === 'tool' && line.id !== undefined) {
            out.push({
              type: 'assistant',
              message: { role: 'assistant', content: [{ type: 'tool_use', id: line.id, name: line.name, input: line.input ?? {} }] },
            });
          }
          if (line.type === 'tool-result') {
            const block = { type: 'tool_result', tool_use_id: line.id, content: line.content, ...(line.isError ? { is_error: true } : {}) };
            out.push({ type: 'user', message: { role: 'user', content: [block] } });
          }
        } catch {
          // partial
        }
      }
      return out;
    },
    doDetectAccountScreen(screen) {
      return /^Usage limit reached\. What now\?/m.test(screen) ? { kind: 'rate-limited', message: 'Usage limit reached. What now?' } : undefined;
    },
    doDetectSignIn(screen) {
      return /Please sign in/.test(screen) ? 'Please sign in' : undefined;
    },
    doReadInputBox(screen) {
      const line = screen.split('\n').findLast((l) => l.startsWith('mock> '));
      return line === undefined ? undefined : line.slice('mock> '.length);
    },
    doDetectInputPrompt(screen) {
      return /Allow \S+\? 1\. Yes/.test(screen);
    },
    doClassifyTool: classifyMockTool,
  };
}
