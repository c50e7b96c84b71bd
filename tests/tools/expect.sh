#!/bin/sh
# tests/tools/expect.sh — run a command and check its exit status and output (stdout and stderr
# together). Fails (exit 1) when any check fails; prints the command, its output and the verdicts.
#
#   expect.sh [-s STATUS] [-e ERE]... [-n ERE]... [-c COUNT ERE]... [-E NAME=VALUE]... -- cmd args...
#     -s STATUS      the exit status that cmd must return (default 0)
#     -e ERE         some output line must match the extended regular expression
#     -n ERE         no output line may match
#     -c COUNT ERE   exactly COUNT output lines must match
#     -E NAME=VALUE  run cmd with this environment variable set
set -u

status=0
checks=
nl='
'
while [ $# -gt 0 ]; do
  case $1 in
    -s) status=$2; shift 2 ;;
    -e | -n) checks="$checks$1 $2$nl"; shift 2 ;;
    -c) checks="$checks-c $2 $3$nl"; shift 3 ;;
    -E) export "${2%%=*}=${2#*=}"; shift 2 ;;
    --) shift; break ;;
    *) echo "expect.sh: bad argument '$1'" >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "expect.sh: no command" >&2; exit 2; }

out=$(mktemp "${TMPDIR:-/tmp}/ampi-expect.XXXXXX") || exit 2
trap 'rm -f "$out"' EXIT

printf '$'
printf ' %s' "$@"
printf '\n'
"$@" >"$out" 2>&1 </dev/null
rc=$?
sed 's/^/| /' "$out"
echo "exit status: $rc"

failed=0
if [ "$rc" != "$status" ]; then
  echo "FAIL: expected exit status $status, got $rc"
  failed=1
fi
while IFS= read -r check; do
  [ -n "$check" ] || continue
  kind=${check%% *}
  rest=${check#* }
  case $kind in
    -e)
      if ! grep -Eq -e "$rest" "$out"; then
        echo "FAIL: no output line matches: $rest"
        failed=1
      fi
      ;;
    -n)
      if grep -Eq -e "$rest" "$out"; then
        echo "FAIL: some output line matches: $rest"
        failed=1
      fi
      ;;
    -c)
      want=${rest%% *}
      re=${rest#* }
      got=$(grep -Ec -e "$re" "$out")
      if [ "$got" != "$want" ]; then
        echo "FAIL: $got output lines (expected $want) match: $re"
        failed=1
      fi
      ;;
  esac
done <<CHECKS
$checks
CHECKS
[ "$failed" = 0 ] && echo "PASS"
exit "$failed"
