/**
 * umbel's opencode plugin: a plain ES module in the worker's own config dir
 * (`$OPENCODE_CONFIG_DIR/plugins/umbel.js`) that turns opencode's own signals into umbel hook events
 * and writes the worker's transcript from opencode's stored session (reference opencode.md,
 * test-fixtures/fake-opencode/FACTS.md §b, §c; verified on 1.18.33):
 *
 * | opencode signal | umbel hook kind |
 * |---|---|
 * | the factory ran (the plugin is loaded; before the TUI takes input) | `session` |
 * | `session.created` event | `session` (the session id and its transcript path) |
 * | `chat.message` hook (the prompt was submitted, before it is stored) | `prompt` (turn key = the user message id) |
 * | `tool.execute.before` hook | `tool` |
 * | `permission.asked` event | `permission` |
 * | `permission.replied` event | `tool` (answered) |
 * | `session.status` `retry` | `tool` (reported), and past `maxRetries` the turn is stopped: `stop-failure` |
 * | `session.error` event | `stop-failure` |
 * | `session.idle` event | `stop` |
 *
 * Exactly one terminal event per turn: a failed turn's two `session.idle`s end nothing more. The
 * transcript is `{info, messages, umbel}` — `info` and `messages` exactly as opencode's in-process
 * client returns them (the shape of `opencode export`), `umbel.failures` the turns umbel stopped —
 * fetched at the turn's end and after each tool step, written atomically (temp + rename, 0600) into
 * `transcriptDir/<sessionID>.json`, always **after** the turn's terminal event (so the engine never
 * ends a turn from the file alone while its hook is still on its way).
 *
 * {@link umbelPluginMain} is serialised into the plugin file with its settings: it must stay
 * self-contained: no reference to anything outside its own body, and no `import()` in it (a module
 * loader that transforms this package — vitest, a bundler — rewrites those, and the written file
 * would then call a helper that does not exist there). The node modules it needs come in as an
 * argument, from static imports at the top of the rendered file.
 */

import type * as ChildProcess from 'node:child_process';
import type * as Fs from 'node:fs';
import type * as Path from 'node:path';

/** The node modules the plugin uses, imported by the rendered file and passed in. */
export interface PluginModules {
  readonly fs: typeof Fs;
  readonly cp: typeof ChildProcess;
  readonly path: typeof Path;
}

/** What the plugin is told at launch (embedded in its file; no env value ever goes in here). */
export interface PluginSettings {
  /** opencode signal (`session.idle`, …) → the shell command that delivers its payload (stdin) as a hook event. */
  readonly hooks: Readonly<Record<string, string>>;
  /** Where the transcripts go (`<sessionID>.json`). */
  readonly transcriptDir: string;
  /** Retries of a failing model request opencode may make before umbel stops the turn. */
  readonly maxRetries: number;
  /** A retry opencode would start later than this (ms from now) stops the turn at once. */
  readonly maxRetryDelayMs: number;
  /** Variables umbel added for startup only (`npm_config_offline`): removed before any tool runs. */
  readonly dropEnv: readonly string[];
}

type Json = Record<string, unknown>;
type Client = {
  session: {
    messages(o: { path: { id: string } }): Promise<{ data?: unknown }>;
    get(o: { path: { id: string } }): Promise<{ data?: unknown }>;
    abort(o: { path: { id: string } }): Promise<unknown>;
  };
};
/** The part of opencode's plugin context the plugin uses. */
export interface PluginContext {
  readonly client: Client;
  readonly directory?: string;
  readonly worktree?: string;
}
/** The hooks the plugin returns to opencode. */
export interface PluginHooks {
  event(input: { event: { type: string; properties?: Json } }): Promise<void>;
  'chat.message'(input: Json, output: { message?: Json; parts?: unknown[] }): Promise<void>;
  'tool.execute.before'(input: Json, output: { args?: unknown }): Promise<void>;
}

