/** umbel's opencode plugin, serialised into each worker's plugin file (opencode-FACTS.md: "The plugin": what it does, when, and why it is self-contained). */
import { type PluginHookSettings, type PluginRuntime, renderPluginModule } from '@umbel/provider';

/** What the plugin is told at launch (embedded in its file): the kit's hooks (by opencode signal) and startup-only variables, and: */
export interface PluginSettings extends PluginHookSettings {
  /** Where the transcripts go (`<sessionID>.json`). */
  readonly transcriptDir: string;
  /** Retries of a failing model request opencode may make before umbel stops the turn (as provider-error). */
  readonly maxRetries: number;
  /** A retry opencode would start later than this (ms from now) stops the turn at once. */
  readonly maxRetryDelayMs: number;
}

type Json = Record<string, unknown>;
type Call = (o: { path: { id: string } }) => Promise<{ data?: unknown }>;
/** The part of opencode's plugin context the plugin uses. */
export interface PluginContext {
  readonly client: { session: { messages: Call; get: Call; abort: Call } };
  readonly directory?: string;
  readonly worktree?: string;
}

/** Per session: the turns (user message ids) still open, oldest first; the failures umbel recorded; the turns ended; a child's parent. */
type Session = { open: string[]; failures: Record<string, Json>; ended: string[]; parent?: string };

/** The plugin of one opencode instance: its sessions, and a method per opencode event umbel uses (reached through `this` only). */
export class UmbelPluginRun {
  static EVENTS = ['chat.message', 'session.idle', 'session.error', 'session.status', 'session.created', 'message.updated'] as const;
  declare readonly ctx: PluginContext;
  declare readonly settings: PluginSettings;
  declare readonly runtime: PluginRuntime;
  readonly sessions = new Map<string, Session>();

  /** The plugin: called once per opencode instance with opencode's context and umbel's settings. */
  static async main(ctx: PluginContext, settings: PluginSettings, runtime: PluginRuntime) {
    const run = Object.assign(new UmbelPluginRun(), { ctx, settings, runtime });
    await runtime.deliver('plugin.loaded', { directory: ctx.directory, worktree: ctx.worktree });
    return run.hooks();
  }

  session(id: string): Session {
    return this.sessions.get(id) ?? (this.sessions.set(id, { open: [], failures: {}, ended: [] }).get(id) as Session);
  }

  /** What every payload of a session carries; a child session's (a subagent's, the `task` tool's) names its parent (BACKGROUND-FACTS.md §6). */
  base(id: string): Json {
    const { parent } = this.session(id);
    const transcriptPath = `${this.settings.transcriptDir}/${id.replace(/[^A-Za-z0-9_-]/g, '_')}.json`;
    return { sessionID: id, transcriptPath, ...(parent ? { parentSessionID: parent } : {}) };
  }

  /** The session as opencode stores it, or undefined. */
  async snapshot(id: string): Promise<Json | undefined> {
    const session = this.ctx.client.session;
    try {
      const [messages, info] = await Promise.all([session.messages({ path: { id } }), session.get({ path: { id } }).catch(() => undefined)]);
      return Array.isArray(messages?.data) ? { ...(info?.data ? { info: info.data } : {}), messages: messages.data } : undefined;
    } catch {
      return undefined;
    }
  }

  /** Write the transcript with umbel's record of its turns (those `ending` too), atomically (temp + rename, 0600); a full disk loses this copy, the next write brings it back. */
  writeTranscript(id: string, doc: Json | undefined, ending: readonly string[] = []): void {
    const { failures, ended } = this.session(id);
    const umbel = { version: 1, failures, ended, ...(ending.length ? { ending } : {}) };
    if (doc) this.runtime.writePrivate(this.base(id).transcriptPath as string, JSON.stringify({ ...doc, umbel }));
  }

  /**
   * End the first `count` open turns (a failure's recorded): the final copy written first, the turns
   * `ending` (a hook's delivery yields to opencode, which may stall: the answer is on disk when the stop
   * arrives, and read as the turn's only once it has), each delivered as `signal`, then the copy again.
   */
  async end(id: string, signal: string, count: number, error?: Json): Promise<void> {
    const s = this.session(id);
    const ending = s.open.splice(0, count);
    for (const messageID of ending) if (error) s.failures[messageID] = error;
    const doc = await this.snapshot(id);
    this.writeTranscript(id, doc, ending);
    for (const messageID of ending) await this.runtime.deliver(signal, { ...this.base(id), messageID, ...(error && { error, message: error.message }) });
    s.ended.push(...ending);
    this.writeTranscript(id, doc);
  }

  /** A prompt submitted (the `chat.message` hook): its turn opens. */
  async 'chat.message'(id: string, p: Json): Promise<void> {
    if (typeof p.messageID !== 'string') return;
    this.session(id).open.push(p.messageID);
    await this.runtime.deliver('chat.message', { ...this.base(id), messageID: p.messageID, agent: p.agent, model: p.model });
  }

