#!/bin/sh
# tests/privatize/gdb_test.sh PROGRAM — debuggability of per-rank copies: runs priv_globals with two
# ranks under gdb (no launcher, "+vp 2"), stops in priv_checked() once in each rank's copy and
# checks that gdb reads that rank's own static variables there (my_rank, table[1] = rank*256+1),
# through the copies' debug link. Skipped (77) without gdb.
set -u
prog=$1
command -v gdb >/dev/null 2>&1 || { echo "gdb not found: skipped"; exit 77; }
out=$(timeout 120 gdb --batch -nx -ex 'set breakpoint pending on' -ex 'break priv_checked' \
  -ex run -ex 'up' -ex 'printf "stop rank=%d table1=%ld\n", my_rank, table[1]' -ex 'continue' \
  -ex 'up' -ex 'printf "stop rank=%d table1=%ld\n", my_rank, table[1]' -ex 'info sharedlibrary' \
  -ex kill --args "$prog" +vp 2 2>&1)
echo "$out" | grep -E "^stop|priv_globals\.rank|Breakpoint"
ok=1
for r in 0 1; do
  echo "$out" | grep -qx "stop rank=$r table1=$((r * 256 + 1))" || { echo "FAIL: no stop in rank $r"; ok=0; }
  echo "$out" | grep -Eq "Yes +/.*/priv_globals\.rank$r\$" || { echo "FAIL: no symbols for rank $r's copy"; ok=0; }
done
[ $ok = 1 ] && echo "ok gdb_test"
[ $ok = 1 ]
