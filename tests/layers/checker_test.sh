#!/bin/sh
# tests/layers/checker_test.sh PYTHON CHECKER — tests scripts/check_layers.py on the fixture tree
# of tests/layers/fixture: its forbidden includes must fail the check, each named by file, line
# and include; temporary allowances must make it pass, and unneeded ones must be noted.
set -u
py=$1
checker=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$here/fixture"
fail=0

"$py" "$checker" --config layers.conf --src src >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
if [ "$rc" -ne 1 ]; then
  echo "FAIL: the check exited $rc on forbidden includes (expected 1)"; fail=1
fi
expect() {
  grep -qF -- "$1" "$tmp/out" || { echo "FAIL: no line containing: $1"; fail=1; }
}
expect 'src/ult/task.hpp:3: includes "core/pe.hpp": ult may not include core'
expect 'src/matching/engine.hpp:4: includes "ucx/transport.hpp": matching may not include ucx'
expect "src/core/pe.hpp:3: reaches <ucp/api/ucp.h> (only ucx may include it) through matching/engine.hpp -> ucx/transport.hpp"
expect "src/extra/: module 'extra' is not declared"
expect 'check_layers: 6 violation(s) of the layers'

# The same tree with each violation allowed (one allowance too many): passes, with a note.
{ cat layers.conf
  echo "module extra:"
  echo "temporary ult/task.hpp core/pe.hpp"
  echo "temporary matching/engine.hpp ucx/transport.hpp"
  echo "temporary core/pe.hpp ucx/transport.hpp  # not needed"
} >"$tmp/allowed.conf"
"$py" "$checker" --config "$tmp/allowed.conf" --src src >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
if [ "$rc" -ne 0 ]; then
  echo "FAIL: the check exited $rc with every violation allowed (expected 0)"; fail=1
fi
expect 'temporary allowance core/pe.hpp -> ucx/transport.hpp is no longer needed'
expect 'check_layers: 2 temporary allowance(s) in use, no other violation'
[ "$fail" -eq 0 ] && echo "ok: check_layers.py catches the fixture's forbidden includes"
exit "$fail"
