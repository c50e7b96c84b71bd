#!/usr/bin/env python3
"""bench/cuda_trace.py — merges the GPU records that bench/cuda_trace.cpp wrote (one gpu.<pid>.txt
per process of a job, CUDA_TRACE_GPU=1) and tells how busy the GPU was: over the middle of the
run (the first and last 10% of the records left out: start-up, warm-up, teardown), the share of
the time when at least one kernel, copy or memset ran, how many ran at once on average, and the
time and mean duration of each kind of work. With --per N, totals are also given per N units
(e.g. the iterations that fell in the window, given as their count).

  bench/cuda_trace.py DIR [--per N]
"""
import glob
import os
import sys


def load(d):
    recs = []
    for path in glob.glob(os.path.join(d, "gpu.*.txt")):
        pid = path.rsplit(".", 2)[-2]
        with open(path) as f:
            for line in f:
                p = line.split(None, 4)
                if len(p) < 5:
                    continue
                s, e = int(p[1]), int(p[2])
                if s and e >= s:
                    recs.append((s, e, p[0], pid + ":" + p[3], p[4].strip()))
    return recs


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    d = sys.argv[1]
    per = None
    if "--per" in sys.argv:
        per = float(sys.argv[sys.argv.index("--per") + 1])
    recs = sorted(load(d))
    if not recs:
        print("no records in", d)
        return 1
    n = len(recs)
    lo, hi = recs[n // 10][0], recs[n - n // 10 - 1][0]
    win = [r for r in recs if lo <= r[0] < hi]
    span = hi - lo
    busy, cur_s, cur_e, total = 0, None, None, 0
    for s, e, *_ in win:
        e = min(e, hi)
        total += e - s
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                busy += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    if cur_e is not None:
        busy += cur_e - cur_s
    procs = len({r[3].split(":")[0] for r in win})
    streams = len({r[3] for r in win})
    print(f"{d}: {len(win)} records in a window of {span / 1e6:.3f} ms, {procs} process(es), "
          f"{streams} stream(s)")
    print(f"  GPU busy {100.0 * busy / span:.1f}% of the window; work running at once on "
          f"average (while busy) {total / max(busy, 1):.2f}")
    by = {}
    for s, e, k, _, name in win:
        key = k + " " + (name.split("(")[0] if k == "k" else name.split("/")[0])
        c, t = by.get(key, (0, 0))
        by[key] = (c + 1, t + (e - s))
    print(f"  {'work':<44} {'count':>8} {'total ms':>10} {'mean us':>9}" +
          (f" {'per unit us':>12}" if per else ""))
    for key, (c, t) in sorted(by.items(), key=lambda kv: -kv[1][1]):
        line = f"  {key[:44]:<44} {c:>8} {t / 1e6:>10.3f} {t / 1e3 / c:>9.2f}"
        if per:
            line += f" {t / 1e3 / per:>12.2f}"
        print(line)
    if per:
        print(f"  window per unit: {span / 1e3 / per:.2f} us, busy per unit {busy / 1e3 / per:.2f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