/**
 * The plugin: called once per opencode instance with opencode's context and umbel's settings.
 * Self-contained (serialised into the plugin file).
 */
export async function umbelPluginMain(ctx: PluginContext, settings: PluginSettings, modules: PluginModules): Promise<PluginHooks> {
  const { fs, cp, path } = modules;
  for (const name of settings.dropEnv) delete process.env[name];

  // per session: the turns (user message ids) still open, oldest first; the failures umbel recorded; the turns ended
  type Session = { open: string[]; failures: Record<string, Json>; ended: string[] };
  const sessions = new Map<string, Session>();
  const sessionOf = (id: string): Session => sessions.get(id) ?? (sessions.set(id, { open: [], failures: {}, ended: [] }).get(id) as Session);
  const transcriptOf = (id: string) => path.join(settings.transcriptDir, `${id.replace(/[^A-Za-z0-9_-]/g, '_')}.json`);
  const deliver = (signal: string, payload: Json) => {
    const command = settings.hooks[signal];
    if (!command) return;
    try {
      cp.spawnSync('sh', ['-c', command], { input: JSON.stringify({ event: signal, ...payload }), stdio: ['pipe', 'ignore', 'ignore'], timeout: 10_000 });
    } catch {
      // the hook sink never fails; a missing sh loses one event, never opencode's turn
    }
  };
  /** The session as opencode stores it, or undefined. */
  const snapshot = async (id: string): Promise<Json | undefined> => {
    try {
      const [messages, info] = await Promise.all([
        ctx.client.session.messages({ path: { id } }),
        ctx.client.session.get({ path: { id } }).catch(() => undefined),
      ]);
      if (!Array.isArray(messages?.data)) return undefined;
      return { ...(info?.data ? { info: info.data } : {}), messages: messages.data };
    } catch {
      return undefined;
    }
  };
  const writeTranscript = (id: string, doc: Json | undefined) => {
    if (!doc) return;
    try {
      fs.mkdirSync(settings.transcriptDir, { recursive: true, mode: 0o700 });
      const file = transcriptOf(id);
      const tmp = `${file}.tmp-${process.pid}-${Date.now()}`;
      const { failures, ended } = sessionOf(id);
      fs.writeFileSync(tmp, JSON.stringify({ ...doc, umbel: { version: 1, failures, ended } }), { mode: 0o600 });
      fs.renameSync(tmp, file);
    } catch {
      // a full disk loses this copy; the next write brings it back
    }
  };
  const base = (id: string): Json => ({ sessionID: id, transcriptPath: transcriptOf(id) });

  /** End the oldest open turn with a failure: record it, deliver it, then write the transcript. */
  const fail = async (id: string, error: Json, signal: string) => {
    const s = sessionOf(id);
    const messageID = s.open.shift();
    if (!messageID) return;
    s.failures[messageID] = error;
    s.ended.push(messageID);
    const doc = await snapshot(id);
    deliver(signal, { ...base(id), messageID, error, message: error.message });
    writeTranscript(id, doc);
  };
  const onRetry = async (id: string, status: Json) => {
    const messageID = sessionOf(id).open[0];
    const attempt = Number(status.attempt ?? 0);
    const waitMs = Math.max(0, Number(status.next ?? 0) - Date.now());
    deliver('session.status.retry', { ...base(id), ...(messageID ? { messageID } : {}), status });
    if (!messageID || (attempt <= settings.maxRetries && waitMs <= settings.maxRetryDelayMs)) return;
    const why =
      attempt > settings.maxRetries ? `after ${attempt - 1} ${attempt === 2 ? 'retry' : 'retries'}` : `rather than wait ${Math.round(waitMs / 1000)}s`;
    const message = `${String(status.message ?? 'the model request failed')} (opencode was retrying, attempt ${attempt}; umbel stopped the turn ${why})`;
    await fail(id, { name: 'RetryLimit', message, attempt }, 'session.error');
    ctx.client.session.abort({ path: { id } }).catch(() => undefined);
  };
  const onIdle = async (id: string) => {
    const s = sessionOf(id);
    const ending = s.open.splice(0);
    s.ended.push(...ending);
    const doc = await snapshot(id);
    for (const messageID of ending) deliver('session.idle', { ...base(id), messageID });
    writeTranscript(id, doc);
  };
  const onEvent = async (type: string, p: Json) => {
    const id = typeof p.sessionID === 'string' ? p.sessionID : undefined;
    if (!id) return;
    if (type === 'session.idle') return onIdle(id);
    if (type === 'session.error') {
      const e = (p.error ?? {}) as { name?: string; data?: { message?: string; statusCode?: number } };
      if (e.name === 'MessageAbortedError') return;
      const error = {
        name: e.name ?? 'Error',
        message: e.data?.message ?? e.name ?? 'opencode reported an error',
        ...(e.data?.statusCode ? { statusCode: e.data.statusCode } : {}),
      };
      return fail(id, error, 'session.error');
    }
    if (type === 'session.status') {
      const status = (p.status ?? {}) as Json;
      if (status.type === 'retry') await onRetry(id, status);
      return;
    }
    if (type === 'session.created') return deliver('session.created', { ...base(id), directory: (p.info as Json | undefined)?.directory });
    if (type === 'permission.asked' || type === 'permission.replied') return deliver(type, { ...p, ...base(id) });
    if (type === 'message.updated') {
      const info = (p.info ?? {}) as { role?: string; finish?: string; time?: { completed?: number } };
      // a tool step ended: the transcript shows the call and its result (the turn runs on)
      if (info.role === 'assistant' && info.finish === 'tool-calls' && info.time?.completed && sessionOf(id).open.length)
        writeTranscript(id, await snapshot(id));
    }
  };

  const WANTED = new Set(['session.idle', 'session.error', 'session.status', 'session.created', 'permission.asked', 'permission.replied', 'message.updated']);
  let queue: Promise<unknown> = Promise.resolve();
  const serial = (fn: () => Promise<unknown>) => {
    queue = queue.then(fn, fn).catch(() => undefined);
    return queue;
  };
  deliver('plugin.loaded', { directory: ctx.directory, worktree: ctx.worktree });
  return {
    async event({ event }) {
      // opencode sends dozens of events per turn: drop the ones umbel does not use before doing anything
      if (!event || !WANTED.has(event.type)) return;
      await serial(() => onEvent(event.type, (event.properties ?? {}) as Json));
    },
    async 'chat.message'(input, output) {
      const id = typeof input.sessionID === 'string' ? input.sessionID : undefined;
      const messageID = typeof output?.message?.id === 'string' ? output.message.id : undefined;
      if (!id || !messageID) return;
      await serial(async () => {
        sessionOf(id).open.push(messageID);
        deliver('chat.message', { ...base(id), messageID, agent: input.agent, model: input.model });
      });
    },
    async 'tool.execute.before'(input, output) {
      const id = typeof input.sessionID === 'string' ? input.sessionID : undefined;
      if (!id) return;
      await serial(async () => deliver('tool.execute.before', { ...base(id), tool: input.tool, callID: input.callID, args: output?.args }));
    },
  };
}

/** The plugin file for one worker: the plugin with its settings. */
export function renderPlugin(settings: PluginSettings): string {
  return [
    '// umbel: written by @umbel/provider-opencode for one worker; removed with it. Do not edit.',
    "import * as fs from 'node:fs';",
    "import * as cp from 'node:child_process';",
    "import * as path from 'node:path';",
    `const settings = ${JSON.stringify(settings, null, 2)};`,
    `const umbelPluginMain = ${umbelPluginMain.toString()};`,
    'export const UmbelPlugin = async (ctx) => umbelPluginMain(ctx, settings, { fs, cp, path });',
    '',
  ].join('\n');
}
