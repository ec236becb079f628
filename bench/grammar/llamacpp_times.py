#!/usr/bin/env python3
"""Times llama.cpp's JSON Schema converter (examples/json_schema_to_grammar.py
in a llama.cpp checkout, imported from there, not copied) on every schema of
the vendored JSON Schema Test Suite, the way grammar/suite_times_test.go
times grammar.Compile: rounds of ten until the rounds took 2 ms and at least
five ran, the least round's mean, in CPU time of this process; the suite is
timed PASSES times over and each schema keeps its least time (a garbage
collection or another process can slow all of one schema's rounds alike).
Writes [{"name", "ns", "compiled"}] as JSON.

Usage: llamacpp_times.py LLAMA_CPP_DIR SUITE_DIR OUT.json
"""
import glob
import json
import os
import sys
import time

llama, suite, out = sys.argv[1:4]
sys.path.insert(0, os.path.join(llama, "examples"))
from json_schema_to_grammar import SchemaConverter  # noqa: E402


def convert(schema):
    conv = SchemaConverter(prop_order={}, allow_fetch=False, dotall=False, raw_pattern=False)
    schema = conv.resolve_refs(schema, "input")
    conv.visit(schema, "")
    return conv.format_grammar()


PASSES = 3  # as suitePasses in grammar/suite_times_test.go

schemas = []
for path in sorted(glob.glob(os.path.join(suite, "*.json"))):
    name = os.path.basename(path)[: -len(".json")]
    with open(path) as f:
        cases = json.load(f)
    for i, case in enumerate(cases):
        schemas.append((f"{name}#{i}", case["schema"]))

entries = {}
for _ in range(PASSES):
    for name, schema in schemas:
        try:
            convert(json.loads(json.dumps(schema)))
            ok = True
        except Exception:
            ok = False
        best = float("inf")
        spent = 0.0
        rounds = 0
        while spent < 0.002 or rounds < 5:
            rounds += 1
            start = time.process_time()
            for _ in range(10):
                try:
                    convert(json.loads(json.dumps(schema)))
                except Exception:
                    pass
            d = time.process_time() - start
            spent += d
            best = min(best, d / 10)
        ns = best * 1e9
        if name in entries:
            ns = min(ns, entries[name]["ns"])
        entries[name] = {"name": name, "ns": ns, "compiled": ok}
entries = list(entries.values())
entries.sort(key=lambda e: e["name"])
with open(out, "w") as f:
    json.dump(entries, f, indent=1)
