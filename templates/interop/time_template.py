#!/usr/bin/env python3
"""Time chat templates under Hugging Face's Jinja environment.

Renders requests with each template given, in the environment render_jinja.py
sets up as Transformers' apply_chat_template does (sandboxed, trim_blocks,
lstrip_blocks, loopcontrols, {% generation %} tracking), and prints, per
request group, the time of one render: the median CPU time of the rendering
thread (which other processes on a shared machine do not add to), the median
wall time, and the minimum wall time. Several templates are timed in the same
run, round by round in turn, so that a busy machine slows them alike; the
last columns compare each with the first.

Usage (from the repository root):

    python3 templates/interop/time_template.py [--rounds N] TEMPLATE [TEMPLATE ...]

The requests are testdata/bench/realistic_request.json ("realistic") and the
page's examples, examples/*.json ("page examples", the sum of their medians;
requests that raise an error are timed too, as the page shows them). Every
template must give the same result on every request, or the script stops.

Needs Python 3 and Jinja2 3.1 or later (Debian: python3-jinja2).
"""

import argparse
import glob
import json
import os
import statistics
import sys
import time

import render_jinja

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def load_groups():
    with open(os.path.join(ROOT, "testdata", "bench", "realistic_request.json"), encoding="utf-8") as f:
        realistic = [json.load(f)]
    page = []
    for path in sorted(glob.glob(os.path.join(ROOT, "examples", "*.json"))):
        with open(path, encoding="utf-8") as f:
            page.append(json.load(f))
    return [("realistic", realistic), ("page examples, %d" % len(page), page)]


def time_once(template, request):
    """Render once; return (wall seconds, CPU seconds of this thread, result)."""
    cpu, wall = time.thread_time(), time.perf_counter()
    result = render_jinja.render_result(template, request)
    return time.perf_counter() - wall, time.thread_time() - cpu, result


def main(argv):
    parser = argparse.ArgumentParser(description="Time chat templates under Hugging Face's Jinja environment.")
    parser.add_argument("--rounds", type=int, default=30, help="renders of each request per template (median taken)")
    parser.add_argument("--json", metavar="PATH", help="also write the first template's medians (CPU and wall, microseconds) as JSON, for bench/report")
    parser.add_argument("templates", nargs="+", help="chat_template.jinja files to time")
    args = parser.parse_args(argv)

    compiled = []
    for path in args.templates:
        with open(path, encoding="utf-8") as f:
            compiled.append(render_jinja.compile_template(f.read()))
    groups = load_groups()

    # wall[t][g][r], cpu[t][g][r]: the times of request r of group g under template t.
    wall = [[[[] for _ in reqs] for _, reqs in groups] for _ in compiled]
    cpu = [[[[] for _ in reqs] for _, reqs in groups] for _ in compiled]
    for rnd in range(args.rounds + 1):
        for t, template in enumerate(compiled):
            for g, (_, requests) in enumerate(groups):
                for r, request in enumerate(requests):
                    elapsed, used, result = time_once(template, request)
                    if rnd == 0:  # warm-up round: check that the templates agree
                        _, _, first = time_once(compiled[0], request)
                        if result != first:
                            sys.exit("%s and %s differ on %s request %d" % (args.templates[0], args.templates[t], groups[g][0], r))
                        continue
                    wall[t][g][r].append(elapsed)
                    cpu[t][g][r].append(used)

    width = max(len(p) for p in args.templates)
    for stat_name, samples, stat in (("median CPU time", cpu, statistics.median),
                                     ("median wall time", wall, statistics.median),
                                     ("minimum wall time", wall, min)):
        header = "%-*s" % (width, stat_name)
        for name, _ in groups:
            header += "  %26s" % (name + " (us)")
        print(header + "  speed-up")
        base = None
        for t, path in enumerate(args.templates):
            line = "%-*s" % (width, path)
            totals = []
            for g in range(len(groups)):
                total = sum(stat(s) for s in samples[t][g]) * 1e6
                totals.append(total)
                line += "  %26.0f" % total
            if base is None:
                base = totals
            line += "  " + " ".join("%5.1fx" % (b / x) for b, x in zip(base, totals))
            print(line)
        print()
    if args.json:
        keys = ["realistic", "page"]
        out = {}
        for g, key in enumerate(keys):
            out[key + "_cpu_us"] = sum(statistics.median(s) for s in cpu[0][g]) * 1e6
            out[key + "_wall_us"] = sum(statistics.median(s) for s in wall[0][g]) * 1e6
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
    print("%d rounds per request, python %s, jinja2 %s" % (
        args.rounds, sys.version.split()[0], render_jinja.jinja2.__version__))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
