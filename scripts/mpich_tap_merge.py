#!/usr/bin/env python3
"""Merges tap files of MPICH's test suite (scripts/mpich_testsuite.sh) into one result per line.

A later file's result replaces an earlier one's for the same line (directory, program, process
count and its occurrence among the lines of that name: the tap names carry no arguments, and a
rerun's testlist.rerun keeps the testlist's order). Used to fold reruns (RERUN=, or DIRS= of one
directory with a newer build) into a full run. Skipped lines ("# SKIP") are not counted.

Usage: scripts/mpich_tap_merge.py FULL.tap [LATER.tap ...]
Prints "passed of total (percent)" and the failing lines, each with the file it came from.
"""
import re
import sys
from collections import defaultdict

LINE = re.compile(r"^(ok|not ok) \d+ - (\S+ \d+)(.*)$")


def read(path):
    seen = defaultdict(int)
    out = {}
    for line in open(path, encoding="utf-8", errors="replace"):
        m = LINE.match(line)
        if not m:
            continue
        status, name, rest = m.groups()
        if "# SKIP" in rest:
            continue
        key = (name, seen[name])
        seen[name] += 1
        out[key] = (status == "ok", rest.strip(), path)
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    merged = {}
    order = []
    for i, path in enumerate(sys.argv[1:]):
        for key, value in read(path).items():
            if key not in merged:
                if i > 0:  # a later file may only replace lines of the full run
                    continue
                order.append(key)
            merged[key] = value
    ok = sum(1 for k in order if merged[k][0])
    print(f"{ok} of {len(order)} lines passed ({100.0 * ok / len(order):.1f}%)")
    for k in order:
        if not merged[k][0]:
            print(f"  not ok {k[0]} (#{k[1] + 1}) {merged[k][1]} [{merged[k][2]}]")


if __name__ == "__main__":
    main()
