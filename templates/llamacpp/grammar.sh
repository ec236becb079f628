#!/usr/bin/env bash
# The grammar package's grammars checked with llama.cpp's own GBNF parser and
# matcher (issue 33; docs/llama-cpp.md, "Grammars in llama.cpp's matcher").
#
# Usage: templates/llamacpp/grammar.sh LLAMA_CPP_DIR [MASKBENCH_DIR]
#
#   LLAMA_CPP_DIR  a llama.cpp checkout (src/, include/ and ggml/include/ are
#                  enough: nothing of it needs to be built)
#   MASKBENCH_DIR  also JSONSchemaBench's MaskBench files (maskbench/data of
#                  github.com/guidance-ai/jsonschemabench, not vendored: see
#                  TestJSONSchemaBench), each schema's grammars with its
#                  instances up to 4 KB, and its grammar as a tool's
#                  parameters with texts drawn from it
#
# It builds gbnfcheck (templates/llamacpp/gbnfcheck: llama.cpp's grammar code
# compiled alone, with stubs for ggml and the vocabulary) into a temporary
# directory, writes the grammars of every JSON Schema Test Suite schema that
# compiles (not strict, and strict where that differs) and of the worst-case
# attack schemas that compile, with their texts and the Go matcher's verdicts
# (go test ./grammar/ -dump-grammars DIR), and loads and matches each with
# llama.cpp. Fails on any disagreement with the Go matcher, any grammar
# llama.cpp refuses, and any load that takes more than LOAD_MS_MAX
# milliseconds (10) of CPU time or a peak memory over RSS_MB_MAX megabytes
# (64). A load's time is the least of REPEAT loads (10), CPU time rather than
# wall-clock time so that a busy machine's waits don't count (both are
# reported; a busy machine still slows the CPU down). CXX and CC choose the
# compilers, LLAMA_COMMIT names the commit of a tree that is not a git
# checkout. Not part of CI.
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  sed -n '2,28p' "$0" >&2
  exit 2
fi
llama=$(cd "$1" && pwd)
bench=()
if [ $# -eq 2 ]; then
  bench=(-jsonschemabench "$(cd "$2" && pwd)")
fi
for f in src/llama-grammar.cpp src/unicode.cpp src/unicode-data.cpp src/llama-impl.cpp include/llama.h ggml/include/ggml.h; do
  [ -f "$llama/$f" ] || { echo "$llama/$f: not found; is $1 a llama.cpp checkout?" >&2; exit 2; }
done
load_ms_max=${LOAD_MS_MAX:-10}
rss_mb_max=${RSS_MB_MAX:-64}
repeat=${REPEAT:-10}
cd "$(dirname "$0")/../.."
here=templates/llamacpp/gbnfcheck
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

commit=${LLAMA_COMMIT:-$(git -C "$llama" rev-parse HEAD 2>/dev/null || echo "unknown (not a git checkout; LLAMA_COMMIT names it)")}
echo "llama.cpp: $llama, commit $commit"
echo "building gbnfcheck..."
"${CC:-cc}" -O2 -c "$here/stubs_c.c" -o "$work/stubs_c.o"
"${CXX:-c++}" -O2 -std=c++17 -I"$llama/include" -I"$llama/ggml/include" -I"$llama/src" \
  "$here/gbnfcheck.cpp" "$here/stubs.cpp" \
  "$llama/src/llama-grammar.cpp" "$llama/src/unicode.cpp" "$llama/src/unicode-data.cpp" "$llama/src/llama-impl.cpp" \
  "$work/stubs_c.o" -o "$work/gbnfcheck"

echo "writing the grammars..."
go test ./grammar/ -run '^TestDumpGrammarsForLlama$' -count=1 -v -timeout 60m -dump-grammars "$work/g" "${bench[@]}" | grep -E 'attack family|wrote' || true
[ -s "$work/g/grammars.txt" ] || { echo "the dumper wrote no grammars" >&2; exit 1; }

# Each grammar loaded REPEAT times, then its texts matched: loads.txt gets
# GRAMMAR load_us cpu_us maxrss_kb rules (or GRAMMAR refused ...), got.txt
# GRAMMAR TEXT ok|fail.
echo "checking $(wc -l <"$work/g/grammars.txt") grammars with llama.cpp..."
cd "$work/g"
: >loads.txt
: >got.txt
# Each grammar's texts, gathered in one pass (expected.txt lists them
# grammar by grammar).
declare -A textsOf
while read -r gr list; do textsOf[$gr]=$list; done < <(awk '$1 != g { if (g != "") print g, l; g = $1; l = "" } { l = l " " $2 } END { if (g != "") print g, l }' expected.txt)
while read -r gr; do
  read -r -a texts <<<"${textsOf[$gr]:-}"
  set +e
  out=$("$work/gbnfcheck" -repeat "$repeat" "$gr" "${texts[@]}" 2>"$work/stderr")
  rc=$?
  set -e
  first=${out%%$'\n'*}
  case $first in
    refused*) echo "$gr refused $(head -c 300 "$work/stderr" | tr '\n' ' ')" >>loads.txt; continue ;;
    load_us=*) ;;
    *) echo "$gr: gbnfcheck exited $rc: $first $(head -c 300 "$work/stderr")" >&2; exit 1 ;;
  esac
  echo "$gr $first" | sed 's/load_us=//; s/cpu_us=//; s/maxrss_kb=//; s/rules=//' >>loads.txt
  echo "$out" | awk -v g="$gr" 'NR > 1 { print g, $2, $1 }' >>got.txt
