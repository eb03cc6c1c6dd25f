// Transcript JSONL writer. Reference: claude-code.md §4 (entry shapes, one entry per content block,
// the file is created lazily and lags the Stop hook) and §8 (transcript saving off).
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { uuid, VERSION } from './config.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Appends entries in order; writes may be delayed but never reordered. */
export class Transcript {
  /**
   * @param {{path: string, enabled: boolean, sessionId: string, cwd: string, entrypoint: string}} o
   */
  constructor(o) {
    this.path = o.path;
    this.enabled = o.enabled;
    this.sessionId = o.sessionId;
    this.cwd = o.cwd;
    this.entrypoint = o.entrypoint;
    this.parent = null;
    this.chain = Promise.resolve();
    this.messageCount = 0;
  }

  /** Switch to a new session (after `/clear`). */
  reset(sessionId, path) {
    this.sessionId = sessionId;
    this.path = path;
    this.parent = null;
    this.messageCount = 0;
  }

  /** Fields every conversation entry carries (§4). */
  base(extra = {}) {
    const id = uuid();
    const entry = {
      parentUuid: this.parent,
      isSidechain: false,
      userType: 'external',
      cwd: this.cwd,
      sessionId: this.sessionId,
      version: VERSION,
      gitBranch: 'HEAD',
      entrypoint: this.entrypoint,
      ...extra,
      uuid: id,
      timestamp: new Date().toISOString(),
    };
    this.parent = id;
    this.messageCount++;
    return entry;
  }

  /** Queue entries; `delayMs` postpones them (and everything queued after them). */
  write(entries, delayMs = 0) {
    const list = Array.isArray(entries) ? entries : [entries];
    const path = this.path;
    this.chain = this.chain.then(async () => {
      if (delayMs > 0) await sleep(delayMs);
      if (!this.enabled) return;
      try {
        mkdirSync(dirname(path), { recursive: true });
        appendFileSync(path, list.map((e) => `${JSON.stringify(e)}\n`).join(''));
      } catch {
        // like the real one: a failed append is not fatal
      }
    });
    return this.chain;
  }

  /** Wait for every queued write. */
  flush() {
    return this.chain;
  }

  /** Metadata lines written at the start of a turn. */
  metaLines(permissionMode, messageId) {
    const now = new Date().toISOString();
    return [
      { type: 'mode', mode: 'normal', sessionId: this.sessionId },
      { type: 'permission-mode', permissionMode, sessionId: this.sessionId },
      {
        type: 'file-history-snapshot',
        messageId,
        snapshot: { messageId, trackedFileBackups: {}, timestamp: now },
        isSnapshotUpdate: false,
      },
    ];
  }
}

/** Usage block of an assistant message. */
export function usage(inputText, outputText) {
  return {
    input_tokens: Math.max(1, Math.ceil(String(inputText).length / 4)),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: Math.max(1, Math.ceil(String(outputText).length / 4)),
    service_tier: 'standard',
  };
}

/** A random id in Anthropic style (`msg_…`, `req_…`, `toolu_…`). */
export function anthropicId(prefix) {
  return `${prefix}_01${uuid().replace(/-/g, '').slice(0, 22)}`;
}
