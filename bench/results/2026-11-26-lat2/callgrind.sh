#!/usr/bin/env bash
# bench/results/2026-11-26-lat2/callgrind.sh BUILD [OUT] — instructions per 8-byte message on the
# send and receive paths between two processes, counted by valgrind's callgrind (this VM exposes
# no hardware counters to perf): osu_latency -m 8:8 -i 5000 -x 100 under ampirun, then the
# inclusive count per call of the functions a message passes through, in rank 0's process. The
# counts do not depend on load, except the spinning of a waiting rank (not listed).
set -u
B=$(realpath "${1:?usage: callgrind.sh BUILD [OUT]}")
OUT=${2:-/tmp/cg-$(basename "$(dirname "$B")")}
mkdir -p "$OUT" && { [ -n "${REUSE:-}" ] || rm -f "$OUT"/cg.*; }
[ -n "${REUSE:-}" ] || LD_LIBRARY_PATH=$B/lib timeout 600 "$B/bin/ampirun" -np 2 valgrind --tool=callgrind \
  --callgrind-out-file="$OUT/cg.%p" "${OSU_AMPI:-/work/ext/osu-host}/c/mpi/pt2pt/standard/osu_latency" \
  -m 8:8 -i 5000 -x 100 > "$OUT/out.txt" 2> "$OUT/err.txt" || { echo "run failed"; exit 1; }
f=$(ls "$OUT"/cg.* | head -1)
callgrind_annotate --inclusive=yes --tree=calling --threshold=100 "$f" > "$OUT/tree.txt" 2>&1
python3 - "$OUT/tree.txt" <<'PY'
import re, sys
want = ["PMPI_Send ", "send_common(", "p2p::start_send(", "p2p::send_host(", "Port::send_local(",
        "Node::try_send(", "Port::deliver(", "on_eager(", "match_arrival(", "p2p::start_recv(",
        "pt2pt::check("]
calls = {}
incl = {}
for line in open(sys.argv[1]):
    m = re.match(r"\s*([\d,]+) \(.*?\)\s+([*>])\s+(.*)", line)
    if not m: continue
    n, mark, rest = int(m.group(1).replace(",", "")), m.group(2), m.group(3)
    for w in want:
        # whole functions only (named with their object file), not lines inlined elsewhere
        if w in rest and "'" not in rest.split("(")[0] and rest.rstrip().endswith("]"):
            if mark == "*": incl[w] = incl.get(w, 0) + n
            else:
                c = re.search(r"\(([\d,]+)x\)", rest)
                if c: calls[w] = calls.get(w, 0) + int(c.group(1).replace(",", ""))
for w in want:
    if w in incl and calls.get(w):
        print(f"{w.strip():22s} {incl[w] / calls[w]:8.0f} instructions per call ({calls[w]} calls)")
PY
