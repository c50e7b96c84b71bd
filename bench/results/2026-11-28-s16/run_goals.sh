#!/bin/sh
# Issue 17's goals on the session-16 machine (AMD EPYC family 26, Zen 5, 2 vCPUs), one after the
# other on a quiet machine; each script's own summary lands in its folder here.
#   bench/results/2026-11-28-s16/run_goals.sh BUILD
set -u
B=${1:?usage: run_goals.sh BUILD}
D=$(dirname "$0")
{ date -u; uptime; lscpu | grep -E "Model name|^CPU\(s\)|family|Model:"; } > "$D/machine.txt"
bench/compare.sh --build "$B" --rounds 5 --out "$D/compare" > "$D/compare.log" 2>&1
bench/lat_goals.sh --rounds 5 --out "$D/lat-goals" "$B" > "$D/lat-goals.log" 2>&1
bench/nbc_compare.sh "$B" "$B" 5 > "$D/nbc_compare.txt" 2>&1
bench/loaded_bibw.sh --rounds 3 --out "$D/loaded-bibw" "$B" > "$D/loaded-bibw.log" 2>&1
