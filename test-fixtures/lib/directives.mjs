// Shared reply script for the fake CLIs and the mock model servers, so one scenario reads the
// same on every tier. A reply is chosen from the user's real prompt text (wrappers removed).
//
//   ECHO <text>                 -> reply exactly <text> (may span lines)
//   DELAY <ms> <rest>           -> wait <ms>, then handle <rest>
//   TOOL <shell command>        -> call the CLI's shell tool with <command>; after the tool result
//                                  arrives, reply "TOOL-RESULT: <output, trimmed>"
//   FAIL <status> [xN] <msg>    -> answer with HTTP <status> and <msg>; with xN only the first N
//                                  attempts fail, then the rest of the line is answered as a prompt
//   LONG <n>                    -> reply with <n> characters ("abcdefghij" repeated, then cut)
//   anything else               -> "MOCK-REPLY: <prompt>" (prompts over 200 chars:
//                                  "MOCK-REPLY: len=<n> sha256=<first 16 hex>")
import { createHash } from 'node:crypto';

/** Summary used for long prompts, so tests can prove byte-exact delivery from the answer alone. */
export function digest(text) {
  const buf = Buffer.from(text, 'utf8');
  return `len=${[...text].length} sha256=${createHash('sha256').update(buf).digest('hex').slice(0, 16)}`;
}

/**
 * Parse a prompt into a plan.
 * @returns {{kind:'text', text:string, delayMs:number}
 *   | {kind:'tool', command:string, delayMs:number}
 *   | {kind:'error', status:number, message:string, times:number, rest:string, delayMs:number}}
 */
export function plan(prompt, delayMs = 0) {
  let m;
  if ((m = /^DELAY (\d+) ([\s\S]*)$/.exec(prompt))) return plan(m[2], delayMs + Number(m[1]));
  if ((m = /^ECHO ([\s\S]*)$/.exec(prompt))) return { kind: 'text', text: m[1], delayMs };
  if ((m = /^TOOL ([\s\S]+)$/.exec(prompt))) return { kind: 'tool', command: m[1].trim(), delayMs };
  if ((m = /^FAIL (\d{3})(?: x(\d+))?(?: ([\s\S]*))?$/.exec(prompt))) {
    return {
      kind: 'error',
      status: Number(m[1]),
      times: m[2] ? Number(m[2]) : Infinity,
      message: (m[3] ?? 'mock failure').trim() || 'mock failure',
      rest: (m[3] ?? '').trim(),
      delayMs,
    };
  }
  if ((m = /^LONG (\d+)\s*$/.exec(prompt))) {
    const n = Number(m[1]);
    return { kind: 'text', text: 'abcdefghij'.repeat(Math.ceil(n / 10)).slice(0, n), delayMs };
  }
  const text = [...prompt].length > 200 ? `MOCK-REPLY: ${digest(prompt)}` : `MOCK-REPLY: ${prompt}`;
  return { kind: 'text', text, delayMs };
}

/** Reply after a shell tool ran. */
export function toolResultReply(output) {
  const out = String(output ?? '').trim();
  return `TOOL-RESULT: ${out === '' ? '(empty)' : out}`;
}
