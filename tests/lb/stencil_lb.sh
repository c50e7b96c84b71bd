#!/bin/sh
# tests/lb/stencil_lb.sh AMPIRUN LB_STENCIL — bench/lb_stencil on 2 PEs of one process under each
# AMPI_LB: the stencil's result (its checksum) must not depend on the strategy (where ranks ran),
# the program must see both PEs, and with a strategy that measures busy time (greedy, refine) the
# run must not fail. Once AMPI_Migrate exists (issue 22's migration), ranks move between the
# points and the same checks then cover data that followed its rank.
set -eu
AMPIRUN=$1
PROG=$2
ref=
for lb in none greedy refine rotate; do
  for mode in "" --drift; do
    out=$(AMPI_LB=$lb "$AMPIRUN" -np 1 --pes-per-process 2 --vp 12 "$PROG" --iters 24 --every 4 \
      --updates 20000 $mode)
    line=$(echo "$out" | grep '^lb_stencil ')
    sum=$(echo "$line" | awk '{ for (i = 1; i < NF; i++) if ($i == "checksum") print $(i + 1) }')
    pes=$(echo "$line" | awk '{ for (i = 1; i < NF; i++) if ($i == "pes") print $(i + 1) }')
    [ "$pes" = 2 ] || { echo "AMPI_LB=$lb $mode: saw $pes PEs, not 2: $line"; exit 1; }
    key="$mode:$sum"
    case "$ref" in
    *"|$mode:"*) echo "$ref" | grep -q "|$key|" || {
      echo "AMPI_LB=$lb $mode: checksum $sum differs from AMPI_LB=none's ($ref)"
      exit 1
    } ;;
    *) ref="$ref|$key|" ;;
    esac
    echo "AMPI_LB=$lb $mode: $line"
  done
done
