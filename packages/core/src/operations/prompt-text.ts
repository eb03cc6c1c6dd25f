/**
 * The one rule for the text umbel puts into a CLI's input box (every prompt and command, every
 * provider): it arrives as text and can never type keys. A terminal reads control characters as
 * keys and sequences — `ESC[201~` ends a bracketed paste early, so what follows it would run as
 * typed input (`!touch …`, `/exit`). So:
 * - every printable character, and the newline and tab, arrive byte-exact;
 * - a carriage return (alone or in CRLF) becomes a newline (a line break, as the paste gives it);
 * - every other C0 control character and DEL becomes its visible Unicode control picture
 *   (ESC → `␛` U+241B, NUL → `␀` U+2400, …, DEL → `␡` U+2421), so `ESC[201~` reads `␛[201~`;
 * - a C1 control character (U+0080–U+009F, e.g. the 8-bit CSI U+009B) becomes `�` U+FFFD.
 */

const CONTROL = /\r\n?|[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** The text as it is delivered into a CLI's input box (see the rule above). */
export function inputBoxText(text: string): string {
  return text.replace(CONTROL, (c) => {
    if (c[0] === '\r') return '\n';
    const code = c.charCodeAt(0);
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    if (code === 0x7f) return '\u2421';
    return '\ufffd';
  });
}
