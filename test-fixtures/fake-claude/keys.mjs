// Terminal input decoding for the fake TUI: raw-mode bytes → key events. Handles bracketed paste
// (`ESC[200~ … ESC[201~`, possibly split across reads), CSI/SS3 keys and a lone ESC (after a short pause).
// Reference: claude-code.md §5 (LF inserts a newline, CR submits, pastes are taken verbatim).

const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';

/**
 * @typedef {{type:'text', text:string} | {type:'paste', text:string} | {type:'key', name:string}} KeyEvent
 */

/** Incremental decoder. `onEvent` receives KeyEvents in order. */
export class KeyDecoder {
  /** @param {(e: KeyEvent) => void} onEvent */
  constructor(onEvent) {
    this.onEvent = onEvent;
    this.buf = '';
    this.paste = null;
    this.escTimer = null;
  }

  /** Feed decoded text from stdin. */
  feed(str) {
    if (this.escTimer) {
      clearTimeout(this.escTimer);
      this.escTimer = null;
    }
    this.buf += str;
    this.drain();
  }

  drain() {
    let text = '';
    const flushText = () => {
      if (text) this.onEvent({ type: 'text', text });
      text = '';
    };
    while (this.buf.length > 0) {
      if (this.paste !== null) {
        const end = this.buf.indexOf(PASTE_END);
        if (end < 0) {
          // keep a possible partial end marker
          const keep = Math.min(this.buf.length, PASTE_END.length - 1);
          this.paste += this.buf.slice(0, this.buf.length - keep);
          this.buf = this.buf.slice(this.buf.length - keep);
          return;
        }
        this.paste += this.buf.slice(0, end);
        this.buf = this.buf.slice(end + PASTE_END.length);
        const p = this.paste;
        this.paste = null;
        this.onEvent({ type: 'paste', text: p });
        continue;
      }
      const ch = this.buf[0];
      if (ch === '\x1b') {
        flushText();
        if (this.buf.length === 1) {
          // lone ESC: a key unless more bytes follow at once
          this.escTimer = setTimeout(() => {
            this.escTimer = null;
            if (this.buf === '\x1b') {
              this.buf = '';
              this.onEvent({ type: 'key', name: 'escape' });
            }
          }, 40);
          return;
        }
        const next = this.buf[1];
        if (next === '[') {
          if (PASTE_START.startsWith(this.buf) && this.buf.length < PASTE_START.length) return; // partial
          if (this.buf.startsWith(PASTE_START)) {
            this.buf = this.buf.slice(PASTE_START.length);
            this.paste = '';
            continue;
          }
          const m = /^\x1b\[([0-9;?]*)([ -/]*)([@-~])/.exec(this.buf);
          if (!m) {
            if (/^\x1b\[[0-9;?]*[ -/]*$/.test(this.buf)) return; // incomplete
            this.buf = this.buf.slice(2);
            continue;
          }
          this.buf = this.buf.slice(m[0].length);
          const names = { A: 'up', B: 'down', C: 'right', D: 'left', Z: 'shift-tab', H: 'home', F: 'end' };
          if (m[3] === '~') {
            const tilde = { 3: 'delete', 1: 'home', 4: 'end', 7: 'home', 8: 'end' };
            const n = tilde[m[1]];
            if (n) this.onEvent({ type: 'key', name: n });
          } else if (names[m[3]]) this.onEvent({ type: 'key', name: names[m[3]] });
          continue;
        }
        if (next === 'O') {
          if (this.buf.length < 3) return;
          const names = { A: 'up', B: 'down', C: 'right', D: 'left', H: 'home', F: 'end' };
          const n = names[this.buf[2]];
          this.buf = this.buf.slice(3);
          if (n) this.onEvent({ type: 'key', name: n });
          continue;
        }
        if (next === '\r') {
          this.buf = this.buf.slice(2);
          this.onEvent({ type: 'key', name: 'meta-enter' });
          continue;
        }
        // ESC ESC, or ESC + char: an Escape key, then the rest
        this.buf = this.buf.slice(1);
        this.onEvent({ type: 'key', name: 'escape' });
        continue;
      }
      this.buf = this.buf.slice(1);
      const control = {
        '\r': 'enter',
        '\n': 'newline',
        '\t': 'tab',
        '\x7f': 'backspace',
        '\b': 'backspace',
        '\x03': 'ctrl-c',
        '\x04': 'ctrl-d',
        '\x15': 'ctrl-u',
        '\x0c': 'ctrl-l',
        '\x01': 'home',
        '\x05': 'end',
      };
      if (control[ch]) {
        flushText();
        this.onEvent({ type: 'key', name: control[ch] });
      } else if (ch < ' ') {
        flushText();
      } else {
        text += ch;
      }
    }
    flushText();
  }
}
