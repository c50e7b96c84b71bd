#!/usr/bin/env bash
# bench/osu_instructions.sh — instructions per 8-byte message of the real OSU 7.4 osu_bw and
# osu_latency between two processes, counted by callgrind (deterministic: load does not change
# it; the VM has no hardware counters). Each test runs twice under `ampirun -np 2 valgrind`, with
# few and with many iterations, and the difference of each function's exclusive count is divided
# by the difference of messages, so start-up cancels. Exclusive counts are attributed by
# instruction address, so the user-level context switches do not confuse them (inclusive counts
# of a call that blocks are unreliable under callgrind). The polling and scheduling loop
# (Pe::run, Pe::block, the port's progress, UCX's, the scheduler) is reported apart as
# "wait-loop": how often it spins depends on timing, not on the message. What remains moves by a
# few instructions between runs (start-up work that differs from run to run).
#
#   bench/osu_instructions.sh [-n] BUILD [BUILD...]
#     BUILD: an ampi build directory (bin/ampirun, lib/libampi.so.0), run on its libampi through
#     LD_LIBRARY_PATH; -n N: list the N costliest functions of the work too.
#     env OSU_AMPI (default /work/ext/osu-host): the OSU binaries built with our mpicc.
# osu_bw: per message (windows of 64, -i 300 minus -i 100); osu_latency: per iteration, i.e. one
# send and one receive per rank (-i 3000 minus -i 1000). Rank 0 sends in osu_bw, rank 1 receives.
set -euo pipefail
top=0
if [ "${1:-}" = -n ]; then top=$2; shift 2; fi
[ $# -ge 1 ] || { sed -n '2,17p' "$0"; exit 2; }
OA=${OSU_AMPI:-/work/ext/osu-host}/c/mpi/pt2pt/standard
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for b in "$@"; do
  b=$(realpath "$b")
  echo "== $b"
  for t in "bw 100 300 12800" "latency 1000 3000 2000"; do
    read -r test n1 n2 dm <<<"$t"
    for n in "$n1" "$n2"; do
      LD_LIBRARY_PATH=$b/lib timeout 900 "$b/bin/ampirun" -np 2 valgrind --tool=callgrind \
        --callgrind-out-file="$tmp/$test.$n.%q{PMIX_RANK}" "$OA/osu_$test" -m 8:8 -i "$n" -x 10 \
        >"$tmp/$test.$n.log" 2>&1
      for r in 0 1; do
        callgrind_annotate --threshold=100 "$tmp/$test.$n.$r" >"$tmp/$test.$n.$r.excl" 2>/dev/null
      done
    done
    python3 - "$tmp" "$test" "$n1" "$n2" "$dm" "$top" <<'EOF'
import re, sys
d, test, n1, n2, dm, top = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]), int(sys.argv[6])
WAIT = [r'Pe::run\(', r'Pe::block\(', r'Port::progress_local\(', r'progress_spin', r'Port::spin\(', r'progress_net',
        r'\[/usr/lib/x86_64-linux-gnu/libuc[pts]', r'\[/usr/lib/x86_64-linux-gnu/ucx/',
        r'Termination::idle', r'ult::Scheduler::', r'jump_fcontext', r'ontop_fcontext', r'Port::arm',
        r'Node::arm', r'Node::disarm', r'epoll', r'Port::wait', r'net_busy', r'poll_copies',
        r'p2p::wait\(', r'wait_all\(', r'Pe::yield', r'\[/usr/lib/x86_64-linux-gnu/libpmix',
        r'clock_gettime', r'__vdso', r'finish_switch', r'ult::Task::',
        r'strdup']  # (strdup: PMIx's start-up copies, whose count varies from run to run)
def load(path):
    v = {}
    for line in open(path):
        if line.startswith('-- Auto-annotated') or line.startswith('-- User-annotated'):
            break
        m = re.match(r'\s*([\d,]+)\s+\([^)]*\)\s+(\S.*)$', line)
        if m and ':' in m.group(2):
            v[m.group(2)] = v.get(m.group(2), 0) + int(m.group(1).replace(',', ''))
    return v
unit = 'message' if test == 'bw' else 'iteration'
for r in (0, 1):
    a, b = load(f'{d}/{test}.{n1}.{r}.excl'), load(f'{d}/{test}.{n2}.{r}.excl')
    work = wait = 0.0
    rows = []
    for k in set(a) | set(b):
        x = (b.get(k, 0) - a.get(k, 0)) / dm
        if any(re.search(p, k) for p in WAIT):
            wait += x
        else:
            work += x
            rows.append((x, k))
    print(f'osu_{test} 8 B rank {r}: {work:6.0f} instructions per {unit} (wait-loop {wait:.0f})')
    for x, k in sorted(rows, reverse=True)[:top]:
        print(f'   {x:6.1f} {k[:150]}')
EOF
  done
done
