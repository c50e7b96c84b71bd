#!/usr/bin/env python3
"""bench/osu_report.py — reads OSU-format outputs (ours or the real suite's) of several runs per
library, takes the median per message size, prints a table of latency and bandwidth with the
ratios ours / theirs, and writes PNG plots (log-log, one line per library) with matplotlib.

usage: osu_report.py --out DIR --ref LABEL[,LABEL...] --ours LABEL[,LABEL...]
                     LABEL=latency-glob:bw-glob ...
Each LABEL's globs match the osu_latency / osu_bw outputs of its runs (one file per run; also
ucx_perftest outputs converted to the OSU format by compare.sh)."""
import argparse
import glob
import statistics
import sys


def parse(path):
    """{size: value} from one OSU-format output."""
    rows = {}
    with open(path, errors="replace") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2 and not line.startswith("#"):
                try:
                    rows[int(parts[0])] = float(parts[1])
                except ValueError:
                    pass
    return rows


def medians(pattern):
    runs = [parse(p) for p in sorted(glob.glob(pattern))]
    runs = [r for r in runs if r]
    sizes = sorted({s for r in runs for s in r})
    return {s: statistics.median([r[s] for r in runs if s in r]) for s in sizes}, len(runs)


def fmt_size(s):
    for unit, n in (("M", 1 << 20), ("K", 1 << 10)):
        if s >= n and s % n == 0:
            return f"{s // n}{unit}"
    return str(s)


def table(title, unit, data, labels, ours, refs):
    sizes = sorted({s for l in labels for s in data[l]})
    ratio_cols = [(o, r) for o in ours for r in refs if o != r]
    head = f"{'size':>6} " + " ".join(f"{l:>12}" for l in labels)
    head += "  " + " ".join(f"{o + '/' + r:>22}" for o, r in ratio_cols)
    print(f"\n{title} ({unit}; ratios ours/theirs, median of runs)")
    print(head)
    for s in sizes:
        line = f"{fmt_size(s):>6} "
        line += " ".join(f"{data[l][s]:12.2f}" if s in data[l] else f"{'-':>12}" for l in labels)
        cells = []
        for o, r in ratio_cols:
            if s in data[o] and s in data[r] and data[r][s] > 0:
                cells.append(f"{data[o][s] / data[r][s]:22.2f}")
            else:
                cells.append(f"{'-':>22}")
        print(line + "  " + " ".join(cells))


def plot(path, title, ylabel, data, labels):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"(no matplotlib: {path} not written)", file=sys.stderr)
        return False
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for l in labels:
        xs = [s for s in sorted(data[l]) if s > 0]
        if xs:
            ax.plot(xs, [data[l][s] for s in xs], marker="o", markersize=3, label=l)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--ours", required=True)
    ap.add_argument("--ref", required=True)
    ap.add_argument("--title", default="2 ranks")
    ap.add_argument("series", nargs="+")
    a = ap.parse_args()
    labels, lat, bw = [], {}, {}
    for spec in a.series:
        label, globs = spec.split("=", 1)
        lg, bg = globs.split(":", 1)
        labels.append(label)
        lat[label], n1 = medians(lg)
        bw[label], n2 = medians(bg)
        if not lat[label] and not bw[label]:
            print(f"(no results for {label})", file=sys.stderr)
    ours = [l for l in a.ours.split(",") if l in labels]
    refs = [l for l in a.ref.split(",") if l in labels]
    table("osu_latency one-way latency", "us", lat, labels, ours, refs)
    table("osu_bw bandwidth", "MB/s", bw, labels, ours, refs)
    wrote = plot(f"{a.out}/latency.png", f"osu_latency, {a.title}", "latency (us)", lat, labels)
    wrote &= plot(f"{a.out}/bandwidth.png", f"osu_bw, {a.title}", "bandwidth (MB/s)", bw, labels)
    if wrote:
        print(f"\nplots: {a.out}/latency.png {a.out}/bandwidth.png")


if __name__ == "__main__":
    main()
