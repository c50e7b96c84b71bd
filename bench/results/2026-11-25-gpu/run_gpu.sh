#!/usr/bin/env bash
# bench/results/2026-11-25-gpu/run_gpu.sh PART — what ran on the GPU machine for the issue on
# unchanged OSU runs (nvidia-h*-x2: two GPUs; each process takes GPU LOCAL_RANK % 2, as OSU does).
# From the repository root with the staged build carried in .gpu-carry/gpu (scripts/gpu_stage.sh)
# and the real OSU 7.4 built with --enable-cuda by our wrappers in .gpu-carry/osu-cuda:
#   PART tests: the gpu-labelled CTest suite (with the nvcc-built CUDA-runtime programs)
#   PART osu LAYOUT...: every OSU benchmark with -d cuda and its defaults, in each layout
#   PART osu-groups LAYOUT REGEX...: the benchmarks matching each REGEX in LAYOUT, the groups run
#        side by side, each ampirun under its own taskset of 8 cores (so their bindings differ)
set -uo pipefail
source .gpu-carry/gpu/gpu_env.sh
export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
out=${OUT:-/tmp/out}
mkdir -p "$out"
nvidia-smi -L
part=$1
shift
case $part in
  tests)
    ctest --test-dir "$AMPI_BUILD/tests/gpu" --output-on-failure -j4 2>&1 | tee "$out/ctest-gpu.log" | tail -40
    ;;
  osu)
    layouts=()
    for l in "$@"; do layouts+=(--layout "$l"); done
    bash .gpu-carry/osu_suite.sh --ampirun "$AMPI_BUILD/bin/ampirun" --timeout 100 \
      --log /tmp/osu-logs "${layouts[@]}" .gpu-carry/osu-cuda -- -d cuda 2>&1 | tee -a "$out/osu-cuda.txt"
    tar czf "$out/osu-logs-$(date +%H%M%S).tgz" -C /tmp osu-logs
    ;;
  osu-groups)
    layout=$1
    shift
    g=0
    for re in "$@"; do
      taskset -c $((g * 8))-$((g * 8 + 7)) bash .gpu-carry/osu_suite.sh --ampirun "$AMPI_BUILD/bin/ampirun" \
        --timeout 300 --log /tmp/osu-logs --layout "$layout" --only "$re" .gpu-carry/osu-cuda -- -d cuda \
        >"$out/osu-cuda-group$g.txt" 2>&1 &
      g=$((g + 1))
    done
    wait
    cat "$out"/osu-cuda-group*.txt
    tar czf "$out/osu-logs-groups.tgz" -C /tmp osu-logs
    ;;
esac
