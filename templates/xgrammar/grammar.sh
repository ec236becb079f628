#!/usr/bin/env bash
# The grammar package's EBNF grammars checked with xgrammar, the grammar
# engine of vLLM and SGLang: its own EBNF parser, compiler and matcher
# (issue 33; docs/serve.md, "Grammars in xgrammar"; gap decision 238).
#
# Usage: templates/xgrammar/grammar.sh XGRAMMAR_DIR [MASKBENCH_DIR]
#
#   XGRAMMAR_DIR   an xgrammar checkout (github.com/mlc-ai/xgrammar: cpp/,
#                  include/ and 3rdparty/picojson/ are enough; DLPack's
#                  header from 3rdparty/dlpack/include or the system's,
#                  Debian's libdlpack-dev)
#   MASKBENCH_DIR  also JSONSchemaBench's MaskBench files, as for
#                  templates/llamacpp/grammar.sh
#
# It builds xgcheck (templates/xgrammar/xgcheck: xgrammar's C++ code with a
# small driver) into a temporary directory, writes the grammars of every
# JSON Schema Test Suite schema that compiles, of the attacks and of the
# schemas with parts that match nothing, with their texts and the Go
# matcher's verdicts (go test ./grammar/ -dump-grammars DIR
# -dump-for-xgrammar: NAME.ebnf is Grammar.EBNF of the grammar compiled as
# the gateway compiles it for vLLM and SGLang, grammar.Spec.XGrammar; gap
# decisions 266 and 267), and compiles and matches each with xgrammar. Fails on any
# disagreement with the Go matcher, any grammar xgrammar refuses, and any
# compile that takes more than COMPILE_MS_MAX milliseconds (10,000) or does
# not end within TIMEOUT_S seconds (60). Compiles are done without a
# vocabulary; with VOCAB set to a tokenizer.json, the slowest grammars of
# the run (VOCAB_TOP, 5) are compiled once more for its vocabulary, as an
# engine compiles them, and their times reported beside those of xgrammar's
# own grammar of the same schema (xgcheck -json-schema: what the schema
# costs vLLM or SGLang when they convert it; gap decision 268); with MASK_STEPS set to N
# too, every grammar is also cut where its reasoning ends (its root the
# rest of the root rule) and compiled for the vocabulary, and N tokens are
# generated from there as an engine does (xgcheck -steps: the mask of the
# allowed tokens, one drawn by a fixed sequence), so that the tokens are in
# the grammar's JSON or arguments; the grammars whose masks took longest
# are reported (MASK_TOP, 10; gap decision 263). CXX chooses the
# compiler, XGRAMMAR_COMMIT names the commit of a tree that is not a git
# checkout, JOBS the parallel compiles of the build (2). Not part of CI.
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  sed -n '2,38p' "$0" >&2
  exit 2
