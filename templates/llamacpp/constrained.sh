#!/usr/bin/env bash
# Constrained generation through the gateway against a real llama-server
# (issue 16; docs/llama-cpp.md, "Constrained generation").
#
# Usage: templates/llamacpp/constrained.sh LLAMA_SERVER GGUF_PY_DIR [go test flags]
#
#   LLAMA_SERVER  an llama-server binary you built (this script builds nothing)
#   GGUF_PY_DIR   the gguf-py directory of the same llama.cpp checkout
#
# It writes a tiny random-weight model whose vocabulary holds Beam's markers
# (make_beam_gguf.py; Python 3 with numpy, PYTHON chooses the interpreter),
# starts llama-server on 127.0.0.1 with --special, runs
# TestConstrainedLlamaCpp against it (-llama.n N sets the requests per case,
# 5 by default), checks that the server is still running, and stops it.
# With TOKENIZER_DIR set to a directory holding a tokenizer.json ("standin":
# go run ./cmd/standin-tokenizer), the model carries that vocabulary instead
# (make_tokenizer_gguf.py) and the gateway sends token ids encoded with it,
# as serve --tokenizer does.
set -euo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,18p' "$0" >&2
  exit 2
fi
server=$1
ggufpy=$2
shift 2
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# <|end|> favoured, so that the random model ends its reasoning; bytes
# 0x80-0xFF rare, since llama-server answers HTTP 500 to a generation that
# is not valid UTF-8.
tokflags=()
if [ -n "${TOKENIZER_DIR:-}" ]; then
  if [ "$TOKENIZER_DIR" = standin ]; then
    TOKENIZER_DIR=$work/standin
    go run ./cmd/standin-tokenizer "$TOKENIZER_DIR" >/dev/null
  fi
  TOKENIZER_DIR=$(cd "$TOKENIZER_DIR" && pwd)
  # Tokens that are not printable ASCII rare, so that a reply cut by
  # max_tokens does not end inside a character; tokens of several
  # characters rare, so that numbers and strings end about as often as
  # with the byte vocabulary.
  "${PYTHON:-python3}" templates/llamacpp/make_tokenizer_gguf.py --gguf-py "$ggufpy" --end-bias 2.5 --non-ascii-bias -2 --long-bias -3 "$TOKENIZER_DIR/tokenizer.json" "$work/beam.gguf"
  tokflags=(-llama.tokenizer "$TOKENIZER_DIR")
else
  "${PYTHON:-python3}" templates/llamacpp/make_beam_gguf.py --gguf-py "$ggufpy" --end-bias 2.5 --high-byte-bias -2 "$work/beam.gguf"
fi
port=${PORT:-18182}
# One thread: the model is tiny, and llama.cpp's spinning threads crawl on a
# busy machine.
"$server" -m "$work/beam.gguf" --special --host 127.0.0.1 --port "$port" -c 8192 -np 1 -t 1 -tb 1 >"$work/server.log" 2>&1 &
pid=$!
# shellcheck source=templates/llamacpp/server.sh
. templates/llamacpp/server.sh
wait_for_server "$port" "$pid" "$work/server.log"
"$server" --version 2>&1 | grep -i -m2 "version\|commit" || true
status=0
go test ./serve -run 'TestConstrainedLlamaCpp' -count=1 -v -timeout 60m -llama.url "http://127.0.0.1:$port" "${tokflags[@]}" "$@" || status=$?
if ! kill -0 "$pid" 2>/dev/null; then
  echo "llama-server is no longer running:" >&2; tail -50 "$work/server.log" >&2; exit 1
fi
echo "llama-server still running (pid $pid)"
if grep -q "Unexpected empty grammar stack\|GGML_ASSERT\|Segmentation" "$work/server.log"; then
  echo "llama-server log shows a crash or assertion:" >&2; grep -m5 "Unexpected empty grammar stack\|GGML_ASSERT\|Segmentation" "$work/server.log" >&2; exit 1
fi
exit $status
