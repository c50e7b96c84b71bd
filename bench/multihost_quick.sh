#!/bin/sh
# bench/multihost_quick.sh [BUILD] [OUT] — a shorter bench/multihost_compare.sh (which needs
# ~30 min on the loaded 2-vCPU VM: ampi's small-message latency across the simulated hosts is
# about 1 ms): osu_latency up to 4 KiB (300 iterations) and osu_bw at 8 KiB, 64 KiB and 1 MiB
# (20 iterations), ampi under srun and under `ampirun --host` (the launcher must not matter),
# Open MPI (default pml, and ob1 with the tcp btl) under srun, rounds interleaved. ampirun runs
# with --bind-to none: the simulated hosts share this machine's cores, and each host's ampirun
# binds its first process to core 0, so both processes shared one core (650-890 us per round trip
# instead of 13 us, bench/results/2026-11-26-s6/multihost_ampirun_bind.txt); srun binds nothing. Binaries from
# multihost_compare.sh's --out dir (OUT/bin/{ampi,ompi}); needs root.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "${1:-$ROOT/build}" && pwd)
OUT=${2:-$B/bench-results-multihost}
[ -x "$OUT/bin/ampi/osu_latency" ] && [ -x "$OUT/bin/ompi/osu_latency" ] ||
  { echo "build the OSU binaries first (bench/multihost_compare.sh --out $OUT)" >&2; exit 1; }
LAT="-m 0:4096 -i 300 -x 30"
BW="-m 8192:1048576 -i 20 -x 2"
cmd="set -e; for r in 1 2; do for p in osu_latency osu_bw; do
  a=\"\$LAT\"; [ \$p = osu_bw ] && a=\"\$BW\"
  echo \"== round \$r \$p ampi srun\"; srun --mpi=pmix -N 2 -n 2 $OUT/bin/ampi/\$p \$a
  echo \"== round \$r \$p ampi ampirun\"; $B/bin/ampirun --host node1,node2 --bind-to none $OUT/bin/ampi/\$p \$a
  echo \"== round \$r \$p ompi srun\"; srun --mpi=pmix -N 2 -n 2 $OUT/bin/ompi/\$p \$a
  echo \"== round \$r \$p ompi_tcp srun\"; OMPI_MCA_pml=ob1 OMPI_MCA_btl=tcp,self srun --mpi=pmix -N 2 -n 2 $OUT/bin/ompi/\$p \$a
done; done"
LAT=$LAT BW=$BW AMPI_MULTIHOST_COMMAND="LAT='$LAT' BW='$BW'; $cmd" bash "$ROOT/tests/multihost/multihost_test.sh" "$B" 2
