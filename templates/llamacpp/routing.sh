#!/usr/bin/env bash
# Measures prefix-aware routing in front of three real llama-server
# replicas (docs/routing.md): TestRoutingLlamaCpp in package serve runs 12
# conversations of 4 turns through a prefix-blind router, through the
# gateway, and through two gateways, reports the share of turn 2-4 prompt
# tokens the engines read from their prefix caches, then kills the busiest
# replica and checks that no new request is lost.
#
# Usage: templates/llamacpp/routing.sh LLAMA_SERVER GGUF_PY_DIR [go test flags]
#
#   LLAMA_SERVER  an llama-server binary you built (docs/llama-cpp.md)
#   GGUF_PY_DIR   the gguf-py directory of the same checkout
#
# It writes a tiny random model with Beam's markers as tokens
# (make_beam_gguf.py; PYTHON picks an interpreter with numpy), starts three
# servers on 127.0.0.1 (4 slots each, prompt cache on, as by default;
# --slot-prompt-similarity 0.5, so that a new conversation takes a free slot
# rather than the one of another conversation that shares its system
# prompt), runs the test and stops them. Not part of CI.
set -euo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,19p' "$0" >&2
  exit 2
fi
server=$1
ggufpy=$2
shift 2
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  if [ -n "${KEEP_LOGS:-}" ]; then cp "$work"/server*.log "$KEEP_LOGS"/ 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# Bytes 0x80-0xFF rare (as constrained.sh): llama-server answers HTTP 500 to
# a generation that is not valid UTF-8, and a replica answering 500 three
# times in a row is taken out of routing, which moved conversations and
# their caches in the measurement (6 December 2026: shares of 0.70 to 0.88).
"${PYTHON:-python3}" templates/llamacpp/make_beam_gguf.py --gguf-py "$ggufpy" --high-byte-bias -2 "$work/beam.gguf"
urls=()
base=${PORT:-18301}
for i in 0 1 2; do
  port=$((base + i))
  "$server" -m "$work/beam.gguf" --host 127.0.0.1 --port "$port" -c 32768 -np 4 --special --slot-prompt-similarity 0.5 \
    >"$work/server$i.log" 2>&1 &
  pids+=($!)
  urls+=("http://127.0.0.1:$port")
done
for i in 0 1 2; do
  for _ in $(seq 120); do
    if curl -sf "${urls[$i]}/health" >/dev/null 2>&1; then break; fi
    if ! kill -0 "${pids[$i]}" 2>/dev/null; then
      echo "llama-server $i exited:" >&2; cat "$work/server$i.log" >&2; exit 1
    fi
    sleep 0.5
  done
  curl -sf "${urls[$i]}/health" >/dev/null || { echo "llama-server $i did not come up" >&2; exit 1; }
done
joined=$(IFS=,; echo "${urls[*]}")
joinedpids=$(IFS=,; echo "${pids[*]}")
go test ./serve -run TestRoutingLlamaCpp -count=1 -v -llama.replicas "$joined" -llama.pids "$joinedpids" "$@"
