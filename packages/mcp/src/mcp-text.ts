/**
 * Messages and hints as an MCP client should read them. Core's errors speak the CLI's language
 * (`run 'umbel ls'`, `--purge`, `--env NAME`); over MCP a hint must name the tool to call and its
 * fields instead. Applied once, at this face, to every error message, hint and outcome message that
 * reaches a tool result. Pure.
 */
import type { ErrorBody } from '@umbel/core';

/** umbel's CLI flags and the MCP input fields that mean the same. */
const FIELDS: Readonly<Record<string, string>> = {
  'permission-mode': 'permissionMode',
  'allowed-tools': 'allowedTools',
  'append-system-prompt': 'appendSystemPrompt',
  'startup-timeout': 'startupTimeout',
  'idle-timeout': 'idleTimeout',
  'check-timeout': 'checkTimeout',
  'older-than': 'olderThan',
  unattended: 'unattended',
  purge: 'purge',
  turn: 'turn',
  timeout: 'timeout',
  check: 'check',
  schema: 'schema',
  retries: 'retries',
  until: 'until',
  file: 'file',
  pattern: 'pattern',
  command: 'command',
  text: 'text',
  model: 'model',
  cwd: 'cwd',
  provider: 'provider',
  name: 'name',
};

/** The CLI's verbs and their tools. */
const TOOLS: Readonly<Record<string, string>> = {
  spawn: 'umbel_spawn',
  send: 'umbel_send',
  wait: 'umbel_wait',
  keys: 'umbel_keys',
  status: 'umbel_status',
  ls: 'umbel_list',
  list: 'umbel_list',
  read: 'umbel_read',
  actions: 'umbel_actions',
  diff: 'umbel_diff',
  kill: 'umbel_kill',
  revive: 'umbel_revive',
  capture: 'umbel_capture',
  logs: 'umbel_logs',
  prune: 'umbel_prune',
};

const VERBS = Object.keys(TOOLS).join('|');
const NAMELESS = new Set(['ls', 'list', 'prune']);
/** A bare `umbel VERB [NAME] [--flag [N]]…`, NAME only where a flag, the end or punctuation follows it. */
const BARE = new RegExp(`\\bumbel (${VERBS})((?: [a-z0-9][a-z0-9-]*(?=$|[.,;:)'"]| --))?(?: --[a-z-]+(?: \\d+)?)*)`, 'g');

/** `umbel kill w --purge` → `umbel_kill {"name":"w","purge":true}`; `umbel ls` → `umbel_list`. */
function command(verb: string, rest: string): string {
  const tool = TOOLS[verb] as string;
  const words = rest.trim() === '' ? [] : rest.trim().split(/\s+/);
  const input: Record<string, unknown> = {};
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    const flag = /^--([a-z-]+)$/.exec(word);
    if (flag) {
      const field = FIELDS[flag[1] as string] ?? flag[1];
      const value = words[i + 1];
      if (value !== undefined && !value.startsWith('--')) {
        input[field as string] = /^\d+$/.test(value) ? Number(value) : value;
        i++;
      } else input[field as string] = true;
    } else if (input.name === undefined && /^[a-z0-9][a-z0-9-]*$/.test(word)) input.name = word;
  }
  return Object.keys(input).length ? `${tool} ${JSON.stringify(input)}` : tool;
}

/** Rewrite a core message or hint for an MCP client. */
export function forMcp(text: string): string {
  return (
    text
      .replace(/by kill --purge/g, 'by umbel_kill with purge')
      // a verb that does not exist as a tool: drop the clause
      .replace(/;?\s*'umbel doctor[^']*' checks the installation/g, '')
      // `--env NAME=VALUE` / `--env NAME`: the env field of umbel_spawn
      .replace(/pass --env ([A-Za-z_][A-Za-z0-9_]*)=VALUE/g, 'pass env {"$1": "VALUE"} to umbel_spawn')
      .replace(/export ([A-Za-z_][A-Za-z0-9_]*) before running umbel/g, "set $1 in the MCP server's environment")
      .replace(/needed by --env ([A-Za-z_][A-Za-z0-9_]*)/g, 'needed by env {"$1": {"fromEnv": "$1"}}')
      .replace(/with --env\b/g, 'with env {"NAME": "VALUE"} in umbel_spawn')
      // quoted or bare `umbel <verb> [args]`
      .replace(new RegExp(`'umbel (${VERBS})((?: [^']*)?)'`, 'g'), (_, verb: string, rest: string) => command(verb, rest))
      .replace(BARE, (_, verb: string, rest: string) => (NAMELESS.has(verb) ? `${TOOLS[verb]}${rest}` : command(verb, rest)))
      .replace(/\brun (umbel_\w+)/g, 'call $1')
      // the remaining flags of umbel's own options
      .replace(/(^|[\s(])--([a-z][a-z-]*)\b/g, (whole, before: string, flag: string) => (FIELDS[flag] ? `${before}${FIELDS[flag]}` : whole))
  );
}

/** Core's error body for an MCP client: its message, hint and issue messages rewritten; the facts kept as they are. */
export function forMcpError(body: ErrorBody): ErrorBody {
  const issues = body.issues as readonly { path: string; message: string }[] | undefined;
  return {
    ...body,
    message: forMcp(body.message),
    ...(body.hint !== undefined ? { hint: forMcp(body.hint) } : {}),
    ...(issues ? { issues: issues.map((i) => ({ ...i, message: forMcp(i.message) })) } : {}),
  };
}
