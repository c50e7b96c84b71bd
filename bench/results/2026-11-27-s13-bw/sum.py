#!/usr/bin/env python3
# sum.py OUTDIR NAME... — per-size medians (and each round) of ab.sh's runs, ratios to Open MPI.
import glob, statistics, sys, re
out, names = sys.argv[1], sys.argv[2:]
def table(p):
    t = {}
    for line in open(p):
        f = line.split()
        if len(f) == 2 and f[0].isdigit(): t[int(f[0])] = float(f[1])
    return t
who = [f"ampi{i}" for i in range(len(names))] + ["ompi"]
label = dict(zip(who, names + ["Open MPI"]))
runs = {w: {} for w in who}
for w in who:
    for p in glob.glob(f"{out}/bw.{w}.*"):
        r = int(p.rsplit(".", 1)[1])
        runs[w][r] = table(p)
sizes = sorted(next(iter(runs["ompi"].values())).keys())
print(f"{out}: medians of {len(runs['ompi'])} interleaved rounds (MB/s), ratio to Open MPI")
print("size     " + "".join(f"{label[w][-18:]:>20s}" for w in who))
for s in sizes:
    o = statistics.median(t[s] for t in runs["ompi"].values() if s in t)
    cells = []
    for w in who:
        v = statistics.median(t[s] for t in runs[w].values() if s in t)
        cells.append(f"{v:9.0f} ({v/o:4.2f}x)")
    print(f"{s:<8d} " + "".join(f"{c:>20s}" for c in cells))
print("\nper round (first size listed, then the mean over sizes of the ratio to that round's Open MPI):")
for r in sorted(runs["ompi"]):
    o = runs["ompi"][r]
    line = f"  {r:2d}"
    for w in who:
        t = runs[w].get(r, {})
        rs = [t[s] / o[s] for s in sizes if s in t and s in o]
        line += f"  {w}:{t.get(sizes[0], float('nan')):7.0f}/{statistics.mean(rs) if rs else float('nan'):4.2f}"
    print(line)
