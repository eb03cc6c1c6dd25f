// Plugin host of the fake opencode: imports the same plugin modules the real one would load
// (every exported function is a factory), calls each factory with the same context keys
// (client, project, worktree, directory, experimental_workspace, serverUrl, $) and dispatches the
// same hooks and events (FACTS.md §b). The client is in-process, like the real one's: only the
// session calls umbel could use are implemented (session.messages / get / list / abort).
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';

/** Built-in plugin ids the real one announces with `plugin.added` (noise a provider must filter). */
export const BUILTIN_PLUGINS = ['core/config-reference', 'agent', 'command', 'skill', 'models-dev', 'anthropic', 'openai-compatible', 'openai'];

const quote = (v) => `'${String(v).replace(/'/g, `'\\''`)}'`;

/** A small stand-in for Bun.$: `await $\`cmd ${arg}\`` → {stdout, stderr, exitCode}; `.quiet()`, `.text()`. */
export function makeShell(cwd) {
  return (strings, ...values) => {
    const cmd = strings.reduce((acc, s, i) => acc + s + (i < values.length ? quote(values[i]) : ''), '');
    const run = () =>
      new Promise((resolve, reject) => {
        const child = spawn('sh', ['-c', cmd], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
        const out = [];
        const err = [];
        child.stdout.on('data', (d) => out.push(d));
        child.stderr.on('data', (d) => err.push(d));
        child.on('error', reject);
        child.on('close', (code) => {
          const r = { stdout: Buffer.concat(out), stderr: Buffer.concat(err), exitCode: code ?? 1 };
          if (code === 0) resolve(r);
          else reject(Object.assign(new Error(`command failed with exit code ${code}`), r));
        });
      });
    let promise;
    const lazy = () => {
      promise ??= run();
      return promise;
    };
    const p = {
      quiet: () => p,
      nothrow: () => p,
      text: async () => (await lazy()).stdout.toString(),
      // biome-ignore lint/suspicious/noThenProperty: Bun.$ results are thenables
      then: (a, b) => lazy().then(a, b),
      catch: (b) => lazy().catch(b),
    };
    return p;
  };
}

/** The in-process SDK client (v1 call style: `{path:{id}}` → `{data, error, response}`). */
function makeClient(sessions) {
  const ok = (data) => ({ data, error: undefined, response: { status: 200 } });
  const notFound = (id) => ({ data: undefined, error: { name: 'NotFoundError', data: { message: `Session not found: ${id}` } }, response: { status: 404 } });
  return {
    session: {
      async messages({ path }) {
        const doc = sessions.get(path?.id);
        return doc ? ok(structuredClone(doc.messages)) : notFound(path?.id);
      },
      async get({ path }) {
        const doc = sessions.get(path?.id);
        return doc ? ok(structuredClone(doc.info)) : notFound(path?.id);
      },
      async list() {
        return ok(sessions.list().map((d) => structuredClone(d.info)));
      },
      /** Stop the session's running turn, like Escape twice (verified on the real 1.18.33: `data: true`). */
      async abort({ path }) {
        return sessions.get(path?.id) ? ok(sessions.abort(path.id)) : notFound(path?.id);
      },
    },
  };
}

/**
 * Load the plugins. `sessions` = {get(id), list()} over the live session documents.
 * @returns {Promise<{emit(event): Promise<void>, trigger(name, input, output): Promise<void>, count: number}>}
 */
export async function loadPlugins(files, { directory, worktree, sessions, log }) {
  const ctx = {
    client: makeClient(sessions),
    project: { id: 'global', worktree, sandboxes: [], time: { created: Date.now(), updated: Date.now() } },
    worktree,
    directory,
    experimental_workspace: { register() {} },
    get serverUrl() {
      return new URL('http://localhost:4096');
    },
    $: makeShell(directory),
  };
  const hooks = [];
  for (const file of files) {
    if (file.endsWith('.ts')) {
      log(`WARN fake-opencode cannot load TypeScript plugin ${file}`);
      continue;
    }
    try {
      const mod = await import(pathToFileURL(file).href);
      for (const value of Object.values(mod)) {
        if (typeof value === 'function') hooks.push((await value(ctx, {})) ?? {});
        else if (value && typeof value.server === 'function') hooks.push((await value.server(ctx, {})) ?? {});
      }
    } catch (err) {
      log(`ERROR failed to load plugin ${file}: ${err?.stack ?? err}`);
    }
  }
  const safe = async (fn, what) => {
    try {
      await fn();
    } catch (err) {
      log(`ERROR plugin hook ${what} failed: ${err?.message ?? err}`);
    }
  };
  return {
    count: hooks.length,
    async emit(event) {
      for (const h of hooks) if (typeof h.event === 'function') await safe(() => h.event({ event }), `event ${event.type}`);
    },
    async trigger(name, input, output) {
      for (const h of hooks) if (typeof h[name] === 'function') await safe(() => h[name](input, output), name);
      return output;
    },
  };
}
