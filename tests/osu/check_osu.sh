#!/bin/sh
# tests/osu/check_osu.sh <program> <rows> [-f] -- <command...>
# Runs one of our OSU-compatible benchmarks and checks its output against OSU 7's format: the
# exit status 0, the title line, the column line (names and widths), and exactly <rows> data rows
# whose fields have OSU's widths (size: 10 left-justified; values: 20 right-justified, 2 decimals;
# Iterations: 12), message sizes that double from row to row, and with -f: min <= avg <= max and
# the iteration count given with -i. Figures are never required to be above zero: on a loaded
# machine a rate can print as 0.00 (CI saw it), and speed is for benchmarks, not tests.
set -u
prog=$1 rows=$2
shift 2
full=0
if [ "$1" = "-f" ]; then full=1; shift; fi
[ "$1" = "--" ] && shift
# The -i of the benchmark's command line, which the Iterations column must show.
iters=
prev=
for a in "$@"; do
  [ "$prev" = "-i" ] && iters=$a
  prev=$a
done
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" >"$out" 2>&1
rc=$?
fail() { echo "FAIL ($prog): $*"; echo "---- output:"; cat "$out"; exit 1; }
[ $rc -eq 0 ] || fail "exit status $rc"
case $prog in
  osu_latency) title="Latency Test"; cols='# Size            Latency (us)'; fmt=pt ;;
  osu_multi_lat) title="Multi Latency Test"; cols='# Size            Latency (us)'; fmt=pt ;;
  osu_bw) title="Bandwidth Test"; cols='# Size        Bandwidth (MB/s)'; fmt=pt ;;
  osu_bibw) title="Bi-Directional Bandwidth Test"; cols='# Size        Bandwidth (MB/s)'; fmt=pt ;;
  osu_mbw_mr) title="Multiple Bandwidth / Message Rate Test"
    cols='# Size                    MB/s          Messages/s'; fmt=mbw ;;
  osu_barrier) title="Barrier Latency Test"; cols='# Avg Latency(us)'; fmt=barrier ;;
  osu_bcast) title="Broadcast Latency Test"; fmt=coll ;;
  osu_reduce) title="Reduce Latency Test"; fmt=coll ;;
  osu_allreduce) title="Allreduce Latency Test"; fmt=coll ;;
  osu_allgather) title="Allgather Latency Test"; fmt=coll ;;
  osu_alltoall) title="All-to-All Personalized Exchange Latency Test"; fmt=coll ;;
  *) fail "unknown program" ;;
esac
[ "$fmt" = coll ] && cols='# Size         Avg Latency(us)'
fullcols='     Min Latency(us)     Max Latency(us)  Iterations'
[ $full -eq 1 ] && cols="$cols$fullcols"
grep -qx "# OSU MPI $title v7\.[0-9]*" "$out" || fail "no title line '# OSU MPI $title v7.x'"
grep -qxF "$cols" "$out" || fail "no column line '$cols'"
if [ "$fmt" = mbw ]; then
  grep -qx '# \[ pairs: [0-9]* \] \[ window size: [0-9]* \]' "$out" || fail "no pairs/window line"
fi
# Data rows: every line that does not start with '#' and is not empty.
n=$(awk -v fmt=$fmt -v full=$full -v iters="$iters" '
  /^#/ || /^$/ { next }
  {
    rows++
    ok = 1
    num = "[0-9]+\\.[0-9][0-9]"
    if (fmt == "barrier") { want = 17; re = "^ *" num }
    else if (fmt == "mbw") { want = 50; re = "^[0-9]+ +" num " +" num }
    else { want = 30; re = "^[0-9]+ +" num }
    if (full) { want += 52; re = re " +" num " +" num " +[0-9]+" }
    if (length($0) != want || $0 !~ (re "$")) ok = 0
    # sizes: 0 or a power of two, each row twice the one before (0 is followed by 1)
    if (fmt != "barrier") {
      size = $1 + 0
      if (rows > 1 && size != (last ? 2 * last : 1)) ok = 0
      last = size
    }
    if (full) {
      avg = $(NF - 3) + 0; mn = $(NF - 2) + 0; mx = $(NF - 1) + 0
      if (mn > avg || avg > mx) ok = 0
      if (iters != "" && $NF != iters) ok = 0
    }
    if (!ok) { print "bad row: [" $0 "]" > "/dev/stderr"; bad++ }
  }
  END { print (bad ? -1 : rows + 0) }' "$out")
[ "$n" = "$rows" ] || fail "expected $rows well-formed data rows, got $n"
echo "ok $prog ($rows rows)"
