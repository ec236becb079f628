#!/usr/bin/env bash
# The grammar package's EBNF grammars run through llguidance, the grammar
# engine of vLLM's "guidance" structured-output backend and SGLang's
# "llguidance" grammar backend, the way those engines run a grammar they
# are sent: llguidance's own GBNF-to-Lark converter
# (python/llguidance/gbnf_to_lark.py, any_to_lark), then its Lark parser,
# compiler and matcher (gap decision 239; docs/serve.md, "Grammars in
# llguidance").
#
# Usage: templates/llguidance/grammar.sh LLGUIDANCE_DIR
#
#   LLGUIDANCE_DIR  an llguidance checkout (github.com/guidance-ai/llguidance:
#                   parser/, toktrie/ and python/llguidance/gbnf_to_lark.py)
#
# It builds llgcheck (templates/llguidance/llgcheck, Beam's code, with cargo;
# crates.io must be reachable, or set LLGCHECK to an llgcheck built
# elsewhere), writes the grammars of every JSON Schema Test Suite schema
# that compiles, of the attacks and of the schemas with parts that match
# nothing, with their texts and the Go matcher's verdicts (go test ./grammar/
# -dump-grammars DIR), converts each NAME.ebnf as the engines do, and
# compiles and matches it with llguidance. With each grammar's first text in
# the language, it also matches a probe: that text with 2,000 more
# characters of reasoning (x repeated, which no marker can hold), which the
# grammar accepts by construction. KEEP_ZEROS=1 converts with the converter's
# \u escapes kept whole (it drops their leading zeros, so that \u003c
# becomes \u3c, which llguidance's regular expressions refuse): the
# converter's code is read from the checkout and that one expression
# changed in memory, to see what else stands in the way. Fails on any
# grammar refused, any disagreement with the Go matcher and any probe
# refused. LLGUIDANCE_COMMIT names the commit of a tree that is not a git
# checkout, JOBS the parallel jobs of the build (2). Not part of CI: on 5 December 2026 (llguidance c75b0d9) every
# grammar is refused (docs/gap-decisions.md, 239).
set -euo pipefail
if [ $# -ne 1 ]; then
  sed -n '2,32p' "$0" >&2
  exit 2
fi
llg=$(cd "$1" && pwd)
for f in parser/Cargo.toml toktrie/Cargo.toml python/llguidance/gbnf_to_lark.py; do
  [ -f "$llg/$f" ] || { echo "$llg/$f: not found; is $1 an llguidance checkout?" >&2; exit 2; }
done
cd "$(dirname "$0")/../.."
root=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
commit=${LLGUIDANCE_COMMIT:-$(git -C "$llg" rev-parse HEAD 2>/dev/null || echo "unknown (not a git checkout; LLGUIDANCE_COMMIT names it)")}
echo "llguidance: $llg, commit $commit"

if [ -n "${LLGCHECK:-}" ]; then
  check=$LLGCHECK
else
  echo "building llgcheck..."
  mkdir -p "$work/llgcheck/src"
  cp templates/llguidance/llgcheck/src/main.rs "$work/llgcheck/src/"
  cat >"$work/llgcheck/Cargo.toml" <<EOF
[package]
name = "llgcheck"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
llguidance = { path = "$llg/parser", default-features = false, features = ["lark"] }
toktrie = { path = "$llg/toktrie" }

[workspace]
EOF
  cargo build --quiet --release --manifest-path "$work/llgcheck/Cargo.toml" -j "${JOBS:-2}"
  check=$work/llgcheck/target/release/llgcheck
fi

echo "writing the grammars..."
go test ./grammar/ -run '^TestDumpGrammarsForLlama$' -count=1 -v -timeout 60m -dump-grammars "$work/g" | grep -E 'wrote' || true
[ -s "$work/g/grammars.txt" ] || { echo "the dumper wrote no grammars" >&2; exit 1; }

echo "converting them with llguidance's converter$([ "${KEEP_ZEROS:-}" = 1 ] && echo ", \\u escapes kept whole")..."
python3 - "$llg/python/llguidance/gbnf_to_lark.py" "$work/g" "${KEEP_ZEROS:-0}" <<'PY'
import sys, types
src, d, keep = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
code = open(src).read()
if keep:
    changed = code.replace("hex_value.lstrip('0')", "hex_value")
    if changed == code:
        sys.exit("KEEP_ZEROS: the converter no longer strips the zeros as it did; nothing to change")
    code = changed
mod = types.ModuleType("gbnf_to_lark")
exec(compile(code, src, "exec"), mod.__dict__)
for line in open(f"{d}/grammars.txt"):
    name = line.strip()[: -len(".gbnf")]
    try:
        out = mod.any_to_lark(open(f"{d}/{name}.ebnf").read())
    except Exception as e:
        open(f"{d}/{name}.converr", "w").write(str(e).replace("\n", " ")[:300])
        continue
    open(f"{d}/{name}.lark", "w").write(out)
PY

# Each grammar compiled and its texts matched: compiles.txt gets GRAMMAR
# compile_us or GRAMMAR refused REASON; got.txt GRAMMAR TEXT ok|fail.
echo "checking $(wc -l <"$work/g/grammars.txt") grammars with llguidance..."
cd "$work/g"
: >compiles.txt
: >got.txt
: >probes.txt
declare -A textsOf firstOk
while read -r gr list; do textsOf[$gr]=$list; done < <(awk '$1 != g { if (g != "") print g, l; g = $1; l = "" } { l = l " " $2 } END { if (g != "") print g, l }' expected.txt)
while read -r gr t; do firstOk[$gr]=$t; done < <(awk '$3 == "ok" && !($1 in seen) { seen[$1] = 1; print $1, $2 }' expected.txt)
prefix='<|channel|>analysis<|message|>'
while read -r gr; do
  name=${gr%.gbnf}
  if [ -f "$name.converr" ]; then
    echo "$gr refused converter: $(cat "$name.converr")" >>compiles.txt
    continue
  fi
  read -r -a texts <<<"${textsOf[$gr]:-}"
  probe=()
  ok=${firstOk[$gr]:-}
  if [ -n "$ok" ] && [ "$(head -c ${#prefix} "$ok")" = "$prefix" ]; then
    { printf '%s' "$prefix"; head -c 2000 /dev/zero | tr '\0' x; tail -c +$((${#prefix} + 1)) "$ok"; } >"$name.probe"
    probe=("$name.probe")
  fi
  set +e
  out=$("$check" "$name.lark" "${texts[@]}" "${probe[@]}" 2>"$work/stderr")
  rc=$?
  set -e
  grep -a '^llgcheck: .*\.probe: ' "$work/stderr" >>probe-reasons.txt || true
  first=${out%%$'\n'*}
  case $first in
    compile_us=*) ;;
    refused*) echo "$gr refused $(printf '%s' "${out#refused: }" | tr '\n' ' ' | head -c 300)" >>compiles.txt; continue ;;
    *)
      if [ "$rc" -ge 128 ]; then # llguidance itself crashed (a stack overflow aborts)
        echo "$gr refused crashed with status $rc: $(grep -av '^llgcheck: ' "$work/stderr" | tr '\n' ' ' | head -c 200)" >>compiles.txt
        continue
      fi
      echo "$gr: llgcheck exited $rc: $first $(head -c 300 "$work/stderr")" >&2; exit 1 ;;
  esac
  echo "$gr ${first#compile_us=}" >>compiles.txt
  echo "$out" | awk -v g="$gr" 'NR > 1 && $2 !~ /\.probe$/ { print g, $2, $1 }' >>got.txt
  echo "$out" | awk -v g="$gr" 'NR > 1 && $2 ~ /\.probe$/ { print g, $1 }' >>probes.txt
done <grammars.txt

status=0
grammars=$(wc -l <grammars.txt)
refused=$(awk '$2 == "refused"' compiles.txt)
texts=$(wc -l <got.txt)
expected=$(wc -l <expected.txt)
disagree=$(awk 'NR == FNR { want[$1 " " $2] = $3; next } { k = $1 " " $2; if (!(k in want)) print k, "unexpected"; else if (want[k] != $3) print k, "llguidance:", $3, "Go:", want[k] }' expected.txt got.txt)
echo
echo "grammars checked: $grammars; compiled by llguidance: $((grammars - $(echo -n "$refused" | grep -c '^' || true))); crashed: $(grep -c ' refused crashed ' compiles.txt || true)"
echo "texts matched: $texts of $expected"
if [ -n "$refused" ]; then
  echo "FAIL: $(echo "$refused" | wc -l) grammars refused by the converter or llguidance; the first:"
  echo "$refused" | sed -n '1,5s/^/  /p' | cut -c1-400
  status=1
fi
if [ -n "$disagree" ]; then
  echo "FAIL: $(echo "$disagree" | wc -l) disagreements between llguidance and the Go matcher ($(echo "$disagree" | grep -c 'llguidance: fail Go: ok' || true) texts in the language refused, $(echo "$disagree" | grep -c 'llguidance: ok Go: fail' || true) outside it accepted):"
  echo "$disagree" | sed -n '1,20s/^/  /p'
  status=1
elif [ "$texts" -gt 0 ]; then
  echo "disagreements: 0"
fi
probesFailed=$(awk '$2 == "fail"' probes.txt)
if [ -s probes.txt ]; then
  echo "probes (a text in the language with 2,000 more characters of reasoning): $(wc -l <probes.txt), refused $(echo -n "$probesFailed" | grep -c '^' || true)"
fi
if [ -n "$probesFailed" ]; then
  echo "FAIL: probes refused; the first:"
  echo "$probesFailed" | sed -n '1,5s/^/  /p'
  echo "  why (the first): $(head -1 probe-reasons.txt | cut -c1-300)"
  status=1
fi
if [ "$status" = 0 ]; then echo "PASS"; fi
exit "$status"
