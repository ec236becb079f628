#!/usr/bin/env bash
# Compares llama.cpp's tokenizer with the Go tokenizer (Hugging Face's rule)
# on one vocabulary: what llama-server makes of the prompt text the gateway
# sends without --tokenizer (docs/llama-cpp.md, "The engine's tokenizer").
#
# Usage: templates/llamacpp/tokenizer.sh LLAMA_SERVER GGUF_PY_DIR [TOKENIZER_DIR] [go test flags]
#
#   LLAMA_SERVER   an llama-server binary you built (this script builds nothing)
#   GGUF_PY_DIR    the gguf-py directory of the same llama.cpp checkout
#   TOKENIZER_DIR  a directory holding the tokenizer.json to compare on;
#                  without it, the stand-in (go run ./cmd/standin-tokenizer)
#
# It writes a tiny model carrying the tokenizer's vocabulary
# (make_tokenizer_gguf.py; Python 3 with numpy, PYTHON chooses the
# interpreter), starts llama-server on 127.0.0.1, runs
# TestLlamaCppTokenizer against its /tokenize (-llama-texts N sets the
# random texts, 5000 by default), and stops the server.
set -euo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,17p' "$0" >&2
  exit 2
fi
server=$1
ggufpy=$2
shift 2
tokdir=""
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  tokdir=$(cd "$1" && pwd)
  shift
fi
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

if [ -z "$tokdir" ]; then
  tokdir=$work/standin
  go run ./cmd/standin-tokenizer "$tokdir" >/dev/null
fi
"${PYTHON:-python3}" templates/llamacpp/make_tokenizer_gguf.py --gguf-py "$ggufpy" "$tokdir/tokenizer.json" "$work/tokenizer.gguf"
port=${PORT:-18183}
"$server" -m "$work/tokenizer.gguf" --host 127.0.0.1 --port "$port" -c 512 -np 1 -t 1 -tb 1 >"$work/server.log" 2>&1 &
pid=$!
# shellcheck source=templates/llamacpp/server.sh
. templates/llamacpp/server.sh
wait_for_server "$port" "$pid" "$work/server.log"
"$server" --version 2>&1 | grep -i -m2 "version\|commit" || true
go test ./tokenizer -run 'TestLlamaCppTokenizer' -count=1 -v -timeout 60m \
  -llama-server "http://127.0.0.1:$port" -llama-tokenizer "$tokdir" "$@"
