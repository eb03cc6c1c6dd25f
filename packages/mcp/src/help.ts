/**
 * The help topics of the `umbel_help` tool, embedded in the package: short markdown for a model
 * that drives umbel over MCP. Every fact here follows docs/mcp.md, docs/cli.md, docs/workflows.md
 * and docs/providers/; change them together.
 */
import type { ProviderSummary } from './provider-text.js';

/** The help topics, in the order the index lists them. */
export const HELP_TOPICS = ['lifecycle', 'workflow', 'providers'] as const;
/** One help topic. */
export type HelpTopic = (typeof HELP_TOPICS)[number];

/** One line per topic, for the index and the not-found answer. */
export const HELP_SUMMARIES: Readonly<Record<HelpTopic, string>> = {
  lifecycle: 'spawn → send → wait → read → kill, every wait outcome and what to do next, and the inspection tools.',
  workflow: '`umbel run workflow.yaml`: workers on their own providers, steps, order, templates and check/schema guardrails.',
  providers:
    'the providers loaded in this server (claude, codex, gemini, opencode, copilot and provider packages): how to pick one with `provider`, and which environment each needs.',
};

const LIFECYCLE = `# umbel lifecycle

umbel_spawn → umbel_send → umbel_wait → umbel_read → (umbel_send again, or umbel_kill)

1. \`umbel_spawn\` \`{"name": "w1", "provider": "claude", "cwd": "."}\` starts the CLI in tmux and returns its status once it is ready for a prompt (\`cwd\` is relative to the MCP server's cwd). Optional: \`model\`, \`env\`, \`permissionMode\`, \`allowedTools\`, \`appendSystemPrompt\`, \`unattended\`, \`startupTimeout\`, \`billing\` (\`"subscription"\` refuses a worker that would bill the API), \`maxWorkers\` (refused with \`UMBEL_FLEET_LIMIT\` when that many workers already live; the config's \`limits\` otherwise). API keys are never inherited: pass them in \`env\` as \`{"fromEnv": "NAME"}\`.
2. \`umbel_send\` \`{"name": "w1", "prompt": "…"}\` types the prompt and returns \`{worker, turn}\` at once. It does NOT wait: always follow it with umbel_wait.
3. \`umbel_wait\` \`{"name": "w1"}\` returns the turn's outcome as data, with \`next\` (what to do). Options: \`turn\`, \`timeout\` (default 50s, below common MCP request timeouts), \`idleTimeout\`, and the guardrails \`check\` (shell command, exit 0 accepts), \`schema\` (JSON Schema file), \`retries\` (default 2), \`checkTimeout\`.
4. \`umbel_read\` \`{"name": "w1"}\` returns the answer of a turn again (default: the latest completed), also after the worker was killed. An answer over ~2000 tokens comes back as head + tail with the middle elided (\`elidedTokens\`); ask for \`full: true\`, a \`section\` ("## Findings"), or \`head\`/\`tail\` (~tokens).
5. \`umbel_kill\` \`{"name": "w1"}\` ends the worker; its state stays as a tombstone for read/status/logs unless \`purge: true\`.

A worker keeps its conversation: send the next prompt to the same name for a follow-up.

## Outcomes of umbel_wait (\`reason\`)

Only bad input or a missing worker is an error; every reason below is a normal result.

- \`completed\`: the turn ended; \`result\` is the answer from the transcript. Send the next prompt, or kill.
- \`timeout\`: the worker is still busy. Call umbel_wait again (same worker); it keeps working meanwhile.
- \`needs-input\`: a permission prompt or question (\`inputKind\`, \`tool\`). Look with umbel_capture, answer with umbel_keys (\`["1"]\` or \`["Enter"]\` usually approves, \`["Escape"]\` declines), then umbel_wait again; or umbel_kill. Repeated prompts mean something is wrong: inspect, simplify or kill. To avoid them, spawn with \`unattended\`, \`permissionMode\` or \`allowedTools\`.
- \`dead\`: the CLI process ended (\`exit\`, \`paneTail\`). Check umbel_logs and umbel_capture for the cause, then spawn a new worker.
- \`provider-error\`: the model API failed (\`message\`); the worker is alive. Retry with umbel_send, or check umbel_logs.
- \`rate-limited\`: the account hit a rate or usage limit (HTTP 429, exit code 118). Retry with umbel_send after \`resetsAt\` when it is there (a plan limit); without it, wait a while before retrying.
- \`auth-failed\`: the login was refused (401/403: expired, revoked or invalid; exit code 119). Retrying will not help: the user must sign in again, then spawn a new worker.
- \`idle\`: the turn stopped without an answer (or showed no activity for \`idleTimeout\`). umbel_capture, then umbel_send or umbel_keys.
- \`aborted\`: the wait was cancelled; the worker keeps running. Call umbel_wait again when ready.
- \`guardrail-halted\`: \`check\`/\`schema\` kept rejecting the answer after \`retries\` feedback rounds; see \`attempts\`. Fix the task, send again, or kill.

## Inspecting and housekeeping

- \`umbel_status\` \`{name}\`: state (starting, ready, busy, needs-input, exited, dead, killed) and turn counters.
- \`umbel_list\` \`{}\`: every worker under this umbel home, live ones and tombstones.
- \`umbel_capture\` \`{name, lines?}\`: the terminal screen (default 100 lines), or the last one saved for a dead or killed worker. Evidence only: answers come from umbel_read.
- \`umbel_logs\` \`{name}\`: the worker's events with times; the first place to look after \`dead\`.
- \`umbel_actions\` \`{name, turn?}\`: what a turn did, from the transcript: tools × calls, files read / edited / written, shell commands, failed tool calls, the final message (\`turn: "all"\` for every turn).
- \`umbel_diff\` \`{name, turn?}\`: the file changes of a turn (git: a patch against a snapshot taken at send; elsewhere the files the transcript says were written); \`text: true\` diffs two answers (\`from\`/\`to\`).
- \`umbel_send\` with \`command: true\`: run the CLI's own command (\`/compact\`); a prompt starting with / or ! is otherwise sent as text.
- \`umbel_wait\` with \`until: "file", file\` or \`until: "pattern", pattern\`: end the wait when a file appears or the screen matches (reasons \`file\`, \`pattern\`).
- \`umbel_keys\` \`{name, keys}\`: press tmux keys (\`Enter\`, \`Escape\`, \`Up\`, \`Down\`, \`Tab\`, \`C-c\`, \`1\` …).
- \`umbel_prune\` \`{olderThan?}\`: remove the state of dead and killed workers; never a live one.

Errors are \`isError\` results with \`{"error": {"code": "UMBEL_…", "message", "hint"?}}\`. Workers live in tmux and outlive this server; a later server (or the \`umbel\` CLI) with the same \`UMBEL_HOME\` sees them.
`;

