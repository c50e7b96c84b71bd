#!/bin/sh
# tests/mpi/expect_run.sh — run a command (an ampirun job) and check its exit status and output.
#
# Usage: expect_run.sh [checks...] -- command [args...]
#   -s N        the exit status must be exactly N
#   -S          the exit status must be non-zero
#   -e REGEX    some line of stderr must match REGEX (grep -E)
#   -E REGEX    no line of stderr may match REGEX
#   -o REGEX    some line of stdout must match REGEX
#   -O REGEX    no line of stdout may match REGEX
#   -l N:REGEX  exactly N lines of stdout match REGEX, and they are all distinct
# Without -s or -S the exit status must be 0. On failure, prints what went wrong and the tails of
# both outputs, and exits 1.
set -u

status_mode=zero
want_status=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ampi_expect.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/checks"

add_check() { printf '%s\t%s\n' "$1" "$2" >>"$tmp/checks"; }

while [ $# -gt 0 ]; do
  case $1 in
  -s) status_mode=exact; want_status=$2; shift 2 ;;
  -S) status_mode=nonzero; shift ;;
  -e | -E | -o | -O | -l) add_check "$1" "$2"; shift 2 ;;
  --) shift; break ;;
  *) echo "expect_run.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "expect_run.sh: missing command" >&2; exit 2; }

"$@" >"$tmp/out" 2>"$tmp/err"
status=$?

failed=0
fail() { echo "expect_run.sh: FAIL: $*"; failed=1; }

case $status_mode in
zero) [ "$status" -eq 0 ] || fail "exit status $status, expected 0" ;;
exact) [ "$status" -eq "$want_status" ] || fail "exit status $status, expected $want_status" ;;
nonzero) [ "$status" -ne 0 ] || fail "exit status 0, expected a failure" ;;
esac

tab=$(printf '\t')
while IFS="$tab" read -r kind arg; do
  case $kind in
  -e) grep -Eq -- "$arg" "$tmp/err" || fail "stderr has no line matching '$arg'" ;;
  -E) ! grep -Eq -- "$arg" "$tmp/err" || fail "stderr has a line matching '$arg'" ;;
  -o) grep -Eq -- "$arg" "$tmp/out" || fail "stdout has no line matching '$arg'" ;;
  -O) ! grep -Eq -- "$arg" "$tmp/out" || fail "stdout has a line matching '$arg'" ;;
  -l)
    n=${arg%%:*}
    re=${arg#*:}
    got=$(grep -Ec -- "$re" "$tmp/out")
    distinct=$(grep -E -- "$re" "$tmp/out" | sort -u | wc -l | tr -d ' ')
    [ "$got" -eq "$n" ] || fail "$got stdout lines match '$re', expected $n"
    [ "$distinct" -eq "$got" ] || fail "only $distinct of the $got stdout lines matching '$re' are distinct"
    ;;
  esac
done <"$tmp/checks"

echo "expect_run.sh: exit status $status; stdout $(wc -l <"$tmp/out" | tr -d ' ') lines, stderr $(wc -l <"$tmp/err" | tr -d ' ') lines"
if [ "$failed" -ne 0 ]; then
  echo "---- stdout (last 40 lines) ----"
  tail -n 40 "$tmp/out"
  echo "---- stderr (last 40 lines) ----"
  tail -n 40 "$tmp/err"
  exit 1
fi
echo "---- stderr (first 20 lines) ----"
head -n 20 "$tmp/err"
exit 0
