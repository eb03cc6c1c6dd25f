// Session storage of the fake opencode. The real one keeps sessions in SQLite
// ($XDG_DATA_HOME/opencode/opencode.db); the fake keeps one JSON file per session,
// $XDG_DATA_HOME/opencode/fake-sessions/<id>.json = exactly what `opencode export <id>` prints
// ({info, messages: [{info, parts}]}), written atomically. Readers must use `export` (or the
// plugin client), never these files.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { VERSION, paths } from './config.mjs';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** An id like opencode's: `<prefix>_` + 12 hex of time + 14 base62 (26 characters). */
export function newId(prefix) {
  const time = (Date.now() * 4096 + Math.floor(Math.random() * 4096)).toString(16).slice(-12).padStart(12, '0');
  const rand = [...randomBytes(14)].map((b) => ALPHABET[b % 62]).join('');
  return `${prefix}_${time}${rand}`;
}

function dir(env) {
  return join(paths(env).data, 'fake-sessions');
}

/** Write one session document atomically. */
export function saveSession(doc, env = process.env) {
  const d = dir(env);
  mkdirSync(d, { recursive: true });
  const db = join(paths(env).data, 'opencode.db');
  if (!existsSync(db)) writeFileSync(db, '');
  const file = join(d, `${doc.info.id}.json`);
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(doc, null, 2)}\n`);
  renameSync(tmp, file);
}

/** The stored session, or undefined. */
export function loadSession(id, env = process.env) {
  if (!/^ses_[A-Za-z0-9]+$/.test(id)) return undefined;
  try {
    return JSON.parse(readFileSync(join(dir(env), `${id}.json`), 'utf8'));
  } catch {
    return undefined;
  }
}

/** Every stored session's info, newest first. */
export function listSessions(env = process.env) {
  const d = dir(env);
  if (!existsSync(d)) return [];
  return readdirSync(d)
    .filter((f) => f.endsWith('.json'))
    .map((f) => loadSession(f.slice(0, -5), env)?.info)
    .filter(Boolean)
    .sort((a, b) => b.time.updated - a.time.updated);
}

/** A new session document (not yet saved). */
export function newSessionDoc({ directory, worktree, model, agent = 'build' }) {
  const now = Date.now();
  const id = newId('ses');
  const words = ['sunny', 'silent', 'mighty', 'proud', 'brave'];
  const nouns = ['canyon', 'rocket', 'planet', 'cabin', 'river'];
  const slug = `${words[now % 5]}-${nouns[Math.floor(now / 5) % 5]}`;
  return {
    info: {
      id,
      slug,
      version: VERSION,
      projectID: 'global',
      directory,
      path: directory.replace(/^\//, ''),
      title: `New session - ${new Date(now).toISOString()}`,
      agent,
      model: { id: model.modelID, providerID: model.providerID },
      cost: 0,
      tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
      time: { created: now, updated: now },
      ...(worktree !== '/' ? { worktree } : {}),
    },
    messages: [],
  };
}
