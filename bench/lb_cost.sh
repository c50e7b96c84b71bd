#!/bin/bash
# bench/lb_cost.sh — what measuring busy time per rank (AMPI_LB other than none) costs, and that
# it costs nothing when off: (1) the scheduler's switch alone, bench/context_switch without and
# with timing, interleaved; (2) the 8-byte ping-pong between 2 ranks of one process, BASE (main)
# against BUILD with AMPI_LB unset, and BUILD with AMPI_LB=greedy (timing on), interleaved;
# (3) instructions per 8-byte round trip counted by callgrind (load-independent: the VM has no
# hardware counters), for the same three. Medians of ROUNDS rounds.
#
#   bench/lb_cost.sh BASE_BUILD BUILD [ROUNDS (7)]
# (bench/compare_builds.sh BASE_BUILD BUILD gives the full latency table with timing off.)
set -euo pipefail
BASE=${1:?usage: lb_cost.sh BASE_BUILD BUILD [ROUNDS]}
NEW=${2:?usage: lb_cost.sh BASE_BUILD BUILD [ROUNDS]}
ROUNDS=${3:-7}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# (1) ns per switch
for i in $(seq "$ROUNDS"); do
  "$NEW/bench/context_switch" 2 3000000 | awk '{ for (i = 1; i <= NF; i++) if ($i == "ns") print $(i - 1) }' >>"$T/cs_off"
  "$NEW/bench/context_switch" 2 3000000 timing | awk '{ for (i = 1; i <= NF; i++) if ($i == "ns") print $(i - 1) }' >>"$T/cs_on"
done
echo "context switch, ns (median of $ROUNDS): timing off $(median <"$T/cs_off"), on $(median <"$T/cs_on")"

# (2) latency
pp() { # build [AMPI_LB] -> 8 B one-way latency, us, 2 ranks of one process
  env ${2:+AMPI_LB=$2} "$1/bin/ampirun" -np 1 --vp 2 "$1/bench/pingpong" 8 8 9 2>/dev/null |
    awk '$1 == 8 { print $2 }'
}
for i in $(seq "$ROUNDS"); do
  pp "$BASE" >>"$T/pp_base"
  pp "$NEW" >>"$T/pp_off"
  pp "$NEW" greedy >>"$T/pp_on"
done
b=$(median <"$T/pp_base") o=$(median <"$T/pp_off") g=$(median <"$T/pp_on")
echo "pingpong 8 B, 2 ranks of one process, one-way us (median of $ROUNDS): base $b, new (AMPI_LB unset) $o ($(awk -v a="$o" -v b="$b" 'BEGIN { printf "%.2f", a / b }')x), new AMPI_LB=greedy $g ($(awk -v a="$g" -v b="$b" 'BEGIN { printf "%.2f", a / b }')x)"

# (3) instructions per round trip: 200,000 round trips minus none (pingpong's 16..8 range is empty)
if command -v valgrind >/dev/null 2>&1; then
  ir() { # build [AMPI_LB] args... -> instructions of the whole job
    local b=$1 lb=$2
    shift 2
    env AMPI_VP=2 ${lb:+AMPI_LB=$lb} valgrind --tool=callgrind --callgrind-out-file=/dev/null \
      "$b/bench/pingpong" "$@" 2>&1 | awk '/Collected/ { print $NF; exit }'
  }
  for w in "base:$BASE:" "off:$NEW:" "greedy:$NEW:greedy"; do
    IFS=: read -r name b lb <<<"$w"
    one=$(ir "$b" "$lb" 8 8 1)
    none=$(ir "$b" "$lb" 16 8 1)
    echo "$name $(awk -v a="$one" -v z="$none" 'BEGIN { printf "%.1f", (a - z) / 200000 }')"
  done | awk '{ printf "%s%s %s", (NR > 1 ? ", " : "instructions per 8-byte round trip (callgrind): "), $1, $2 } END { print "" }'
fi
echo "base: $BASE  new: $NEW"
