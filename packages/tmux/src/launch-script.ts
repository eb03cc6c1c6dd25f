import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The launch wrapper, run by tmux as the pane's process:
 *
 *     /bin/sh <home>/hooks/launch.sh <tmux-bin> <env-buffer> <exit-record-dir> <argv...>
 *
 * It reads the worker environment from the tmux buffer (through the socket named in $TMUX), deletes the
 * buffer, and starts the worker as a child in a subshell that first unsets every exported variable except
 * the terminal ones tmux sets, then evals the exports. It forwards HUP, INT, QUIT, TERM, USR1 and USR2 to
 * the child, waits until the child is really gone, records how it ended in
 * `<exit-record-dir>/<ns>-<pid>-exit.json` (pid = the wrapper's pid, which is tmux's pane_pid) written to a
 * dot-named temp file and moved into place, only when that directory still exists, and finally ends the
 * same way (same signal or same status) so tmux's pane_dead_* agree.
 *
 * POSIX sh only (dash, bash, busybox ash); no jq, no node. A worker that exits with 128+N is recorded as
 * killed by signal N: a shell cannot tell the two apart.
 */
export const LAUNCH_SCRIPT = `#!/bin/sh
# umbel launch wrapper, written by @umbel/tmux. Do not edit: it is rewritten when it differs.
# usage: launch.sh <tmux-bin> <env-buffer> <exit-record-dir> <argv...>
_umbel_tmux=$1
_umbel_buffer=$2
_umbel_exitdir=$3
shift 3
_umbel_socket=\${TMUX%%,*}

_umbel_record() {
  [ -n "$_umbel_exitdir" ] && [ -d "$_umbel_exitdir" ] || return 0
  _umbel_ns=$(date +%s%N 2>/dev/null)
  case $_umbel_ns in
    ''|*[!0-9]*) _umbel_ns=$(date +%s)000000000 ;;
  esac
  _umbel_name="$_umbel_ns-$$-exit.json"
  _umbel_tmp="$_umbel_exitdir/.$_umbel_name.tmp"
  # private like every state file, without changing the umask the CLI runs with
  if (umask 077; printf '%s\\n' "$1" > "$_umbel_tmp") 2>/dev/null; then
    mv -f "$_umbel_tmp" "$_umbel_exitdir/$_umbel_name" 2>/dev/null || rm -f "$_umbel_tmp" 2>/dev/null
  else
    rm -f "$_umbel_tmp" 2>/dev/null
  fi
  return 0
}

if [ -z "$_umbel_socket" ] || [ -z "$_umbel_buffer" ] || [ "$#" -eq 0 ]; then
  echo "umbel launch.sh: must run inside tmux with a buffer and a command" >&2
  _umbel_record '{"status":127}'
  exit 127
fi

_umbel_env=$("$_umbel_tmux" -S "$_umbel_socket" save-buffer -b "$_umbel_buffer" - </dev/null 2>/dev/null)
_umbel_rc=$?
"$_umbel_tmux" -S "$_umbel_socket" delete-buffer -b "$_umbel_buffer" </dev/null >/dev/null 2>&1
if [ "$_umbel_rc" -ne 0 ]; then
  echo "umbel launch.sh: environment buffer $_umbel_buffer is missing" >&2
  _umbel_record '{"status":127}'
  exit 127
fi

_umbel_child=
_umbel_pending=
_umbel_forward() {
  if [ -n "$_umbel_child" ]; then
    kill -s "$1" "$_umbel_child" 2>/dev/null
  else
    _umbel_pending=$1
  fi
}
trap '_umbel_forward HUP' HUP
trap '_umbel_forward INT' INT
trap '_umbel_forward QUIT' QUIT
trap '_umbel_forward TERM' TERM
trap '_umbel_forward USR1' USR1
trap '_umbel_forward USR2' USR2

exec 3<&0
(
  trap - HUP TERM USR1 USR2
  for _umbel_n in $(env | sed -n 's/^\\([A-Za-z_][A-Za-z0-9_]*\\)=.*/\\1/p'); do
    case $_umbel_n in
      TERM|TERM_PROGRAM|TERM_PROGRAM_VERSION|COLORTERM|TMUX|TMUX_PANE) ;;
      *) unset "$_umbel_n" 2>/dev/null ;;
    esac
  done
  eval "$_umbel_env" || exit 126
  unset _umbel_env
  exec "$@"
) <&3 3<&- &
_umbel_child=$!
exec 3<&-
unset _umbel_env
if [ -n "$_umbel_pending" ]; then
  kill -s "$_umbel_pending" "$_umbel_child" 2>/dev/null
fi

while :; do
  wait "$_umbel_child"
  _umbel_rc=$?
  if [ "$_umbel_rc" -gt 128 ] && kill -0 "$_umbel_child" 2>/dev/null; then
    continue
  fi
  break
done

_umbel_sig=
if [ "$_umbel_rc" -gt 128 ] && [ "$_umbel_rc" -lt 193 ]; then
  _umbel_sig=$(kill -l "$((_umbel_rc - 128))" 2>/dev/null)
  case $_umbel_sig in
    ''|*[!A-Z0-9]*) _umbel_sig= ;;
  esac
fi
if [ -n "$_umbel_sig" ]; then
  _umbel_sig=\${_umbel_sig#SIG}
  _umbel_record "{\\"signal\\":\\"SIG$_umbel_sig\\"}"
  trap - "$_umbel_sig" 2>/dev/null
  kill -s "$_umbel_sig" $$ 2>/dev/null
else
  _umbel_record "{\\"status\\":$_umbel_rc}"
fi
exit "$_umbel_rc"
`;

/** Path of the launch wrapper under a state root. */
export function launchScriptPath(home: string): string {
  return join(home, 'hooks', 'launch.sh');
}

/**
 * Write {@link LAUNCH_SCRIPT} to `<home>/hooks/launch.sh` (mode 0755) unless it is already there with
 * the same content and mode; written to a temp file and renamed, so a reader never sees a partial file.
 */
export async function ensureLaunchScript(home: string): Promise<string> {
  const path = launchScriptPath(home);
  try {
    const [current, info] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
    if (current === LAUNCH_SCRIPT && (info.mode & 0o777) === 0o755) return path;
  } catch {
    /* missing or unreadable: write it */
  }
  await mkdir(join(home, 'hooks'), { recursive: true });
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temp, LAUNCH_SCRIPT, { mode: 0o755 });
    await chmod(temp, 0o755);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  return path;
}
