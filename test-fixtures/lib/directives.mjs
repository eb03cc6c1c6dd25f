// Shared reply script for the fake CLIs and the mock model servers, so one scenario reads the
// same on every tier. A reply is chosen from the user's real prompt text (wrappers removed).
//
//   ECHO <text>                 -> reply exactly <text> (may span lines)
//   DELAY <ms> <rest>           -> wait <ms>, then handle <rest>
//   TOOL <shell command>        -> call the CLI's shell tool with <command>; after the tool result
//                                  arrives, reply "TOOL-RESULT: <output, trimmed>"
//   BGTOOL <shell command>      -> like TOOL, but the call asks the CLI to run it in the background
//                                  (Claude's Bash `run_in_background: true`; others run it as TOOL)
//   BGAGENT <subagent prompt>   -> ask the CLI to start a subagent in the background with <subagent prompt>
//                                  (Claude's Agent tool, `run_in_background: true`; the subagent's own
//                                  requests carry <subagent prompt> and are answered by these directives,
//                                  so `BGAGENT DELAY 20000 ECHO done` keeps it running 20 s); after the
//                                  tool result: "TOOL-RESULT: <output>". A CLI without such a tool: text.
//   AGENT <subagent prompt>     -> like BGAGENT, but the subagent runs in the foreground of the turn
//                                  (`run_in_background: false`): the turn waits for it
//   FAIL <status> [xN] [opt=value …] <msg>
//                               -> answer with HTTP <status> and <msg>; with xN only the first N
//                                  attempts fail, then the rest of the line is answered as a prompt.
//                                  Account options (before the message, any order):
//                                    retry-after=<v>   a `retry-after: <v>` header (seconds or HTTP date)
//                                    reset=<s>         the vendor's rate-limit reset fields say "in <s> s"
//                                    limit=usage|weekly  a subscription plan's usage limit (5-hour /
//                                                      weekly window) rather than an API rate limit
//                                    type=<t>          the vendor's error type/code instead of the default
//   QUOTA <w>=<pct>[@<s>] … <rest>
//                               -> the model server reports plan usage from now on (windows 5h, 7d:
//                                  <pct> % used, resetting in <s> s, default the window's length),
//                                  then <rest> is handled
//   LONG <n>                    -> reply with <n> characters ("abcdefghij" repeated, then cut)
//   anything else               -> "MOCK-REPLY: <prompt>" (prompts over 200 chars:
//                                  "MOCK-REPLY: len=<n> sha256=<first 16 hex>")
import { createHash } from 'node:crypto';

/** Summary used for long prompts, so tests can prove byte-exact delivery from the answer alone. */
export function digest(text) {
  const buf = Buffer.from(text, 'utf8');
  return `len=${[...text].length} sha256=${createHash('sha256').update(buf).digest('hex').slice(0, 16)}`;
}

/** Option names `FAIL` accepts before its message, and the `account` key each one sets. */
const FAIL_OPTIONS = { 'retry-after': 'retryAfter', reset: 'resetSeconds', limit: 'limit', type: 'type' };

/** Valid values of each FAIL option (a word that does not fit ends the options: it is message text). */
const FAIL_VALUE = { retryAfter: /^\S+$/, resetSeconds: /^\d+(\.\d+)?$/, limit: /^(usage|weekly)$/, type: /^[A-Za-z0-9_.-]+$/ };

/** Split `opt=value` words (known names, valid values) off the start of a FAIL message. */
function failOptions(text) {
  /** @type {{retryAfter?: string, resetSeconds?: number, limit?: string, type?: string}} */
  const account = {};
  let rest = text;
  let m;
  while ((m = /^([a-z-]+)=(\S+)(?:\s+|$)/.exec(rest)) && Object.hasOwn(FAIL_OPTIONS, m[1]) && FAIL_VALUE[FAIL_OPTIONS[m[1]]].test(m[2])) {
    const key = FAIL_OPTIONS[m[1]];
    account[key] = key === 'resetSeconds' ? Number(m[2]) : m[2];
    rest = rest.slice(m[0].length);
  }
  return { account, rest };
}

/** Window lengths in seconds of the plan-usage windows QUOTA knows. */
export const QUOTA_WINDOWS = { '5h': 18_000, '7d': 604_800 };

/** Parse `5h=42@3600 7d=13` words off the start of a QUOTA line. */
function quotaWindows(text) {
  /** @type {Record<string, {percent: number, resetsInSeconds: number}>} */
  const quota = {};
  let rest = text;
  let m;
  while ((m = /^(5h|7d)=(\d+(?:\.\d+)?)(?:@(\d+))?(?:\s+|$)/.exec(rest))) {
    quota[m[1]] = { percent: Number(m[2]), resetsInSeconds: m[3] ? Number(m[3]) : QUOTA_WINDOWS[m[1]] };
    rest = rest.slice(m[0].length);
  }
  return { quota, rest };
}

/**
 * Parse a prompt into a plan. A `QUOTA` prefix adds `quota` (window → percent used, reset) to the
 * plan of the rest of the line.
 * @returns {({kind:'text', text:string, delayMs:number}
 *   | {kind:'tool', command:string, delayMs:number}
 *   | {kind:'agent', prompt:string, background:boolean, text:string, delayMs:number}
 *   | {kind:'error', status:number, message:string, times:number, rest:string, delayMs:number,
 *      account:{retryAfter?:string, resetSeconds?:number, limit?:'usage'|'weekly', type?:string}})
 *   & {quota?: Record<string, {percent:number, resetsInSeconds:number}>}}
 */
export function plan(prompt, delayMs = 0) {
  let m;
  if ((m = /^DELAY (\d+) ([\s\S]*)$/.exec(prompt))) return plan(m[2], delayMs + Number(m[1]));
  if ((m = /^QUOTA ([\s\S]*)$/.exec(prompt))) {
    const { quota, rest } = quotaWindows(m[1]);
    if (Object.keys(quota).length > 0) {
      const inner = plan(rest, delayMs);
      return { ...inner, quota: { ...quota, ...inner.quota } };
    }
  }
  if ((m = /^ECHO ([\s\S]*)$/.exec(prompt))) return { kind: 'text', text: m[1], delayMs };
  if ((m = /^TOOL ([\s\S]+)$/.exec(prompt))) return { kind: 'tool', command: m[1].trim(), delayMs };
  if ((m = /^BGTOOL ([\s\S]+)$/.exec(prompt))) return { kind: 'tool', command: m[1].trim(), background: true, delayMs };
  if ((m = /^(BG)?AGENT ([\s\S]+)$/.exec(prompt))) {
    // `text`: the answer of a model server or fake that knows no subagent tool
    return { kind: 'agent', prompt: m[2].trim(), background: m[1] !== undefined, text: `MOCK-NO-AGENT: ${m[2].trim()}`, delayMs };
  }
  if ((m = /^FAIL (\d{3})(?: x(\d+))?(?: ([\s\S]*))?$/.exec(prompt))) {
    const { account, rest } = failOptions((m[3] ?? '').trim());
    return {
      kind: 'error',
      status: Number(m[1]),
      times: m[2] ? Number(m[2]) : Infinity,
      message: rest.trim() || 'mock failure',
      rest: rest.trim(),
      delayMs,
      account,
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