const WORKFLOW = `# Workflows: \`umbel run\`

A workflow is a YAML file of named **workers** (one agent CLI each, on its own provider) and **steps** (a prompt sent to one worker, then a wait with optional guardrails). It is run by the \`umbel\` command line, not by an MCP tool:

\`\`\`
umbel run FILE [--var K=V]… [--json] [--keep-workers]
umbel run --resume RUN_ID [--var K=V]… [--json] [--keep-workers]
\`\`\`

Branches, loops and conditions are not part of it: drive the workers yourself (umbel_spawn/send/wait) for those.

\`\`\`yaml
name: review-fix
workers:
  reviewer:
    provider: claude
    permissionMode: plan            # read-only reviewer
  fixer:
    provider: codex
    unattended: true
    env:
      GITHUB_TOKEN: {fromEnv: GITHUB_TOKEN}   # secrets by name, never literals
steps:
  - id: review
    worker: reviewer
    prompt: Review the changes on branch {{ vars.branch }} against main.
  - id: fix
    worker: fixer
    needs: [review]
    prompt: |
      Fix these problems: {{ steps.review.output }}
    timeout: 30m
  - id: verify
    worker: reviewer                # same worker: it remembers its review
    needs: [fix]
    prompt: Check the fix. Answer APPROVED on the first line when every problem is fixed.
    check: grep -q '^APPROVED' "$UMBEL_ANSWER_FILE"
    retries: 2
\`\`\`

## Workers

Fields are umbel_spawn's: \`provider\` (\`claude\` default, \`codex\`, \`gemini\`, \`opencode\`, \`copilot\`), \`cwd\` (relative to the workflow file's directory), \`model\`, \`env\` (\`NAME: "literal"\` or \`NAME: {fromEnv: OTHER}\`), \`unattended\`, \`permissionMode\`, \`allowedTools\`. A worker runs as \`<run-id>-<key>\`, is spawned before its first step, serves all its steps in one conversation, and is killed at the end of the run unless \`--keep-workers\`.

## Steps

\`id\`, \`worker\`, \`prompt\` (required); \`needs\` (step ids that must be accepted first); \`timeout\` (default \`30m\`), \`idleTimeout\`; \`outputs\` (\`KEY: answer\` or \`KEY: "file:<path in the worker's cwd>"\`). Steps on one worker run in list order; everything else without a \`needs\` path between them runs in parallel. A cycle is an error.

## Guardrails

\`check:\` (shell command in the worker's cwd; the answer on stdin and in \`$UMBEL_ANSWER_FILE\`; exit 0 accepts) and/or \`schema:\` (a JSON Schema file relative to the workflow file; the answer, or its first \`\`\`json block, must match). A rejected answer is fed back to the same worker up to \`retries\` times (default 2), then the step ends \`guardrail-halted\` (exit 127). \`checkTimeout\` bounds one check run (default \`5m\`).

## Templates (in \`prompt:\` only)

\`{{ steps.ID.output }}\`, \`{{ steps.ID.outputs.KEY }}\`, \`{{ vars.K }}\` (from \`--var K=V\`), \`{{ env.X }}\`. Nothing else. Every reference is checked before anything is spawned; ID must be upstream of the step.

## Results

Exit 0 when every step was accepted; otherwise the failing step's outcome code (127 guardrail-halted, 124 timeout, 123 idle, 125 dead, 126 needs-input, 122 provider-error, 118 rate-limited, 119 auth-failed, 130 aborted; 1 for an error); 2 for an invalid file (nothing spawned). \`--json\` prints one summary object. The run folder is \`$UMBEL_HOME/runs/<run-id>/\` (\`status.json\`, \`outputs/\`); \`umbel run --resume RUN_ID\` continues from the first unfinished step. Full reference: docs/workflows.md.
`;

