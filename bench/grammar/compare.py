#!/usr/bin/env python3
"""Compares the per-schema compile times of grammar.Compile and llama.cpp's
converter (the files of suite_times_test.go and llamacpp_times.py): the
median and the 99th percentile of each over the schemas both compiled, and
the ratios. Usage: compare.py GO.json LLAMACPP.json"""
import json
import sys

go = {e["name"]: e for e in json.load(open(sys.argv[1]))}
py = {e["name"]: e for e in json.load(open(sys.argv[2]))}
both = [n for n in go if n in py and go[n]["compiled"] and py[n]["compiled"]]


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))]


print(f"schemas: {len(go)}; compiled by grammar.Compile {sum(e['compiled'] for e in go.values())}, "
      f"by llama.cpp's converter {sum(e['compiled'] for e in py.values())}, by both {len(both)}")
print("| over the schemas both compiled | grammar.Compile | llama.cpp converter | ratio |")
print("|---|---:|---:|---:|")
for label, p in (("median", 0.5), ("p99", 0.99)):
    g, l = pct([go[n]["ns"] for n in both], p), pct([py[n]["ns"] for n in both], p)
    print(f"| {label} | {g / 1000:.1f} us | {l / 1000:.1f} us | {l / g:.1f}x |")
g_all = [e["ns"] for e in go.values()]
print(f"grammar.Compile over all {len(g_all)} schemas: median {pct(g_all, 0.5) / 1000:.1f} us, p99 {pct(g_all, 0.99) / 1000:.1f} us")
