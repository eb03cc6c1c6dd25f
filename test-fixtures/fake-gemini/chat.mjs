// The chat recording of the fake `gemini` (reference gemini.md §5), in 0.61.0's JSONL format:
// header, `$set.messages` with the <session_context> message, one record per message (a record
// with the same id replaces the earlier one), `$set.lastUpdated` after each, and rewrites on
// cancel / rejection / API error that drop the aborted prompt.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';

function slugify(name) {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'project'
  );
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Register the project in `<gemini dir>/projects.json` under a lock directory, like the CLI.
 * A stale lock left by a killed process stalls the start (the real one waits ~12.8 s; the fake
 * waits FAKE_GEMINI_LOCK_STALL_MS, default 1500) and is then broken.
 */
export async function registerProject(dir, cwd, env = process.env) {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'projects.json');
  const lock = `${file}.lock`;
  const stall = Number(env.FAKE_GEMINI_LOCK_STALL_MS ?? 1500);
  const start = Date.now();
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() - start >= stall) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      await sleep(50);
    }
  }
  try {
    let data = { projects: {} };
    try {
      data = JSON.parse(readFileSync(file, 'utf8'));
    } catch {}
    data.projects ??= {};
    const root = resolve(cwd);
    let slug = data.projects[root];
    if (!slug) {
      const taken = new Set(Object.values(data.projects));
      const base = slugify(basename(root));
      slug = base;
      for (let n = 1; taken.has(slug) || markerOwnedByOther(dir, slug, root); n++) slug = `${base}-${n}`;
      data.projects[root] = slug;
      const tmp = `${file}.${randomUUID()}.tmp`;
      writeFileSync(tmp, JSON.stringify(data, null, 2));
      renameSync(tmp, file);
    }
    for (const sub of ['tmp', 'history']) {
      mkdirSync(join(dir, sub, slug), { recursive: true });
      writeFileSync(join(dir, sub, slug, '.project_root'), root);
    }
    return slug;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function markerOwnedByOther(dir, slug, root) {
  try {
    return readFileSync(join(dir, 'tmp', slug, '.project_root'), 'utf8') !== root;
  } catch {
    return false;
  }
}

const now = () => new Date().toISOString();
const hexId = () => randomBytes(16).toString('hex');

/** The <session_context> preamble the CLI puts first in every chat. */
export function sessionContext(cwd, projectTmp) {
  return `<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\nToday's date is ${new Date().toDateString()}.\nMy operating system is: ${process.platform}\nThe project's temporary directory is: ${projectTmp}\n- **Workspace Directories:**\n  - ${cwd}\n</session_context>`;
}

export class ChatRecording {
  /**
   * @param {{dir: string, slug: string, cwd: string, sessionId: string}} o
   */
  constructor(o) {
    this.cwd = o.cwd;
    this.sessionId = o.sessionId;
    this.projectTmp = join(o.dir, 'tmp', o.slug);
    const chats = join(this.projectTmp, 'chats');
    mkdirSync(chats, { recursive: true });
    const stamp = now().slice(0, 16).replace(/:/g, '-');
    this.path = join(chats, `session-${stamp}-${o.sessionId.slice(0, 8)}.jsonl`);
    this.messages = [];
    this.hadPrompt = false;
    const t = now();
    this.line({ sessionId: o.sessionId, projectHash: createHash('sha256').update(o.cwd).digest('hex'), startTime: t, lastUpdated: t, kind: 'main' });
    this.messages = [{ id: hexId(), timestamp: t, type: 'user', content: [{ text: sessionContext(o.cwd, this.projectTmp) }] }];
    this.line({ $set: { messages: this.messages } });
  }

  line(record) {
    appendFileSync(this.path, `${JSON.stringify(record)}\n`);
  }

  /** Append (or replace, same id) a message record. */
  put(message) {
    const i = this.messages.findIndex((m) => m.id === message.id);
    if (i === -1) this.messages.push(message);
    else this.messages[i] = message;
    this.line(message);
    this.line({ $set: { lastUpdated: now() } });
    return message;
  }

  user(content, displayContent) {
    this.hadPrompt = true;
    return this.put({ id: randomUUID(), timestamp: now(), type: 'user', content, ...(displayContent ? { displayContent } : {}) });
  }

  gemini(text, model, extra = {}) {
    const tokens = { input: 5, output: Math.max(1, Math.ceil(text.length / 4)), cached: 0, thoughts: 0, tool: 0, total: 0 };
    tokens.total = tokens.input + tokens.output;
    return this.put({ id: randomUUID(), timestamp: now(), type: 'gemini', content: text, thoughts: [], tokens, model, ...extra });
  }

  info(text) {
    return this.put({ id: randomUUID(), timestamp: now(), type: 'info', content: text });
  }

  error(text) {
    return this.put({ id: randomUUID(), timestamp: now(), type: 'error', content: text });
  }

  /**
   * Rewrite without the aborted prompt (`from` = the prompt message) and everything after it, and
   * without info/error messages. `regenerate` re-emits the kept messages under new ids first, with
   * the first prompt merged into the <session_context> message and gemini content as Part[]
   * (what 0.61.0 does after a rejected tool call).
   */
  rewriteDropping(from, { regenerate = false } = {}) {
    const cut = this.messages.findIndex((m) => m.id === from.id);
    let kept = (cut === -1 ? this.messages : this.messages.slice(0, cut)).filter((m) => m.type !== 'info' && m.type !== 'error');
    if (regenerate) {
      const t = now();
      const out = [];
      for (const m of kept) {
        let copy = { ...m, id: randomUUID(), timestamp: t };
        if (m.type === 'gemini') copy = { ...copy, content: typeof m.content === 'string' ? [{ text: m.content }] : m.content, tokens: null };
        if (m.type === 'gemini' && m.toolCalls) {
          copy.content = m.toolCalls.map((c) => ({ functionCall: { name: c.name, args: c.args, id: c.id } }));
          delete copy.toolCalls;
        }
        const prev = out.at(-1);
        if (prev && prev.type === 'user' && out.length === 1 && m.type === 'user' && Array.isArray(m.content) && !m.content.some((p) => p.functionResponse)) {
          prev.content = [...prev.content, ...m.content];
          continue;
        }
        out.push(copy);
      }
      for (const m of out) {
        this.line(m);
        this.line({ $set: { lastUpdated: t } });
      }
      kept = out;
    }
    this.messages = kept;
    this.line({ $set: { messages: this.messages, lastUpdated: now() } });
  }

  /** A session without a real prompt is deleted on exit. */
  finish() {
    if (!this.hadPrompt && existsSync(this.path)) rmSync(this.path, { force: true });
  }
}
