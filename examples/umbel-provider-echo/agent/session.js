// echo-agent's files under its home ($ECHO_AGENT_HOME, else ~/.echo-agent):
//   sessions/<session-id>.jsonl   the transcript, one JSON object per line
//   trusted.json                  folders the user trusted
//   logged-out                    present after `echo-agent logout`: the TUI shows a sign-in screen
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export function agentHome(env = process.env) {
  return env.ECHO_AGENT_HOME || join(env.HOME || homedir(), '.echo-agent');
}

export function transcriptPath(home, sessionId) {
  return join(home, 'sessions', `${sessionId}.jsonl`);
}

/** Append one entry to the transcript (created with its directory on first use). */
export function appendEntry(path, entry) {
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  appendFileSync(path, `${JSON.stringify({ ...entry, at: new Date().toISOString() })}\n`, { mode: 0o600 });
}

export function isTrusted(home, dir) {
  try {
    return JSON.parse(readFileSync(join(home, 'trusted.json'), 'utf8')).includes(dir);
  } catch {
    return false;
  }
}

export function trust(home, dir) {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  let list = [];
  try {
    list = JSON.parse(readFileSync(join(home, 'trusted.json'), 'utf8'));
  } catch {}
  writeFileSync(join(home, 'trusted.json'), JSON.stringify([...new Set([...list, dir])]));
}

export function isLoggedOut(home) {
  return existsSync(join(home, 'logged-out'));
}

export function setLoggedOut(home, loggedOut) {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  if (loggedOut) writeFileSync(join(home, 'logged-out'), '');
  else rmSync(join(home, 'logged-out'), { force: true });
}
