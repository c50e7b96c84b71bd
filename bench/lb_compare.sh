#!/bin/bash
# bench/lb_compare.sh — issue 22's load-balancing benchmark: bench/lb_stencil over 2 PEs of one
# process (-np 1 --pes-per-process 2) with 16, 32 and 64 ranks, under AMPI_LB=none, greedy and
# refine, and the perfectly balanced variant (the same total work spread evenly: the time a
# balancer aims for), interleaved run by run so that all see the same load; the median of ROUNDS
# runs each, and the ratio to balanced (goal: within 1.15 with greedy and refine). Optionally the
# same program under Charm++'s AMPI (+p2 +vpN, +balancer GreedyLB / RefineLB) and Open MPI.
#
#   bench/lb_compare.sh BUILD [AMPI_DIR]
#     BUILD     our build directory (its bin/mpicc and bin/ampirun)
#     AMPI_DIR  a Charm++ build with AMPI (e.g. /work/ext/charm/netlrts-linux-x86_64, run through
#               its charmrun ++local); empty: no Charm++ rows
#   environment: RANKS ("16 32 64"), ROUNDS (3), MODES ("fixed drift"), ARGS (extra lb_stencil
#     arguments, e.g. "--iters 200 --every 10"), OMPI (0; 1: Open MPI rows, N processes on 2
#     cores, no migration), OUT (bench/results/lb/<date>.log: the raw lines are kept there)
#
# Until AMPI_Migrate exists in BUILD (issue 22's migration branch), lb_stencil runs without
# migration points ("lb absent" in its line) and the greedy/refine rows equal none's.
set -euo pipefail
BUILD=${1:?usage: lb_compare.sh BUILD [AMPI_DIR]}
AMPI_DIR=${2:-}
RANKS=${RANKS:-"16 32 64"}
ROUNDS=${ROUNDS:-3}
MODES=${MODES:-"fixed drift"}
ARGS=${ARGS:-}
OMPI=${OMPI:-0}
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$HERE/results/lb/$(date -u +%Y-%m-%dT%H%M).log}
mkdir -p "$(dirname "$OUT")"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

"$BUILD/bin/mpicc" -O2 -o "$T/ours" "$HERE/lb_stencil.c"
if [ -n "$AMPI_DIR" ]; then
  "$AMPI_DIR/bin/ampicc" -O2 -module CommonLBs -o "$T/charm" "$HERE/lb_stencil.c" >/dev/null
fi
[ "$OMPI" = 1 ] && mpicc.openmpi -O2 -o "$T/ompi" "$HERE/lb_stencil.c"

# run <variant> <N> <mode>: appends "<variant> <N> <mode> <ms_per_iter> <load_mean>" to $T/raw
run() {
  local v=$1 n=$2 mode=$3 flags="" line
  case $mode in
  drift) flags="--drift" ;;
  esac
  case $v in
  balanced) flags="--balanced" ;;
  esac
  case $v in
  none | greedy | refine | balanced)
    line=$(AMPI_LB=$([ "$v" = balanced ] && echo none || echo "$v") timeout 600 \
      "$BUILD/bin/ampirun" -np 1 --pes-per-process 2 --vp "$n" "$T/ours" $flags $ARGS) ;;
  charm-*)
    local lb=GreedyLB
    [ "$v" = charm-refine ] && lb=RefineLB
    [ "$v" = charm-balanced ] && flags="--balanced"
    line=$(cd "$T" && timeout 600 "$AMPI_DIR/bin/charmrun" +p2 ./charm +vp"$n" +balancer $lb \
      $flags $ARGS ++local ++quiet) ;;
  ompi)
    line=$(timeout 600 mpirun.openmpi --allow-run-as-root --oversubscribe -np "$n" "$T/ompi" \
      $flags $ARGS) ;;
  esac
  echo "$v $n $mode $line" >>"$OUT"
  echo "$line" | awk -v v="$v" -v n="$n" -v m="$mode" '$1 == "lb_stencil" {
    for (i = 2; i < NF; i++) { if ($i == "ms_per_iter") t = $(i + 1); if ($i == "load_mean") l = $(i + 1) }
    print v, n, m, t, l }' >>"$T/raw"
}

VARIANTS="none greedy refine balanced"
[ -n "$AMPI_DIR" ] && VARIANTS="$VARIANTS charm-greedy charm-refine charm-balanced"
[ "$OMPI" = 1 ] && VARIANTS="$VARIANTS ompi"
echo "# lb_compare $(date -u) BUILD=$BUILD ARGS=$ARGS" >>"$OUT"
for r in $(seq "$ROUNDS"); do
  for n in $RANKS; do
    for mode in $MODES; do
      for v in $VARIANTS; do
        run "$v" "$n" "$mode"
      done
    done
  done
done

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
{
  printf '%-15s %5s %6s %12s %10s %12s\n' variant ranks mode ms_per_iter load_mean "/balanced"
  for n in $RANKS; do
    for mode in $MODES; do
      bal=$(awk -v n="$n" -v m="$mode" '$1 == "balanced" && $2 == n && $3 == m { print $4 }' "$T/raw" | median)
      cbal=$(awk -v n="$n" -v m="$mode" '$1 == "charm-balanced" && $2 == n && $3 == m { print $4 }' "$T/raw" | median)
      for v in $VARIANTS; do
        t=$(awk -v v="$v" -v n="$n" -v m="$mode" '$1 == v && $2 == n && $3 == m { print $4 }' "$T/raw" | median)
        l=$(awk -v v="$v" -v n="$n" -v m="$mode" '$1 == v && $2 == n && $3 == m { print $5 }' "$T/raw" | median)
        ref=$bal
        case $v in charm-*) ref=$cbal ;; esac
        printf '%-15s %5s %6s %12s %10s %12s\n' "$v" "$n" "$mode" "$t" "$l" \
          "$(awk -v t="$t" -v b="$ref" 'BEGIN { if (b > 0) printf "%.2f", t / b; else print "-" }')"
      done
    done
  done
  echo "(medians of $ROUNDS runs; ms_per_iter includes the migration points; load_mean: the PEs'"
  echo " max/avg busy time, mean over intervals; charm-* rows are relative to charm-balanced)"
} | tee -a "$OUT"
