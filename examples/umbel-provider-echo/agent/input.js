// The key parser of echo-agent: turns raw terminal bytes into events. Bracketed paste
// (ESC[200~ … ESC[201~) arrives as one `paste` event with its newlines kept, so a pasted
// multi-line prompt is never submitted line by line; Enter outside a paste submits.

const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';

/** How many characters at the end of `text` could begin `marker` (kept until more input comes). */
function partialSuffix(text, marker) {
  for (let n = Math.min(marker.length - 1, text.length); n > 0; n--) if (marker.startsWith(text.slice(-n))) return n;
  return 0;
}

const CONTROL = { '\r': 'enter', '\n': 'enter', '\x7f': 'backspace', '\b': 'backspace', '\x03': 'ctrl-c', '\x04': 'ctrl-d' };

/**
 * A feed function for stdin chunks; `onEvent` gets {type:'paste', text}, {type:'text', text}
 * or {type:'key', name} (enter, backspace, escape, ctrl-c, ctrl-d).
 * @param {(event: {type: string, text?: string, name?: string}) => void} onEvent
 */
export function createInputParser(onEvent) {
  let buffer = '';
  let pasting = false;
  let paste = '';
  return function feed(chunk) {
    buffer += chunk;
    while (buffer.length > 0) {
      if (pasting) {
        const end = buffer.indexOf(PASTE_END);
        if (end === -1) {
          const keep = partialSuffix(buffer, PASTE_END);
          paste += buffer.slice(0, buffer.length - keep);
          buffer = buffer.slice(buffer.length - keep);
          return;
        }
        paste += buffer.slice(0, end);
        buffer = buffer.slice(end + PASTE_END.length);
        pasting = false;
        onEvent({ type: 'paste', text: paste.replace(/\r\n?/g, '\n') });
        paste = '';
        continue;
      }
      if (buffer.startsWith(PASTE_START)) {
        buffer = buffer.slice(PASTE_START.length);
        pasting = true;
        continue;
      }
      if (buffer[0] === '\x1b') {
        if (buffer[1] !== '[') {
          onEvent({ type: 'key', name: 'escape' });
          buffer = buffer.slice(1);
          continue;
        }
        const csi = /^\x1b\[[0-9;?]*[@-~]/.exec(buffer);
        if (!csi) return; // a sequence (or the paste marker) cut between two chunks: wait for the rest
        buffer = buffer.slice(csi[0].length); // arrows and the like: ignored
        continue;
      }
      const char = String.fromCodePoint(buffer.codePointAt(0));
      buffer = buffer.slice(char.length);
      if (CONTROL[char]) onEvent({ type: 'key', name: CONTROL[char] });
      else if (char >= ' ') onEvent({ type: 'text', text: char });
    }
  };
}
