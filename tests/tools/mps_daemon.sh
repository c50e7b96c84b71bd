#!/bin/sh
# tests/tools/mps_daemon.sh AMPIRUN PROBE WORKDIR
# `ampirun --mps auto` with two processes on one (pretended) GPU starts a private MPS daemon for
# the job and quits it at the end. A stand-in nvidia-cuda-mps-control on the PATH records how it
# was run: the daemon (in the foreground, -f) and the quit client must run with no signal
# blocked, the quit must come after the job with the same pipe directory, the job's processes
# must see that directory, and it must be gone afterwards. Then the same with a daemon that
# never quits: ampirun must end it after its grace period, warn, and still succeed.
set -u
[ $# -eq 3 ] || { echo "usage: $0 AMPIRUN PROBE WORKDIR" >&2; exit 2; }
ampirun=$1 probe=$2 work=$3
rm -rf "$work" && mkdir -p "$work/bin" || exit 1
record=$work/record
cat >"$work/bin/nvidia-cuda-mps-control" <<'EOS'
#!/bin/sh
mode=${1:-}
{
  echo "run $*"
  # Read by the shell itself (no child process: a shell blocks signals around its forks).
  while IFS= read -r line; do
    case $line in SigBlk:*) set -- $line; echo "blocked $2" ;; esac
  done </proc/$$/status
  echo "pipe $CUDA_MPS_PIPE_DIRECTORY"
} >>"$MPS_RECORD"
if [ "$mode" = "-f" ]; then # the daemon: up until its control file goes
  : >"$CUDA_MPS_PIPE_DIRECTORY/control"
  while [ -e "$CUDA_MPS_PIPE_DIRECTORY/control" ] || [ -n "${MPS_STUCK:-}" ]; do sleep 0.05; done
  echo "daemon quit" >>"$MPS_RECORD"
  exit 0
fi
sed 's/^/stdin /' >>"$MPS_RECORD"
[ -n "${MPS_STUCK:-}" ] || rm -f "$CUDA_MPS_PIPE_DIRECTORY/control"
EOS
chmod +x "$work/bin/nvidia-cuda-mps-control"

PATH=$work/bin:$PATH MPS_RECORD=$record CUDA_VISIBLE_DEVICES=0 \
  "$ampirun" -np 2 --mps auto --timeout 30 "$probe" env CUDA_MPS_PIPE_DIRECTORY >"$work/out" 2>&1
status=$?
fail() {
  echo "FAIL: $*"
  echo "--- ampirun's output"; cat "$work/out"
  echo "--- what the stand-in recorded"; cat "$record" 2>/dev/null
  exit 1
}
[ "$status" -eq 0 ] || fail "ampirun exited with $status"
[ -f "$record" ] || fail "the MPS control program was not run"
[ "$(sed -n 1p "$record")" = "run -f" ] || fail "the daemon was not started first"
[ "$(sed -n 2p "$record")" = "blocked 0000000000000000" ] || fail "the daemon started with signals blocked"
[ "$(sed -n 5p "$record")" = "blocked 0000000000000000" ] || fail "the quit client ran with signals blocked"
pipe=$(sed -n 's/^pipe //p' "$record" | head -n 1)
case $pipe in */ampi-mps.*/pipe) ;; *) fail "unexpected pipe directory '$pipe'" ;; esac
[ "$(grep -c "^CUDA_MPS_PIPE_DIRECTORY=$pipe\$" "$work/out")" -eq 2 ] ||
  fail "the job's two processes did not both get CUDA_MPS_PIPE_DIRECTORY=$pipe"
[ "$(sed -n 4p "$record")" = "run " ] || fail "no quit after the job"
[ "$(sed -n 6p "$record")" = "pipe $pipe" ] || fail "the quit went to another daemon"
grep -q '^stdin quit$' "$record" || fail "the quit command was not sent"
grep -q '^daemon quit$' "$record" || fail "the daemon did not quit"
[ ! -e "$(dirname "$pipe")" ] || fail "the MPS directory $(dirname "$pipe") was left behind"
grep -q "warning: the job's MPS daemon" "$work/out" && fail "a warning about a daemon that quit"

# A daemon that ignores the quit: ended after the grace period, with a warning.
rm -f "$record"
start=$(date +%s)
PATH=$work/bin:$PATH MPS_RECORD=$record MPS_STUCK=1 CUDA_VISIBLE_DEVICES=0 \
  "$ampirun" -np 2 --mps auto --timeout 60 "$probe" exit 0 >"$work/out" 2>&1
status=$?
took=$(($(date +%s) - start))
[ "$status" -eq 0 ] || fail "ampirun exited with $status (stuck daemon)"
grep -q "warning: the job's MPS daemon did not quit within 10 s; ending it" "$work/out" ||
  fail "no warning about the stuck daemon"
[ "$took" -le 30 ] || fail "ampirun took $took s to end a stuck daemon"
pipe=$(sed -n 's/^pipe //p' "$record" | head -n 1)
[ ! -e "$(dirname "$pipe")" ] || fail "the MPS directory was left behind (stuck daemon)"
sleep 0.2
if pgrep -f "$work/bin/nvidia-cuda-mps-control" >/dev/null; then fail "the stuck daemon is still running"; fi
echo "ok: private MPS daemon started unblocked, told the job, quit, cleaned up; a stuck one ended"
