/**
 * The server-level `instructions` an MCP host shows its model: the lifecycle and what to do after
 * each outcome. Kept short on purpose (a test bounds it to 200–1500 characters).
 */

/** Instructions sent in the MCP `initialize` result. */
export const SERVER_INSTRUCTIONS = `umbel runs interactive agent CLIs (claude, codex, gemini, opencode, copilot, qwen) as persistent workers in tmux, on the user's own sign-in.
Lifecycle: umbel_spawn → umbel_send → umbel_wait → umbel_read → (send again, or umbel_kill).
umbel_send does NOT wait: it returns the turn number at once; always follow it with umbel_wait.
umbel_wait returns an outcome as data; branch on reason:
- completed: result holds the answer.
- timeout: the worker is still busy; call umbel_wait again (waits are short so the call never outlives your request timeout).
- needs-input: a permission prompt or question; inspect with umbel_capture, answer with umbel_keys, or umbel_kill. Repeated prompts mean something is wrong: inspect, simplify or kill.
- dead: the CLI exited; check umbel_logs and umbel_capture, then spawn a new worker.
- provider-error: the model API failed; retry with umbel_send.
- rate-limited: a rate or usage limit; retry after resetsAt (when given).
- auth-failed: the login was refused; the user must sign in again.
- idle: the turn stopped without an answer; umbel_capture, then umbel_send or umbel_keys.
- aborted: your wait was cancelled; the worker keeps running.
- guardrail-halted: the check kept failing; see attempts.
Several workers: umbel_wait_many (all, or any: the first to end); umbel_events follows the fleet (cursor, wait).
Evidence: umbel_actions (tools, files, commands), umbel_diff (file changes).
More: umbel_help (topics lifecycle, workflow, providers).`;
