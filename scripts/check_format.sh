#!/bin/sh
# scripts/check_format.sh [-d] [PATH...] — clang-format in check mode (.clang-format at the root):
# lists every C/C++ file of src/ and tests/ (or of the given paths) that clang-format would change,
# and exits 1 if there is one; 0 when all are formatted. -d also prints each file's diff.
# Changes nothing. To format: clang-format -i FILE... (CI runs this check: scripts/test.sh).
# Files: those git knows (tracked, or new and not ignored), or every file without git.
set -eu
cd "$(dirname "$0")/.."
diff=0
if [ "${1:-}" = -d ]; then diff=1; shift; fi
[ $# -gt 0 ] || set -- src tests
CF=${CLANG_FORMAT:-clang-format}
if ! command -v "$CF" >/dev/null 2>&1; then
  echo "check_format: $CF not found (scripts/deps.sh installs clang-format)" >&2
  exit 2
fi
list=$(mktemp)
trap 'rm -f "$list"' EXIT
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files -co --exclude-standard -- "$@"
else
  find "$@" -type f
fi | grep -E '\.(c|h|cc|cpp|hpp|cu|cuh)$' | sort >"$list"

total=0 bad=0
while IFS= read -r f; do
  [ -f "$f" ] || continue
  total=$((total + 1))
  if ! "$CF" --dry-run --Werror "$f" >/dev/null 2>&1; then
    bad=$((bad + 1))
    echo "not formatted: $f"
    if [ "$diff" = 1 ]; then
      "$CF" "$f" | diff -u "$f" - | sed '1,2d' || true
    fi
  fi
done <"$list"
if [ "$bad" -gt 0 ]; then
  echo "check_format: $bad of $total files differ from what clang-format" \
       "$($CF --version | sed 's/.*version //') makes of them (-d shows how; clang-format -i FILE fixes)"
  exit 1
fi
echo "check_format: all $total files formatted"
