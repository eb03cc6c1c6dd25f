/**
 * A plugin that runs INSIDE the CLI (a CLI that loads a JS module of the user's, as opencode does)
 * and reports its signals to umbel. The plugin file is rendered from source: a self-contained class
 * and {@link pluginRuntime} are serialised into it (`toString()`), so neither may reference anything
 * outside its own body; node's modules come in from static imports at the top of the file.
 */
import type * as ChildProcess from 'node:child_process';
import type * as Fs from 'node:fs';

/** The node modules the rendered file imports and hands in (the plugin itself imports nothing). */
export interface PluginNode {
  readonly fs: typeof Fs;
  readonly cp: typeof ChildProcess;
}

/** What every plugin's settings hold (embedded in its file: no env value ever goes in here). */
export interface PluginHookSettings {
  /** A signal of the CLI's (`session.idle`, …) → the shell command that delivers its payload (stdin) as a hook event. */
  readonly hooks: Readonly<Record<string, string>>;
  /** How long one hook command may run before it is killed (ms; default 10 s). */
  readonly hookTimeoutMs?: number;
  /** Variables umbel set for the CLI's startup only (`npm_config_offline`): removed from its process env when the plugin loads, before any tool runs. */
  readonly dropEnv?: readonly string[];
}

/** What a plugin gets beside the CLI's context and its settings: node's modules and the plumbing every such plugin needs. */
export interface PluginRuntime extends PluginNode {
  /**
   * Run `signal`'s hook command (`sh -c`, ≤ `hookTimeoutMs`) with `{event: signal, ...payload}` as
   * JSON on stdin; resolves once it exited, never rejects. The CLI's thread stays free meanwhile (it
   * draws its screen; a spawnSync froze it for every hook, long on a loaded machine). No hook, or a
   * failure, loses this one event, never the CLI's turn.
   */
  deliver(signal: string, payload: Readonly<Record<string, unknown>>): Promise<void>;
  /** Write `text` to the absolute path `file` atomically and privately (temp + rename, 0600, its dir 0700); a failure (a full disk) loses this write. */
  writePrivate(file: string, text: string): void;
  /** Run `fn` after every earlier call's (failed or not): the CLI's signals handled one at a time, in order. */
  serial(fn: () => Promise<unknown>): Promise<unknown>;
}

/** The runtime of one plugin instance, made as it loads (the settings' `dropEnv` removed then). Serialised into the plugin file: self-contained. */
export function pluginRuntime(node: PluginNode, settings: PluginHookSettings): PluginRuntime {
  for (const name of settings.dropEnv ?? []) delete process.env[name];
  let queue: Promise<unknown> = Promise.resolve();
  return {
    ...node,
    deliver(signal, payload) {
      const command = settings.hooks[signal];
      if (!command) return Promise.resolve();
      return new Promise<void>((resolve) => {
        try {
          const child = node.cp.spawn('sh', ['-c', command], { stdio: ['pipe', 'ignore', 'ignore'] });
          const timer = setTimeout(() => child.kill('SIGKILL'), settings.hookTimeoutMs ?? 10_000);
          const done = () => {
            clearTimeout(timer);
            resolve();
          };
          child.on('error', done);
          child.on('close', done);
          child.stdin?.on('error', () => undefined); // a hook that exits without reading its input
          child.stdin?.end(JSON.stringify({ event: signal, ...payload }));
        } catch {
          resolve();
        }
      });
    },
    writePrivate(file, text) {
      try {
        node.fs.mkdirSync(file.slice(0, file.lastIndexOf('/')) || '/', { recursive: true, mode: 0o700 });
        const tmp = `${file}.tmp-${process.pid}-${Date.now()}`;
        node.fs.writeFileSync(tmp, text, { mode: 0o600 });
        node.fs.renameSync(tmp, file);
      } catch {}
    },
    serial(fn) {
      queue = queue.then(fn, fn).catch(() => undefined);
      return queue;
    },
  };
}

/** What {@link renderPluginModule} writes into the plugin file. */
export interface PluginModuleFacts<S extends PluginHookSettings> {
  /** The file's first line (a comment): who wrote it, for what. */
  readonly header: string;
  /** The plugin: a self-contained class whose static `main(context, settings, runtime)` the exported factory calls. */
  readonly plugin: (abstract new () => unknown) & { main(context: never, settings: S, runtime: PluginRuntime): unknown };
  /** Embedded as JSON (never an env value: the file is on disk); its `hooks` and `dropEnv` are the runtime's. */
  readonly settings: S;
  /** The factory's export name (the CLI calls it with its one context argument, per plugin instance). */
  readonly exportName: string;
}

/** The plugin file: an ES module importing node's fs and child_process, its settings, the runtime, the plugin, one exported factory. Pure. */
export function renderPluginModule<S extends PluginHookSettings>(facts: PluginModuleFacts<S>): string {
  return [
    `// ${facts.header}`,
    "import * as fs from 'node:fs';",
    "import * as cp from 'node:child_process';",
    `const settings = ${JSON.stringify(facts.settings, null, 2)};`,
    `const pluginRuntime = ${pluginRuntime.toString()};`,
    `const Plugin = ${facts.plugin.toString()};`,
    `export const ${facts.exportName} = async (context) => Plugin.main(context, settings, pluginRuntime({ fs, cp }, settings));`,
    '',
  ].join('\n');
}
