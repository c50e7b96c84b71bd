#!/bin/sh
# tests/tools/forward_signal.sh AMPIRUN PROBE WORKDIR SIGNAL STATUS ERE
# Starts `AMPIRUN PROBE wait-term` in the background, waits until the probe is ready, sends SIGNAL
# to ampirun (not to the probe), and checks that ampirun exits with STATUS and that its output
# matches ERE: ampirun must have forwarded the signal.
set -u
[ $# -eq 6 ] || { echo "usage: $0 AMPIRUN PROBE WORKDIR SIGNAL STATUS ERE" >&2; exit 2; }
ampirun=$1 probe=$2 work=$3 sig=$4 want=$5 re=$6

rm -rf "$work" && mkdir -p "$work" || exit 1
out=$work/output

"$ampirun" "$probe" wait-term >"$out" 2>&1 &
pid=$!
tries=0
until grep -q '^ready$' "$out" 2>/dev/null; do
  tries=$((tries + 1))
  if [ "$tries" -gt 300 ] || ! kill -0 "$pid" 2>/dev/null; then
    echo "FAIL: the probe did not become ready"
    cat "$out"
    kill -KILL "$pid" 2>/dev/null
    exit 1
  fi
  sleep 0.1
done
kill "-$sig" "$pid"
# ampirun can only end once the probe got the signal; give up after 20 s.
(sleep 20 && kill -KILL "$pid") </dev/null >/dev/null 2>&1 &
watchdog=$!
wait "$pid"
rc=$?
kill "$watchdog" 2>/dev/null
[ "$rc" = 137 ] && echo "FAIL: ampirun did not end after SIG$sig (not forwarded?)"
sed 's/^/| /' "$out"
echo "exit status: $rc"
failed=0
if [ "$rc" != "$want" ]; then
  echo "FAIL: expected exit status $want"
  failed=1
fi
if ! grep -Eq -e "$re" "$out"; then
  echo "FAIL: no output line matches: $re"
  failed=1
fi
[ "$failed" = 0 ] && echo PASS
exit "$failed"