done <grammars.txt

# The summary.
status=0
grammars=$(wc -l <grammars.txt)
attacks=$(grep -c '^attack-' grammars.txt || true)
impossible=$(grep -c '^impossible-' grammars.txt || true)
maskbench=$(grep -c '^maskbench-' grammars.txt || true)
zod=$(grep -c '^zod-' grammars.txt || true)
oneof=$(grep -c '^oneof-types-' grammars.txt || true)
suite=$((grammars - attacks - impossible - maskbench - zod - oneof))
strict=$(grep -v '^maskbench-\|^zod-\|^oneof-types-' grammars.txt | grep -c -- '-strict\.gbnf$' || true)
texts=$(wc -l <got.txt)
expected=$(wc -l <expected.txt)
disagree=$(awk 'NR == FNR { want[$1 " " $2] = $3; next } { k = $1 " " $2; if (!(k in want)) print k, "unexpected"; else if (want[k] != $3) print k, "llama.cpp:", $3, "Go:", want[k] }' expected.txt got.txt)
refused=$(awk '$2 == "refused"' loads.txt)
slow=$(awk -v max="$load_ms_max" '$2 != "refused" && $3 > max * 1000 { print $1, $3 / 1000 " ms of CPU (" $2 / 1000 " ms)" }' loads.txt)
big=$(awk -v max="$rss_mb_max" '$2 != "refused" && $4 > max * 1024 { print $1, $4 / 1024 " MB" }' loads.txt)
echo
echo "grammars checked: $grammars ($suite of the test suite, $strict of them strict; $attacks attacks; $impossible with parts that match nothing; $zod of zod; $oneof oneOf of decisions 289 and 294, strict; $maskbench of MaskBench)"
echo "texts matched: $texts of $expected ($(awk '$3 == "ok"' got.txt | wc -l) in the grammar)"
echo "slowest loads (grammar, CPU ms, wall-clock ms, peak RSS MB, rules):"
awk '$2 != "refused" { printf "  %s %.3f %.3f %.1f %d\n", $1, $3 / 1000, $2 / 1000, $4 / 1024, $5 }' loads.txt | sort -k2 -g -r | sed -n '1,5p'
awk '$2 != "refused" { if ($3 > c) c = $3; if ($2 > t) t = $2; if ($4 > r) r = $4; s += $3; n++ } END { if (n) printf "max load %.3f ms of CPU (mean %.3f), %.3f ms wall-clock; max peak RSS %.1f MB\n", c / 1000, s / n / 1000, t / 1000, r / 1024 }' loads.txt
if [ "$texts" -ne "$expected" ]; then
  echo "FAIL: $((expected - texts)) texts not matched (their grammar was refused)"
  status=1
fi
if [ -n "$disagree" ]; then
  echo "FAIL: $(echo "$disagree" | wc -l) disagreements between llama.cpp and the Go matcher:"
  echo "$disagree" | sed -n '1,20s/^/  /p'
  status=1
else
  echo "disagreements: 0"
fi
if [ -n "$refused" ]; then
  echo "FAIL: $(echo "$refused" | wc -l) grammars refused by llama.cpp:"
  echo "$refused" | sed -n '1,20s/^/  /p'
  status=1
else
  echo "refused by llama.cpp: 0"
fi
if [ -n "$slow" ]; then
  echo "FAIL: loads over $load_ms_max ms of CPU:"
  echo "$slow" | sed 's/^/  /'
  status=1
fi
if [ -n "$big" ]; then
  echo "FAIL: peak memory over $rss_mb_max MB:"
  echo "$big" | sed 's/^/  /'
  status=1
fi
if [ "$status" = 0 ]; then echo "PASS"; fi
exit "$status"
