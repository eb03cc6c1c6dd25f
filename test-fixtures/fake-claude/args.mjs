// Command-line parsing modelled on the real CLI (commander): `--opt value` and `--opt=value`,
// variadic `<tools...>` options that keep consuming arguments until the next `-…` (so a prompt
// placed right after `--allowedTools X` is eaten as a tool, as with the real binary).
import { FakeExit } from './config.mjs';

/** Options taking one value: flag → key. */
const VALUE = {
  '--settings': 'settings',
  '--session-id': 'sessionId',
  '--model': 'model',
  '--permission-mode': 'permissionMode',
  '--append-system-prompt': 'appendSystemPrompt',
  '--system-prompt': 'systemPrompt',
  '--output-format': 'outputFormat',
  '--input-format': 'inputFormat',
  '--max-turns': 'maxTurns',
  '--fallback-model': 'fallbackModel',
  '--permission-prompt-tool': 'permissionPromptTool',
  '--setting-sources': 'settingSources',
  '--effort': 'effort',
  '--agent': 'agent',
  '--name': 'name',
};
/** Variadic options (`<values...>`). */
const VARIADIC = {
  '--allowedTools': 'allowedTools',
  '--allowed-tools': 'allowedTools',
  '--disallowedTools': 'disallowedTools',
  '--disallowed-tools': 'disallowedTools',
  '--add-dir': 'addDir',
  '--mcp-config': 'mcpConfig',
};
/** Boolean flags. */
const BOOL = {
  '-p': 'print',
  '--print': 'print',
  '-c': 'continue',
  '--continue': 'continue',
  '--verbose': 'verbose',
  '--dangerously-skip-permissions': 'dangerouslySkipPermissions',
  '--allow-dangerously-skip-permissions': 'allowDangerouslySkipPermissions',
  '--fork-session': 'forkSession',
  '--no-session-persistence': 'noSessionPersistence',
  '--include-partial-messages': 'includePartialMessages',
  '--strict-mcp-config': 'strictMcpConfig',
  '--ide': 'ide',
  '--debug': 'debug',
  '-d': 'debug',
  '--replay-user-messages': 'replayUserMessages',
  '-v': 'version',
  '--version': 'version',
  '-h': 'help',
  '--help': 'help',
};

/** Permission modes `--permission-mode` accepts (§6.1). */
export const PERMISSION_MODES = ['acceptEdits', 'auto', 'bypassPermissions', 'default', 'dontAsk', 'manual', 'plan'];

/**
 * Split a tool list like `Bash(git commit:*) Edit,Read` on commas/spaces outside parentheses.
 * @param {string[]} values
 */
export function splitTools(values) {
  const out = [];
  for (const v of values) {
    let depth = 0;
    let cur = '';
    for (const ch of v) {
      if (ch === '(') depth++;
      if (ch === ')') depth = Math.max(0, depth - 1);
      if (depth === 0 && (ch === ',' || /\s/.test(ch))) {
        if (cur) out.push(cur);
        cur = '';
      } else cur += ch;
    }
    if (cur) out.push(cur);
  }
  return out;
}

/**
 * Parse argv (without node and script).
 * @param {string[]} argv
 */
export function parseArgs(argv) {
  /** @type {Record<string, any>} */
  const o = { positionals: [], allowedTools: [], disallowedTools: [], addDir: [], mcpConfig: [], raw: argv };
  let i = 0;
  let onlyPositionals = false;
  while (i < argv.length) {
    const arg = argv[i++];
    if (onlyPositionals || !arg.startsWith('-') || arg === '-') {
      o.positionals.push(arg);
      continue;
    }
    if (arg === '--') {
      onlyPositionals = true;
      continue;
    }
    let name = arg;
    let inline;
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 0) {
      name = arg.slice(0, eq);
      inline = arg.slice(eq + 1);
    }
    if (name === '--resume' || name === '-r') {
      // optional value
      if (inline !== undefined) o.resume = inline;
      else if (i < argv.length && !argv[i].startsWith('-')) o.resume = argv[i++];
      else o.resume = true;
      continue;
    }
    if (VALUE[name]) {
      const value = inline ?? argv[i++];
      if (value === undefined) throw new FakeExit(1, `error: option '${name} <value>' argument missing`);
      o[VALUE[name]] = value;
      continue;
    }
    if (VARIADIC[name]) {
      const vals = [];
      if (inline !== undefined) vals.push(inline);
      else {
        while (i < argv.length && !argv[i].startsWith('-')) vals.push(argv[i++]);
        if (vals.length === 0) throw new FakeExit(1, `error: option '${name} <values...>' argument missing`);
      }
      o[VARIADIC[name]].push(...vals);
      continue;
    }
    if (BOOL[name] && inline === undefined) {
      o[BOOL[name]] = true;
      continue;
    }
    throw new FakeExit(1, `error: unknown option '${arg}'`);
  }
  if (o.positionals.length > 1) {
    throw new FakeExit(1, `error: too many arguments. Expected 1 argument but got ${o.positionals.length}.`);
  }
  o.prompt = o.positionals[0];
  o.allowedTools = splitTools(o.allowedTools);
  o.disallowedTools = splitTools(o.disallowedTools);
  if (o.permissionMode !== undefined && !PERMISSION_MODES.includes(o.permissionMode)) {
    throw new FakeExit(
      1,
      `error: option '--permission-mode <mode>' argument '${o.permissionMode}' is invalid. Allowed choices are ${PERMISSION_MODES.join(', ')}.`,
    );
  }
  if (o.maxTurns !== undefined && !/^\d+$/.test(o.maxTurns)) throw new FakeExit(1, `error: option '--max-turns <turns>' argument '${o.maxTurns}' is invalid.`);
  return o;
}
