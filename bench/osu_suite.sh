#!/usr/bin/env bash
# bench/osu_suite.sh — runs every benchmark of a real OSU Micro-Benchmarks build (7.x, built with
# our mpicc/mpicxx; never part of this repository) with its defaults under ampirun, in each of the
# given layouts, and prints one line per run: layout, benchmark, exit status, seconds. The exit
# status is that of the worst run (0 when every run exited 0). Nothing in CI uses it: the OSU
# suite is fetched and built by hand (README, "The real OSU 7 suite").
#
# Usage: bench/osu_suite.sh [options] OSU_BUILD_DIR [-- extra benchmark arguments]
#   --ampirun PATH     ampirun to use (default: build/bin/ampirun of this tree)
#   --layout "ARGS"    ampirun arguments of one layout; repeatable
#                      (default: "-np 1 --vp 2", "-np 2", "-np 2 --vp 8")
#   --only REGEX       run only the benchmarks whose name matches
#   --timeout S        per run (default 600)
#   --log DIR          keep each run's output in DIR/<layout>.<benchmark>.log
# Benchmarks that need exactly two ranks are skipped in layouts of another size, as OSU itself
# refuses them (it exits 1 there under any MPI); so are the start-up benchmarks (osu_init,
# osu_hello), which take no benchmark arguments.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ampirun=$root/build/bin/ampirun
layouts=()
only=.
timeout_s=600
logdir=
while [[ $# -gt 0 ]]; do
  case $1 in
    --ampirun) ampirun=$2; shift 2 ;;
    --layout) layouts+=("$2"); shift 2 ;;
    --only) only=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --log) logdir=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
dir=${1:?usage: osu_suite.sh [options] OSU_BUILD_DIR [-- args]}
shift
[[ ${1:-} == -- ]] && shift
extra=("$@")
[[ ${#layouts[@]} -gt 0 ]] || layouts=("-np 1 --vp 2" "-np 2" "-np 2 --vp 8")
[[ -n $logdir ]] && mkdir -p "$logdir"

# Two-rank benchmarks: OSU's pt2pt tests other than the multi-pair ones, and the one-sided ones.
two_only='^osu_(latency|latency_mt|latency_mp|latency_persistent|bw|bibw|bw_persistent|bibw_persistent|put_latency|get_latency|put_bw|get_bw|put_bibw|acc_latency|cas_latency|fop_latency|get_acc_latency)$'
mapfile -t progs < <(find "$dir/c/mpi" -type f -perm -u+x -name 'osu_*' ! -name '*.o' | sort)
[[ ${#progs[@]} -gt 0 ]] || { echo "osu_suite: no osu_* programs under $dir/c/mpi" >&2; exit 2; }

worst=0
printf '%-22s %-32s %6s %8s\n' "# layout" "benchmark" "status" "seconds"
for layout in "${layouts[@]}"; do
  read -ra largs <<<"$layout"
  # ranks in this layout: --vp V, else -np N
  n=1
  for ((i = 0; i < ${#largs[@]}; i++)); do
    [[ ${largs[i]} == -np || ${largs[i]} == -n ]] && n=${largs[i + 1]}
  done
  for ((i = 0; i < ${#largs[@]}; i++)); do
    [[ ${largs[i]} == --vp ]] && n=${largs[i + 1]}
  done
  for prog in "${progs[@]}"; do
    name=$(basename "$prog")
    [[ $name =~ $only ]] || continue
    [[ $n -ne 2 && $name =~ $two_only ]] && continue
    args=("${extra[@]}")
    [[ $name == osu_init || $name == osu_hello ]] && args=()
    tag=$(echo "$layout" | tr -s ' -' '_' | sed 's/^_//')
    log=${logdir:+$logdir/$tag.$name.log}
    start=$(date +%s.%N)
    timeout -k 5 "$timeout_s" "$ampirun" "${largs[@]}" "$prog" "${args[@]}" >"${log:-/dev/null}" 2>&1
    rc=$?
    end=$(date +%s.%N)
    printf '%-22s %-32s %6d %8.1f\n' "$layout" "$name" "$rc" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')"
    [[ $rc -ne 0 && $worst -eq 0 ]] && worst=$rc
  done
done
exit "$worst"
