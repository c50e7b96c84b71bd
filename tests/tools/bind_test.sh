#!/bin/sh
# tests/tools/bind_test.sh AMPIRUN WORKDIR CASE — ampirun's --bind-to, checked against what each
# process of the job reads from its own /proc/<pid>/status (Cpus_allowed_list). Nothing here
# names a core: the expectations come from this script's own affinity (what ampirun inherits) and
# the kernel's topology files (which PUs share a core, a socket). Exit 77 (skipped) when the
# machine lacks what a case needs (two allowed cores, taskset).
#   default     -np 2: each process on one distinct core (all of that core's allowed PUs), as
#               --report-bindings says
#   oversubscribed  -np (cores+1): one note, every process unbound; --oversubscribe: no note
#   none        --bind-to none: unbound and silent, even with more processes than cores
#   taskset     under taskset (one PU, then the last core): -np 1 stays there, -np 2 falls back
#   socket      --bind-to socket (and package): the allowed PUs of the socket of each one's core
#   hwthread    --bind-to hwthread: one distinct PU each
#   mps         the job's MPS daemon (a stand-in) is not bound, the job's process is
set -u
[ $# -eq 3 ] || { echo "usage: $0 AMPIRUN WORKDIR CASE" >&2; exit 2; }
ampirun=$1 work=$2 case=$3
rm -rf "$work" && mkdir -p "$work" || exit 1
out=$work/out
failed=0

# Each process of a job prints "affinity <process> <Cpus_allowed_list>", read by the shell itself
# (no child process in between).
cat >"$work/report.sh" <<'EOS'
while IFS= read -r line; do
  case $line in Cpus_allowed_list:*) set -- $line; echo "affinity $LOCAL_RANK $2" ;; esac
done </proc/$$/status
EOS

fail() {
  echo "FAIL: $*"
  failed=1
}
skip() {
  echo "skipped: $*"
  exit 77
}
# run ARGS...: ampirun with ARGS, output (stdout and stderr) in $out, exit status in $rc.
run() {
  printf '$'
  printf ' %s' "$@"
  printf '\n'
  "$@" >"$out" 2>&1 </dev/null
  rc=$?
  sed 's/^/| /' "$out"
  echo "exit status: $rc"
  [ "$rc" = 0 ] || fail "exit status $rc"
}

# "0-2,5" -> "0 1 2 5" (sorted, one space after each).
expand() {
  echo "$1" | awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, r, "-")
                         if (n == 1) print r[1]; else for (j = r[1]; j <= r[2]; j++) print j } }' |
    sort -n | tr '\n' ' '
}
# The PUs that share a core (a socket) with PU $1, as the kernel lists them.
core_of() {
  f=/sys/devices/system/cpu/cpu$1/topology/thread_siblings_list
  if [ -r "$f" ]; then expand "$(cat "$f")"; else echo "$1 "; fi
}
package_of() {
  f=/sys/devices/system/cpu/cpu$1/topology/core_siblings_list
  if [ -r "$f" ]; then expand "$(cat "$f")"; else echo "$own"; fi
}
# The PUs of list $1 that are also in list $2.
intersect() {
  r=
  for a in $1; do
    for b in $2; do [ "$a" = "$b" ] && r="$r$a "; done
  done
  echo "$r"
}

own=$(expand "$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)")
# One line per allowed core: its allowed PUs.
cores_list=$(for pu in $own; do intersect "$(core_of "$pu")" "$own"; echo; done | sort -u | grep .)
cores=$(echo "$cores_list" | grep -c .)
pus=$(echo $own | wc -w)
echo "this test may run on PUs: $own($cores cores)"

