#!/bin/sh
# tests/gpu/with_mps.sh COMMAND... — runs COMMAND under a private CUDA MPS daemon (pipe and log
# directories of its own, stopped afterwards), the way a user starts one for a job whose
# processes share a GPU. Exits 77 (skipped) where nvidia-cuda-mps-control is not available.
set -u
ctl=$(command -v nvidia-cuda-mps-control 2>/dev/null || true)
[ -n "$ctl" ] || [ ! -x /usr/local/nvidia/bin/nvidia-cuda-mps-control ] ||
  ctl=/usr/local/nvidia/bin/nvidia-cuda-mps-control
[ -n "$ctl" ] || { echo "with_mps.sh: nvidia-cuda-mps-control not found: skipped"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/ampi-test-mps.XXXXXX")
export CUDA_MPS_PIPE_DIRECTORY=$dir/pipe CUDA_MPS_LOG_DIRECTORY=$dir/log
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
"$ctl" -d </dev/null >/dev/null 2>&1 || { echo "with_mps.sh: the MPS daemon did not start"; rm -rf "$dir"; exit 1; }
"$@"
status=$?
echo quit | "$ctl" >/dev/null 2>&1
rm -rf "$dir"
exit $status
