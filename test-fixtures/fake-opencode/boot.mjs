// Startup shared by the fake opencode's TUI and `run`: config, the plugin-install trap, plugins,
// the model, the engine (FACTS.md §a, §b).
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { configuredModels, loadConfig, paths } from './config.mjs';
import { Engine } from './engine.mjs';
import { BUILTIN_PLUGINS, loadPlugins } from './plugins.mjs';
import { listSessions, loadSession } from './store.mjs';

/** Append one line to opencode's log file ($XDG_DATA_HOME/opencode/log/opencode.log). */
export function logger(env) {
  const dir = join(paths(env).data, 'log');
  return (msg) => {
    try {
      mkdirSync(dir, { recursive: true });
      appendFileSync(
        join(dir, 'opencode.log'),
        `timestamp=${new Date().toISOString()} ${msg.startsWith('WARN') || msg.startsWith('ERROR') ? `level=${msg.split(' ')[0]}` : 'level=INFO'} message=${JSON.stringify(msg.replace(/^(WARN|ERROR) /, ''))}\n`,
      );
    } catch {}
  };
}

/** The plugin-install trap: every config dir that needs an install stalls plugin loading. */
async function installTrap(loaded, env, log) {
  if (loaded.plugins.length === 0 || loaded.installDirs.length === 0) return;
  const offline = /^(true|1)$/i.test(env.npm_config_offline ?? env.NPM_CONFIG_OFFLINE ?? '');
  const ms = offline ? 0 : Number(env.FAKE_OPENCODE_INSTALL_STALL_MS ?? 65000);
  await new Promise((r) => setTimeout(r, ms));
  for (const dir of loaded.installDirs) {
    const cause = offline
      ? "request to https://registry.npmjs.org/@opencode-ai%2fplugin failed: cache mode is 'only-if-cached' but no cached response is available."
      : 'FetchError: request to https://registry.npmjs.org/@opencode-ai%2fplugin failed, reason: ECONNREFUSED';
    log(`WARN background dependency install failed dir=${dir} error=${cause}`);
  }
}

/** Resolve the model: {ok, model} or {ok:false}. */
export function resolveModel(config, wanted) {
  const models = configuredModels(config);
  const pick = (id) => models.find((m) => m.id === id);
  if (wanted) {
    const m = pick(wanted);
    return m ? { ok: true, model: m } : { ok: false, fallback: pick(config.model) ?? models[0] };
  }
  const m = pick(config.model) ?? models[0];
  return m ? { ok: true, model: m } : { ok: false };
}

/**
 * `--session <ses_…>` (`-s`): continue that stored session, its earlier turns sent to the model again
 * (the real 1.18.33: test-fixtures/real/REVIVE-FACTS.md §3). An unknown id exits 1 (the fake's own
 * wording; the real one's was not recorded).
 */
function continueSession(engine, id, env) {
  if (id === undefined) return;
  const doc = loadSession(id, env);
  if (!doc) {
    process.stderr.write(`Error: session not found: ${id}\n`);
    process.exit(1);
  }
  engine.doc = doc;
}

/** Shared start of the TUI and `run`: config, install trap, plugins, engine. */
export async function boot({ cwd, env, flags, log, ui = {} }) {
  log(`creating instance directory=${cwd}`);
  const loaded = loadConfig(cwd, env);
  await installTrap(loaded, env, log);
  const sessions = new Map();
  let engine;
  const live = {
    get: (id) => (engine?.doc?.info.id === id ? engine.doc : (sessions.get(id) ?? loadSession(id, env))),
    list: () => listSessions(env).map((i) => live.get(i.id)),
    abort: (id) => {
      if (engine?.doc?.info.id === id && engine.busy) engine.interrupt();
      return true;
    },
  };
  const plugins =
    env.OPENCODE_PURE || flags['--pure']
      ? { emit: async () => {}, trigger: async (_n, _i, o) => o, count: 0 }
      : await loadPlugins(loaded.plugins, { directory: cwd, worktree: loaded.worktree, sessions: live, log });
  for (const id of BUILTIN_PLUGINS) await plugins.emit({ id: `evt_builtin_${id}`, type: 'plugin.added', properties: { id } });
  const chosen = resolveModel(loaded.config, flags['--model']);
  const model = chosen.model ?? chosen.fallback;
  engine = model ? new Engine({ cwd, env, config: loaded.config, worktree: loaded.worktree, model, plugins, ...ui }) : undefined;
  if (engine) continueSession(engine, flags['--session'] ?? flags['-s'], env);
  return { loaded, engine, chosen, model };
}