const PROVIDERS_TITLE = '# Providers\n\n';

const PROVIDERS = `Pick one with \`provider\` in umbel_spawn (and in a workflow's workers): \`{"provider": "claude"}\` (the default), \`{"provider": "codex"}\`, \`{"provider": "gemini"}\`, \`{"provider": "opencode"}\`, \`{"provider": "copilot"}\` or \`{"provider": "qwen"}\`. Later tools route by the recorded provider. An option a provider lacks is refused (\`UMBEL_OPTION_UNSUPPORTED\`).

## What a worker's environment holds

A worker inherits only a base allowlist (\`PATH\`, \`HOME\`, locale, proxies, CA bundles …) plus the variables its provider names one by one (below), taken from this MCP server's own environment. Anything else goes in \`env\`:

\`\`\`json
{"name": "w1", "provider": "codex", "env": {"GITHUB_TOKEN": {"fromEnv": "GITHUB_TOKEN"}, "LOG_LEVEL": "debug"}}
\`\`\`

\`{"fromEnv": "NAME"}\` reads the *server's* variable (an unset one fails with \`UMBEL_ENV_UNRESOLVED\`; nothing is started); prefer it to literal secrets. Some hosts (Codex) start MCP servers with a reduced environment, so a variable must be passed to the server in the host's MCP config. The binaries are \`claude\`/\`codex\`/\`gemini\`/\`opencode\`/\`copilot\`/\`qwen\` on PATH, or \`UMBEL_CLAUDE_BIN\`, \`UMBEL_CODEX_BIN\`, \`UMBEL_GEMINI_BIN\`, \`UMBEL_OPENCODE_BIN\`, \`UMBEL_COPILOT_BIN\`, \`UMBEL_QWEN_BIN\`.

A worker on a sign-in screen makes spawn fail with \`UMBEL_NOT_SIGNED_IN\`: umbel never signs in for you.

## claude (Claude Code)

- Uses your Claude Code sign-in (subscription). It inherits \`ANTHROPIC_BASE_URL\`, \`ANTHROPIC_MODEL\`, \`CLAUDE_CONFIG_DIR\`, \`CLAUDE_CODE_OAUTH_TOKEN\` (with \`AWS_REGION\`, \`AWS_PROFILE\`, \`CLOUD_ML_REGION\`, \`ANTHROPIC_VERTEX_PROJECT_ID\`) … — never \`CLAUDE_*\` as a prefix, and never what bills the API: \`ANTHROPIC_API_KEY\`, \`ANTHROPIC_AUTH_TOKEN\`, \`CLAUDE_CODE_USE_BEDROCK\`/\`CLAUDE_CODE_USE_VERTEX\` reach a worker only in \`env\` (\`{"fromEnv": "ANTHROPIC_API_KEY"}\`); status reports \`billing\`.
- \`permissionMode\`: \`default\`, \`acceptEdits\`, \`plan\`, \`auto\`, \`dontAsk\`, \`bypassPermissions\`, \`manual\`; \`allowedTools\` (\`"Bash(git:*) Edit"\`) and \`appendSystemPrompt\` are supported. \`unattended\` maps to \`bypassPermissions\`; as root, Claude Code refuses it unless you pass \`"env": {"IS_SANDBOX": "1"}\`.

## codex (OpenAI Codex)

- Sign in once yourself (\`codex login\`), or use a custom model provider with an \`env_key\` in \`~/.codex/config.toml\`. It passes the \`env_key\` your config names (billed as \`api\`); \`CODEX_API_KEY\`/\`OPENAI_API_KEY\` are never inherited (pass them in \`env\`).
- Workers share a managed \`CODEX_HOME\` (\`<state>/providers/codex/home\`) whose \`config.toml\` is copied once from yours; later edits to yours are not picked up (delete the managed copy to re-copy).
- \`unattended\` maps to \`--dangerously-bypass-approvals-and-sandbox\` (no sandbox); \`permissionMode\`: \`default\`, \`on-request\`, \`never\`, \`bypassPermissions\`. \`allowedTools\` and \`appendSystemPrompt\` are refused.

## gemini (Gemini CLI)

- Needs an API key: \`GEMINI_API_KEY\` (Google AI Studio), never inherited: pass \`env: {"GEMINI_API_KEY": {"fromEnv": "GEMINI_API_KEY"}}\` (billed as \`api\`). Vertex AI: \`GOOGLE_GENAI_USE_VERTEXAI=true\` plus \`GOOGLE_API_KEY\` in \`env\` (or \`GOOGLE_CLOUD_PROJECT\` and \`GOOGLE_CLOUD_LOCATION\` with application-default credentials). A custom endpoint: \`GOOGLE_GEMINI_BASE_URL\`. Without a key, spawn fails as not signed in.
- \`permissionMode\`: \`default\`, \`auto_edit\`, \`yolo\`, \`plan\`; \`unattended\` maps to \`--approval-mode yolo\`. \`allowedTools\` and \`appendSystemPrompt\` are refused.
- A prompt starting with \`/name\` is refused (gemini would run a command): put a word in front. Tool approvals come as \`needs-input\`: umbel_keys \`["Enter"]\` allows once, \`["2"]\` for the session, \`["Escape"]\` rejects. Gemini retries 429/5xx for up to about four minutes before the turn fails.

## opencode

- Uses your own opencode config (\`~/.config/opencode\`, the project's \`opencode.json\`, \`opencode auth login\`): its providers, models and keys apply; umbel never writes there (each worker gets a config dir of its own for umbel's plugin). Provider keys (\`ANTHROPIC_API_KEY\`, \`OPENAI_API_KEY\`, \`OPENROUTER_API_KEY\` …) and \`OPENCODE_CONFIG\`, \`OPENCODE_CONFIG_CONTENT\`, \`OPENCODE_PERMISSION\` are inherited by name; \`OPENCODE_CONFIG_DIR\` is umbel's and refused in \`env\`.
- \`model\` is \`provider/model\` as \`opencode models\` lists it (an unknown one is a usage error naming the models it lists). \`permissionMode\`: \`default\` (your rules), \`ask\`, \`allow\`; \`unattended\` allows everything. \`allowedTools\` and \`appendSystemPrompt\` are refused.
- Tool approvals come as \`needs-input\` naming the tool: umbel_keys \`["Enter"]\` allows once, \`["Escape"]\` rejects. A model request still failing after 2 retries ends the turn as \`provider-error\`.

## copilot (GitHub Copilot CLI)

- Uses your GitHub sign-in (\`copilot login\`): the Copilot plan pays. \`COPILOT_PROVIDER_BASE_URL\`/\`_API_KEY\`/\`_BEARER_TOKEN\` (bring your own model) and \`COPILOT_GITHUB_TOKEN\`/\`GH_TOKEN\`/\`GITHUB_TOKEN\` bill elsewhere: never inherited, pass them in \`env\` on purpose. Each worker loads a hooks plugin of its own; umbel never writes to \`~/.copilot\`.
- \`permissionMode\`: \`default\`, \`plan\`, \`allow\` (\`--allow-all\`); \`unattended\` allows everything; \`allowedTools\` becomes \`--allow-tool\`. \`appendSystemPrompt\` is refused.
- A prompt starting with \`!\` is refused (Copilot would run it as a local shell command, even after spaces): put a word in front. Tool approvals come as \`needs-input\`: umbel_keys \`["Enter"]\` allows once, \`["Escape"]\` stops the turn. Copilot retries a 429 or 5xx five times (about a minute) before the turn fails.


## qwen (Qwen Code)

- Uses your Qwen Code login (\`qwen auth\`: Qwen OAuth is the subscription tier; its free tier ended on 2026-04-15) or a key passed in \`env\`: \`OPENAI_API_KEY\` (with the inherited \`OPENAI_BASE_URL\`, \`OPENAI_MODEL\`), \`ANTHROPIC_API_KEY\`, \`GEMINI_API_KEY\`, \`DASHSCOPE_API_KEY\`, \`BAILIAN_CODING_PLAN_API_KEY\`, \`OPENROUTER_API_KEY\` are never inherited (billed as \`api\`). Qwen Code also reads keys from \`.env\` files and its settings; status reports the billing the banner shows. \`QWEN_CODE_SYSTEM_SETTINGS_PATH\` is umbel's (each worker's hooks) and refused in \`env\`.
- \`permissionMode\`: \`default\`, \`auto-edit\`, \`yolo\`, \`plan\`; \`unattended\` maps to \`--approval-mode yolo\`; \`appendSystemPrompt\` is supported, \`allowedTools\` refused.
- A prompt starting with \`/name\` is refused. Tool approvals come as \`needs-input\`: umbel_keys \`["Enter"]\` allows once, \`["Escape"]\` rejects. A 429 or 5xx that Qwen Code keeps retrying ends the turn at once (\`rate-limited\` / \`provider-error\`).

Details: docs/providers/codex.md, docs/providers/gemini.md, docs/providers/opencode.md, docs/providers/copilot.md and docs/providers/qwen.md in the umbel repository.
`;