# affinity P: the PUs process P reported (expanded).
affinity() {
  expand "$(sed -n "s/^affinity $1 //p" "$out")"
}
expect_processes() {
  n=$(grep -c '^affinity ' "$out")
  [ "$n" = "$1" ] || fail "$n processes reported their affinity, expected $1"
}
# expect_unbound N: N processes, each with all of our PUs.
expect_unbound() {
  expect_processes "$1"
  i=0
  while [ "$i" -lt "$1" ]; do
    [ "$(affinity $i)" = "$own" ] || fail "process $i runs on PUs '$(affinity $i)', not on all of '$own'"
    i=$((i + 1))
  done
}
# expect_on_core P: process P runs on exactly the allowed PUs of one core; prints that core.
expect_on_core() {
  a=$(affinity "$1")
  [ -n "$a" ] || { fail "process $1 reported no affinity"; return; }
  first=${a%% *}
  want=$(intersect "$(core_of "$first")" "$own")
  [ "$a" = "$want" ] || fail "process $1 runs on PUs '$a', not on the allowed PUs '$want' of one core"
}
# expect_report P UNIT: --report-bindings says process P is bound to UNIT with the PUs it has.
expect_report() {
  line=$(grep -E "^ampirun: process $1 \\(pid [0-9]+\\): ranks? [0-9,-]+ bound to $2 [0-9]+ \\[PU [0-9,-]+\\]$" "$out")
  if [ -z "$line" ]; then
    fail "no report line: process $1 ... bound to $2 N [PU ...]"
    return
  fi
  reported=$(expand "$(echo "$line" | sed 's/.*\[PU \(.*\)\]$/\1/')")
  [ "$reported" = "$(affinity "$1")" ] ||
    fail "the report says process $1 has PUs '$reported', it has '$(affinity "$1")'"
}
note_re() { # note_re N CORES UNIT
  s=s
  [ "$2" = 1 ] && s=
  printf '%s\n' "^ampirun: note: $1 processes but $2 $3$s allowed: processes are not bound \\(--bind-to none to silence this\\)$"
}

