// `opencode run` of the fake opencode (FACTS.md §e): the answer on stdout, `> build · <model>` on
// stderr; `--format json` prints step_start / text / tool_use / step_finish / error lines. One
// argument with spaces reaches the model wrapped in double quotes; stdin is taken byte-exact.
// Exit 0, or 1 on an API error or an unknown model. A permission "ask" is rejected (no one to ask).
import { boot } from './boot.mjs';

/** The prompt `run` sends: the words joined by spaces (quoted when one has a space), then stdin. */
export function runPrompt(words, stdin) {
  const args = words.map((w) => (w.includes(' ') ? `"${w}"` : w)).join(' ');
  if (!stdin) return args;
  return args ? `${args}\n${stdin}` : stdin;
}

/** The JSON line `run --format json` prints for an event, or undefined. */
export function jsonLine(event) {
  const ts = Date.now();
  const p = event.properties;
  if (event.type === 'session.error') return { type: 'error', timestamp: ts, sessionID: p.sessionID, error: p.error };
  if (event.type !== 'message.part.updated') return undefined;
  const part = p.part;
  const base = { timestamp: ts, sessionID: p.sessionID, part };
  if (part.type === 'step-start') return { type: 'step_start', ...base };
  if (part.type === 'step-finish') return { type: 'step_finish', ...base };
  if (part.type === 'text' && part.time?.end) return { type: 'text', ...base };
  if (part.type === 'tool' && (part.state.status === 'completed' || part.state.status === 'error')) return { type: 'tool_use', ...base };
  return undefined;
}

export async function runCommand({ cwd, env, flags, positionals, stdin, log }) {
  const json = flags['--format'] === 'json';
  const prompt = runPrompt(positionals, stdin);
  if (prompt.trim() === '') {
    process.stderr.write('Error: You must provide a message or a command\n');
    return 1;
  }
  const texts = [];
  const onEvent = (event) => {
    const line = jsonLine(event);
    if (!line) return;
    if (json) process.stdout.write(`${JSON.stringify(line)}\n`);
    else if (line.type === 'text') texts.push(line.part.text);
  };
  const { engine, chosen, model } = await boot({ cwd, env, flags, log, ui: { onEvent, askPermission: async () => 'reject' } });
  if (!chosen.ok || !engine) {
    process.stderr.write(
      `Error: ${JSON.stringify({ name: 'UnknownError', data: { message: 'Unexpected server error. Check server logs for details.', ref: 'err_fake0000' } }, null, 2)}\n`,
    );
    return 1;
  }
  if (!json) process.stderr.write(`\n> ${engine.agent} · ${model.modelID}\n\n`);
  const result = await engine.submit(prompt);
  if (result.error) {
    if (!json) process.stderr.write(`Error: ${result.error.data?.message ?? result.error.name}\n`);
    return 1;
  }
  if (!json && texts.length) process.stdout.write(`${texts.join('\n\n').replace(/\s+$/, '')}\n`);
  return 0;
}