  /** Every open turn ends. */
  async 'session.idle'(id: string): Promise<void> {
    await this.end(id, 'session.idle', Number.POSITIVE_INFINITY);
  }

  async 'session.error'(id: string, p: Json): Promise<void> {
    const e = (p.error ?? {}) as { name?: string; data?: { message?: string; statusCode?: number } };
    if (e.name === 'MessageAbortedError' || !this.session(id).open.length) return;
    const statusCode = e.data?.statusCode ? { statusCode: e.data.statusCode } : {};
    await this.end(id, 'session.error', 1, { name: e.name ?? 'Error', message: e.data?.message ?? e.name ?? 'opencode reported an error', ...statusCode });
  }

  /**
   * A retry past `maxRetries`, or one opencode would start too late, aborts the session as it arrives
   * (opencode retries on while earlier hooks run); the payload then says why (`umbelStop`).
   */
  stopOnRetry(id: string, p: Json): Json {
    const status = (p.status ?? {}) as Json;
    const attempt = Number(status.attempt ?? 0);
    const waitMs = Math.max(0, Number(status.next ?? 0) - Date.now());
    const late = waitMs > this.settings.maxRetryDelayMs ? `rather than wait ${Math.round(waitMs / 1000)}s` : undefined;
    const why = status.type !== 'retry' ? undefined : attempt > this.settings.maxRetries ? `after ${attempt - 1} ${attempt === 2 ? 'retry' : 'retries'}` : late;
    if (why) this.ctx.client.session.abort({ path: { id } }).catch(() => undefined);
    return why ? { ...p, umbelStop: why } : p;
  }

  /** A retry is reported; one that stops the turn (`umbelStop`: why, the session already aborted as it arrived) ends it as `RetryLimit`. */
  async 'session.status'(id: string, p: Json & { umbelStop?: string }): Promise<void> {
    const status = (p.status ?? {}) as Json;
    if (status.type !== 'retry') return;
    const messageID = this.session(id).open[0];
    await this.runtime.deliver('session.status.retry', { ...this.base(id), ...(messageID ? { messageID } : {}), status });
    if (!p.umbelStop || messageID === undefined) return;
    const message = `${String(status.message ?? 'the model request failed')} (opencode was retrying, attempt ${Number(status.attempt ?? 0)}; umbel stopped the turn ${p.umbelStop})`;
    await this.end(id, 'session.error', 1, { name: 'RetryLimit', message, attempt: Number(status.attempt ?? 0) });
  }

  async 'session.created'(id: string, p: Json): Promise<void> {
    const info = (p.info ?? {}) as Json;
    if (typeof info.parentID === 'string') this.session(id).parent = info.parentID;
    await this.runtime.deliver('session.created', { ...this.base(id), directory: info.directory });
  }

  /** A tool step that ended: the transcript shows the call and its result (the turn runs on). */
  async 'message.updated'(id: string, p: Json): Promise<void> {
    const info = (p.info ?? {}) as { role?: string; finish?: string; time?: { completed?: number } };
    if (info.role === 'assistant' && info.finish === 'tool-calls' && info.time?.completed && this.session(id).open.length)
      this.writeTranscript(id, await this.snapshot(id));
  }

  /** The hooks the plugin returns to opencode; its two own hooks are handled as events of the same names. */
  hooks() {
    const event = async ({ event }: { event: { type: string; properties?: Json } }) => {
      const type = event?.type as (typeof UmbelPluginRun.EVENTS)[number];
      const sent = (event?.properties ?? {}) as Json;
      const id = typeof sent.sessionID === 'string' ? sent.sessionID : undefined;
      if (!id) return;
      const p = type === 'session.status' ? this.stopOnRetry(id, sent) : sent; // at once: its hooks queue behind
      // one at a time, in order; an event umbel has a hook for and no method is delivered as sent, with the session's fields
      if (UmbelPluginRun.EVENTS.includes(type)) await this.runtime.serial(() => this[type](id, p));
      else if (this.settings.hooks[type]) await this.runtime.serial(() => this.runtime.deliver(type, { ...p, ...this.base(id) }));
    };
    return {
      event,
      'chat.message': (input: Json, output: { message?: Json; parts?: unknown[] }) =>
        event({ event: { type: 'chat.message', properties: { ...input, messageID: output?.message?.id } } }),
      'tool.execute.before': (input: Json, output: { args?: unknown }) =>
        event({ event: { type: 'tool.execute.before', properties: { ...input, args: output?.args } } }),
    };
  }
}

/** The plugin file for one worker: the plugin with its settings. */
export function renderPlugin(settings: PluginSettings): string {
  const header = 'umbel: written by @umbel/provider-opencode for one worker; removed with it. Do not edit.';
  return renderPluginModule({ header, plugin: UmbelPluginRun, settings, exportName: 'UmbelPlugin' });
}