const TEXTS: Readonly<Record<HelpTopic, string>> = { lifecycle: LIFECYCLE, workflow: WORKFLOW, providers: PROVIDERS_TITLE + PROVIDERS };

/** The providers topic, opening with the providers this server actually has. */
function providersText(loaded: readonly ProviderSummary[]): string {
  const lines = loaded.map((p) => `- \`${p.id}\` (${p.displayName})${p.description ? `: ${p.description}` : ''}`);
  return `${PROVIDERS_TITLE}## Loaded in this server

${lines.join('\n')}

Provider packages (\`umbel-provider-*\`) come from \`UMBEL_PROVIDERS\` and the \`providers\` list of the config file (\`~/.config/umbel/config.json\`), read when the server starts; \`umbel providers\` shows where each came from and which CLI binary it found. The built-in ones:

${PROVIDERS}`;
}

/** The answer of `umbel_help`. */
export interface HelpAnswer {
  /** The topic asked for (normalised when known); absent for the index. */
  readonly topic?: string;
  /** False only for an unknown topic. */
  readonly found: boolean;
  /** Markdown. */
  readonly text: string;
  /** Every topic there is. */
  readonly topics: readonly HelpTopic[];
}

function isHelpTopic(value: string): value is HelpTopic {
  return (HELP_TOPICS as readonly string[]).includes(value);
}

function topicList(): string {
  return HELP_TOPICS.map((topic) => `- \`${topic}\`: ${HELP_SUMMARIES[topic]}`).join('\n');
}

/**
 * The help for `topic` (matched case-insensitively), the index when absent, or a not-found answer.
 * `providers`: the engine's providers, listed first by the providers topic.
 */
export function helpFor(topic?: string, providers?: readonly ProviderSummary[]): HelpAnswer {
  if (topic === undefined || topic.trim() === '') {
    const text = `# umbel help\n\nCall umbel_help with {"topic": "<name>"} for one of:\n\n${topicList()}\n`;
    return { found: true, text, topics: HELP_TOPICS };
  }
  const key = topic.trim().toLowerCase();
  if (key === 'providers' && providers) return { topic: key, found: true, text: providersText(providers), topics: HELP_TOPICS };
  if (isHelpTopic(key)) return { topic: key, found: true, text: TEXTS[key], topics: HELP_TOPICS };
  return { topic, found: false, text: `Help topic '${topic}' not found. Available topics:\n\n${topicList()}\n`, topics: HELP_TOPICS };
}