fi
xg=$(cd "$1" && pwd)
bench=()
if [ $# -eq 2 ]; then
  bench=(-jsonschemabench "$(cd "$2" && pwd)")
fi
for f in cpp/grammar_parser.cc cpp/grammar_compiler.cc include/xgrammar/xgrammar.h 3rdparty/picojson/picojson.h; do
  [ -f "$xg/$f" ] || { echo "$xg/$f: not found; is $1 an xgrammar checkout?" >&2; exit 2; }
done
dlpack=$xg/3rdparty/dlpack/include
[ -f "$dlpack/dlpack/dlpack.h" ] || dlpack=/usr/include
[ -f "$dlpack/dlpack/dlpack.h" ] || { echo "no dlpack/dlpack.h in $xg/3rdparty/dlpack/include or /usr/include (Debian: apt-get install libdlpack-dev)" >&2; exit 2; }
compile_ms_max=${COMPILE_MS_MAX:-10000}
timeout_s=${TIMEOUT_S:-60}
jobs=${JOBS:-2}
cd "$(dirname "$0")/../.."
root=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

commit=${XGRAMMAR_COMMIT:-$(git -C "$xg" rev-parse HEAD 2>/dev/null || echo "unknown (not a git checkout; XGRAMMAR_COMMIT names it)")}
echo "xgrammar: $xg, commit $commit"
echo "building xgcheck..."
flags=(-O2 -std=c++17 -DXGRAMMAR_ENABLE_CPPTRACE=0 -I"$xg/include" -I"$xg/cpp" -I"$xg/3rdparty/picojson" -I"$dlpack")
mkdir -p "$work/obj"
for src in "$xg"/cpp/*.cc "$xg"/cpp/support/*.cc; do
  printf '%s\0' "$src"
done | xargs -0 -P "$jobs" -I{} sh -c 'exec "$0" "$@" -c "{}" -o "'"$work"'/obj/$(basename "{}" .cc).o"' "${CXX:-c++}" "${flags[@]}"
"${CXX:-c++}" "${flags[@]}" templates/xgrammar/xgcheck/xgcheck.cc "$work"/obj/*.o -o "$work/xgcheck" -lpthread

echo "writing the grammars..."
go test ./grammar/ -run '^TestDumpGrammarsForLlama$' -count=1 -v -timeout 60m -dump-grammars "$work/g" -dump-for-xgrammar "${bench[@]}" | grep -E 'wrote' || true
[ -s "$work/g/grammars.txt" ] || { echo "the dumper wrote no grammars" >&2; exit 1; }

# Each grammar compiled, then its texts matched: compiles.txt gets
# GRAMMAR compile_us cpu_us maxrss_kb (or GRAMMAR refused|timeout ...),
# got.txt GRAMMAR TEXT ok|fail; the names are the .gbnf files the dumper
# lists, whose EBNF is NAME.ebnf beside them.
echo "checking $(wc -l <"$work/g/grammars.txt") grammars with xgrammar..."
cd "$work/g"
: >compiles.txt
: >got.txt
declare -A textsOf
while read -r gr list; do textsOf[$gr]=$list; done < <(awk '$1 != g { if (g != "") print g, l; g = $1; l = "" } { l = l " " $2 } END { if (g != "") print g, l }' expected.txt)
while read -r gr; do
  read -r -a texts <<<"${textsOf[$gr]:-}"
  set +e
  out=$(timeout "$timeout_s" "$work/xgcheck" "${gr%.gbnf}.ebnf" "${texts[@]}" 2>"$work/stderr")
  rc=$?
  set -e
  first=${out%%$'\n'*}
  case $first in
    refused*) echo "$gr refused $(grep -v 'Warning' "$work/stderr" | head -c 300 | tr '\n' ' ')" >>compiles.txt; continue ;;
    compile_us=*) ;;
    *)
      if [ "$rc" = 124 ]; then echo "$gr timeout" >>compiles.txt; continue; fi
      echo "$gr: xgcheck exited $rc: $first $(grep -v Warning "$work/stderr" | head -c 300)" >&2; exit 1 ;;
  esac
  echo "$gr $first" | sed 's/compile_us=//; s/cpu_us=//; s/maxrss_kb=//' >>compiles.txt
  echo "$out" | awk -v g="$gr" 'NR > 1 { print g, $2, $1 }' >>got.txt
done <grammars.txt

status=0
grammars=$(wc -l <grammars.txt)
maskbench=$(grep -c '^maskbench-' grammars.txt || true)
texts=$(wc -l <got.txt)
expected=$(wc -l <expected.txt)
disagree=$(awk 'NR == FNR { want[$1 " " $2] = $3; next } { k = $1 " " $2; if (!(k in want)) print k, "unexpected"; else if (want[k] != $3) print k, "xgrammar:", $3, "Go:", want[k] }' expected.txt got.txt)
refused=$(awk '$2 == "refused" || $2 == "timeout"' compiles.txt)
slow=$(awk -v max="$compile_ms_max" '$2 != "refused" && $2 != "timeout" && $3 > max * 1000 { print $1, $3 / 1000 " ms of CPU" }' compiles.txt)
echo
echo "grammars checked: $grammars ($maskbench of MaskBench)"
echo "texts matched: $texts of $expected ($(awk '$3 == "ok"' got.txt | wc -l) in the grammar)"
echo "slowest compiles without a vocabulary (grammar, CPU ms, wall-clock ms, peak RSS MB):"
awk '$2 != "refused" && $2 != "timeout" { printf "  %s %.3f %.3f %.1f\n", $1, $3 / 1000, $2 / 1000, $4 / 1024 }' compiles.txt | sort -k2 -g -r | sed -n '1,5p'
awk '$2 != "refused" && $2 != "timeout" { if ($3 > c) c = $3; if ($4 > r) r = $4; s += $3; n++ } END { if (n) printf "max compile %.3f ms of CPU (mean %.3f); max peak RSS %.1f MB\n", c / 1000, s / n / 1000, r / 1024 }' compiles.txt
if [ -n "${VOCAB:-}" ]; then
  python3 "$root/templates/xgrammar/vocab.py" "$VOCAB" >"$work/vocab.hex"
  echo "the slowest ${VOCAB_TOP:-5} compiled for $VOCAB's $(wc -l <"$work/vocab.hex") tokens (grammar, CPU ms, peak RSS MB; then xgrammar's own converter's grammar of the same response format's schema, as vLLM and SGLang compile a JSON schema request: CPU ms, peak RSS MB, or why not):"
  awk '$2 != "refused" && $2 != "timeout" { print $3, $1 }' compiles.txt | sort -g -r | sed -n "1,${VOCAB_TOP:-5}p" | while read -r _ gr; do
    b=${gr%.gbnf}
    line=$("$work/xgcheck" -vocab "$work/vocab.hex" "$b.ebnf" 2>/dev/null | head -1)
    own="(a tool's grammar)"
    if [ -f "$b.schema.json" ]; then
      set +e
      own=$(timeout "$timeout_s" "$work/xgcheck" -vocab "$work/vocab.hex" -json-schema "$b.schema.json" 2>/dev/null | head -1)
      rc=$?
      set -e
      if [ "$rc" = 124 ]; then own="(past ${timeout_s} s)"; fi
      case $own in
        compile_us=*) own=$(echo "$own" | awk '{ sub("cpu_us=", "", $2); sub("maxrss_kb=", "", $3); printf "%.1f %.1f", $2 / 1000, $3 / 1024 }') ;;
        refused*) own="(refused)" ;;
      esac
    fi
    echo "$gr $line" | awk -v own="$own" '{ sub("cpu_us=", "", $3); sub("maxrss_kb=", "", $4); printf "  %s %.1f %.1f; %s\n", $1, $3 / 1000, $4 / 1024, own }'
  done
fi
if [ -n "${VOCAB:-}" ] && [ -n "${MASK_STEPS:-}" ]; then
  mkdir -p "$work/after"
  : >"$work/masks.txt"
  while read -r gr; do
    b=${gr%.gbnf}
    # The root rule from where the reasoning ends: after reasoning-1st
    # "<|end|>", and the final message's header when there is one.
    python3 - "$b.ebnf" "$work/after/$b.ebnf" <<'PY' || continue
import sys
first, rest = open(sys.argv[1]).read().split("\n", 1)
cut = 'reasoning-1st "<|end|>'
i = first.find(cut)
if i < 0:
    sys.exit(1)
r = first[i + len(cut):]
for p in ('<|start|>assistant<|channel|>final<|message|>" ', '" '):
    if r.startswith(p):
        r = r[len(p):]
        break
if not r.strip():
    sys.exit(1)
open(sys.argv[2], "w").write("root ::= " + r.strip() + "\n" + rest)
PY
    line=$(timeout "$timeout_s" "$work/xgcheck" -vocab "$work/vocab.hex" -steps "$MASK_STEPS" "$work/after/$b.ebnf" 2>/dev/null | tr '\n' ' ')
    echo "$gr $line" >>"$work/masks.txt"
  done <grammars.txt
  echo "the longest masks, $MASK_STEPS tokens from where the reasoning ends (grammar, mean mask us, compile CPU ms):"
  awk '{ m = ""; c = ""; for (i = 2; i <= NF; i++) { if ($i ~ /^mask_us=/) m = substr($i, 9); if ($i ~ /^cpu_us=/) c = substr($i, 8) } if (m != "") printf "  %s %s %.1f\n", $1, m, c / 1000 }' "$work/masks.txt" | sort -k2 -g -r | sed -n "1,${MASK_TOP:-10}p"
fi
if [ "$texts" -ne "$expected" ]; then
  echo "FAIL: $((expected - texts)) texts not matched (their grammar was refused)"
  status=1
fi
if [ -n "$disagree" ]; then
  echo "FAIL: $(echo "$disagree" | wc -l) disagreements between xgrammar and the Go matcher:"
  echo "$disagree" | sed -n '1,20s/^/  /p'
  status=1
else
  echo "disagreements: 0"
fi
if [ -n "$refused" ]; then
  echo "FAIL: $(echo "$refused" | wc -l) grammars refused by xgrammar or past ${timeout_s} s:"
  echo "$refused" | sed -n '1,20s/^/  /p'
  status=1
else
  echo "refused by xgrammar: 0"
fi
if [ -n "$slow" ]; then
  echo "FAIL: compiles over $compile_ms_max ms of CPU:"
  echo "$slow" | sed 's/^/  /'
  status=1
fi
if [ "$status" = 0 ]; then echo "PASS"; fi
exit "$status"
