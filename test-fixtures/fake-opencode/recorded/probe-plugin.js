// research probe plugin: logs everything it sees to $PROBE_LOG (JSON lines)
import { appendFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
const LOG = process.env.PROBE_LOG;
const log = (kind, data) => {
  try {
    appendFileSync(LOG, JSON.stringify({ t: Date.now(), kind, data }) + '\n');
  } catch (e) {
    appendFileSync(LOG, JSON.stringify({ t: Date.now(), kind, error: String(e) }) + '\n');
  }
};
export const ProbePlugin = async (ctx, options) => {
  if (process.env.PROBE_DELETE_ENV) {
    log('delete-env', { before: process.env[process.env.PROBE_DELETE_ENV] ?? null });
    delete process.env[process.env.PROBE_DELETE_ENV];
  }
  const info = {
    keys: Object.keys(ctx),
    options,
    directory: ctx.directory,
    worktree: ctx.worktree,
    serverUrl: String(ctx.serverUrl),
    project: ctx.project,
    clientKeys: Object.keys(ctx.client ?? {}),
    sessionKeys: Object.keys(ctx.client?.session ?? {}),
    shell: typeof ctx.$,
    pid: process.pid,
    argv: process.argv,
    cwd: process.cwd(),
    envKeys: Object.keys(process.env).filter((k) => k.startsWith('OPENCODE') || k.startsWith('UMBEL') || k === 'PROBE_LOG'),
  };
  log('factory', info);
  if (process.env.PROBE_SHELL === '1') {
    try {
      const r = await ctx.$`echo shell-ok ${'a b'}`.quiet();
      log('shell', { stdout: r.stdout.toString(), exitCode: r.exitCode });
    } catch (e) {
      log('shell-error', String(e));
    }
  }
  const sink = process.env.PROBE_SINK;
  const toSink = (kind, payload) => {
    if (!sink) return;
    const r = spawnSync('sh', [sink, kind], { input: JSON.stringify(payload), encoding: 'utf8' });
    log('sink', { kind, status: r.status, stderr: r.stderr });
  };
  const fetchMessages = async (sessionID, tag) => {
    try {
      const r = await ctx.client.session.messages({ path: { id: sessionID } });
      log('client.messages', { tag, error: r.error ?? null, status: r.response?.status, data: r.data });
      if (process.env.PROBE_EXPORT_DIR) writeFileSync(`${process.env.PROBE_EXPORT_DIR}/${sessionID}-${Date.now()}.json`, JSON.stringify(r.data));
    } catch (e) {
      log('client.messages-error', { tag, error: String(e?.stack ?? e) });
    }
  };
  return {
    event: async ({ event }) => {
      log('event', event);
      toSink(`oc-${event.type.replace(/[^a-z]+/g, '-')}`.slice(0, 40), event);
      if (event.type === 'session.idle' && process.env.PROBE_FETCH === '1') await fetchMessages(event.properties.sessionID, 'idle-awaited');
    },
    'chat.message': async (input, output) => {
      log('chat.message', { input, output });
      for (const p of output.parts) {
        if (p.type === 'text' && p.text.includes('MODIFY-ME')) p.text = p.text.replace('MODIFY-ME', 'ECHO modified-by-plugin');
        if (p.type === 'text' && process.env.PROBE_STRIP_TRAILING === '1') p.text = p.text.replace(/ $/, '');
      }
    },
    'chat.params': async (input, output) => log('chat.params', { sessionID: input.sessionID, agent: input.agent, output }),
    'permission.ask': async (input, output) => log('permission.ask', { input, output }),
    'command.execute.before': async (input, output) => log('command.execute.before', { input, output }),
    'tool.execute.before': async (input, output) => log('tool.execute.before', { input, output }),
    'tool.execute.after': async (input, output) => log('tool.execute.after', { input, output }),
    'experimental.text.complete': async (input, output) => log('experimental.text.complete', { input, output }),
    'shell.env': async (input, output) => log('shell.env', { input, envKeys: Object.keys(output.env) }),
  };
};