case $case in
  default)
    [ "$cores" -ge 2 ] || skip "needs 2 allowed cores, has $cores"
    run "$ampirun" -np 2 --report-bindings sh "$work/report.sh"
    expect_processes 2
    expect_on_core 0
    expect_on_core 1
    [ "$(affinity 0)" != "$(affinity 1)" ] || fail "both processes on the same core"
    [ -z "$(intersect "$(affinity 0)" "$(affinity 1)")" ] || fail "the two processes share PUs"
    expect_report 0 core
    expect_report 1 core
    grep -q "note:" "$out" && fail "a note with as many cores as processes"
    ;;

  oversubscribed)
    n=$((cores + 1))
    run "$ampirun" -np "$n" --report-bindings sh "$work/report.sh"
    expect_unbound "$n"
    [ "$(grep -cE "$(note_re "$n" "$cores" core)" "$out")" = 1 ] || fail "not one note: $(note_re "$n" "$cores" core)"
    [ "$(grep -c "^ampirun: note:" "$out")" = 1 ] || fail "more than one note"
    [ "$(grep -cE "^ampirun: process [0-9]+ \\(pid [0-9]+\\): rank [0-9]+ not bound$" "$out")" = "$n" ] ||
      fail "--report-bindings does not say 'not bound' for each of the $n processes"
    # --oversubscribe: expected, so no note.
    run "$ampirun" -np "$n" --oversubscribe sh "$work/report.sh"
    expect_unbound "$n"
    grep -q "note:" "$out" && fail "a note despite --oversubscribe"
    ;;

  none)
    run "$ampirun" -np 2 --bind-to none --report-bindings sh "$work/report.sh"
    expect_unbound 2
    [ "$(grep -cE "^ampirun: process [01] \\(pid [0-9]+\\): rank [01] not bound$" "$out")" = 2 ] ||
      fail "--report-bindings does not say 'not bound'"
    run "$ampirun" -np $((cores + 1)) --bind-to=none sh "$work/report.sh"
    expect_unbound $((cores + 1))
    grep -q "^ampirun:" "$out" && fail "ampirun said something with --bind-to none"
    ;;

  taskset)
    command -v taskset >/dev/null 2>&1 || skip "no taskset"
    pu=${own%% *}
    run taskset -c "$pu" "$ampirun" -np 1 --report-bindings sh "$work/report.sh"
    expect_processes 1
    [ "$(affinity 0)" = "$pu " ] || fail "under taskset -c $pu, the process runs on '$(affinity 0)'"
    expect_report 0 core
    run taskset -c "$pu" "$ampirun" -np 2 sh "$work/report.sh"
    expect_processes 2
    [ "$(affinity 0)" = "$pu " ] && [ "$(affinity 1)" = "$pu " ] ||
      fail "under taskset -c $pu, the processes run on '$(affinity 0)' and '$(affinity 1)'"
    [ "$(grep -cE "$(note_re 2 1 core)" "$out")" = 1 ] || fail "no note: $(note_re 2 1 core)"
    # The last allowed core (not the machine's first): the process goes there.
    last=$(echo "$cores_list" | tail -n 1)
    run taskset -c "$(echo $last | tr ' ' ,)" "$ampirun" -np 1 sh "$work/report.sh"
    expect_processes 1
    [ "$(affinity 0)" = "$last" ] || fail "under taskset -c '$last', the process runs on '$(affinity 0)'"
    ;;

  socket)
    [ "$cores" -ge 2 ] || skip "needs 2 allowed cores, has $cores"
    run "$ampirun" -np 2 --bind-to socket --report-bindings sh "$work/report.sh"
    expect_processes 2
    for p in 0 1; do
      a=$(affinity $p)
      want=$(intersect "$(package_of "${a%% *}")" "$own")
      [ "$a" = "$want" ] || fail "process $p runs on PUs '$a', not on its socket's allowed PUs '$want'"
      expect_report $p socket
    done
    run "$ampirun" -np 1 --bind-to package --report-bindings sh "$work/report.sh"
    expect_processes 1
    expect_report 0 socket
    ;;

  hwthread)
    [ "$pus" -ge 2 ] || skip "needs 2 allowed PUs, has $pus"
    run "$ampirun" -np 2 --bind-to hwthread --report-bindings sh "$work/report.sh"
    expect_processes 2
    for p in 0 1; do
      a=$(affinity $p)
      [ "$(echo $a | wc -w)" = 1 ] || fail "process $p runs on PUs '$a', not on one"
      [ -n "$(intersect "$a" "$own")" ] || fail "process $p runs on PU '$a', which we may not use"
      expect_report $p hwthread
    done
    [ "$(affinity 0)" != "$(affinity 1)" ] || fail "both processes on PU $(affinity 0)"
    ;;

  mps)
    # A stand-in nvidia-cuda-mps-control that records the PUs the daemon may run on.
    mkdir -p "$work/bin"
    cat >"$work/bin/nvidia-cuda-mps-control" <<'EOS'
#!/bin/sh
if [ "${1:-}" = "-f" ]; then
  while IFS= read -r line; do
    case $line in Cpus_allowed_list:*) set -- $line; echo "daemon $2" >>"$MPS_RECORD" ;; esac
  done </proc/$$/status
  : >"$CUDA_MPS_PIPE_DIRECTORY/control"
  while [ -e "$CUDA_MPS_PIPE_DIRECTORY/control" ]; do sleep 0.05; done
  exit 0
fi
cat >/dev/null
rm -f "$CUDA_MPS_PIPE_DIRECTORY/control"
EOS
    chmod +x "$work/bin/nvidia-cuda-mps-control"
    run env PATH="$work/bin:$PATH" MPS_RECORD="$work/record" CUDA_VISIBLE_DEVICES=0 \
      "$ampirun" -np 1 --mps on --timeout 30 sh "$work/report.sh"
    expect_processes 1
    expect_on_core 0
    daemon=$(sed -n 's/^daemon //p' "$work/record" 2>/dev/null)
    [ -n "$daemon" ] || fail "the MPS daemon did not run"
    [ "$(expand "$daemon")" = "$own" ] || fail "the MPS daemon runs on PUs '$daemon', not on all of '$own'"
    ;;

  *)
    echo "unknown case '$case'" >&2
    exit 2
    ;;
esac
[ "$failed" = 0 ] || exit 1
echo "ok: $case"
