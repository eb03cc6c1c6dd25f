/**
 * The hook sink: a POSIX sh script every provider's hook configuration calls as
 * `umbel-hook <kind>` with the payload on stdin. It writes the payload verbatim and atomically as
 * one event file `<ns>-<pid>-<kind>.json` into `$UMBEL_EVENTS_DIR` and prints nothing (codex parses
 * a hook's stdout as JSON and treats empty output as "continue"; an optional second argument is
 * printed verbatim for CLIs that want an answer). Event files are private (umask 077: a prompt or an
 * answer in a payload is nobody else's business). No jq, no node: it must run anywhere sh runs.
 */
import { readStateFile } from './state-file.js';
import { shellQuote, writeFileAtomic } from '@umbel/provider';

/** Version marker inside the script; bump when the script changes. */
export const HOOK_SINK_VERSION = 2;

/** The script text. */
export const HOOK_SINK_SCRIPT = `#!/bin/sh
# umbel hook sink v${HOOK_SINK_VERSION} — written by @umbel/core; do not edit (it is rewritten).
# Usage: umbel-hook KIND [STDOUT]   (hook payload on stdin)
umask 077
kind=\${1:-event}
case "$kind" in ''|*[!a-z-]*) kind=event ;; esac
dir=\${UMBEL_EVENTS_DIR:-}
if [ -z "$dir" ] || [ ! -d "$dir" ]; then cat >/dev/null 2>&1; exit 0; fi
ts=$(date +%s%N 2>/dev/null)
case "$ts" in ''|*[!0-9]*) ts="$(date +%s)000000000" ;; esac
tmp="$dir/.tmp-$ts-$$"
if cat >"$tmp" 2>/dev/null; then
  mv -f "$tmp" "$dir/$ts-$$-$kind.json" 2>/dev/null || rm -f "$tmp"
else
  rm -f "$tmp"
fi
[ $# -ge 2 ] && printf '%s' "$2"
exit 0
`;

/** Install the sink at `path` (mode 0755) unless an identical one is there. Safe to call concurrently. */
export async function installHookSink(path: string): Promise<void> {
  try {
    if ((await readStateFile(path)) === HOOK_SINK_SCRIPT) return;
  } catch {
    // missing (or no regular file): write it
  }
  await writeFileAtomic(path, HOOK_SINK_SCRIPT, 0o755);
}

/** The command string a hook configuration runs for `kind`. */
export function hookCommandFor(sinkPath: string, kind: string, stdout?: string): string {
  return [shellQuote(sinkPath), kind, ...(stdout === undefined ? [] : [shellQuote(stdout)])].join(' ');
}
