#!/usr/bin/env bash
# Compares templates/chat_template.jinja run by llama.cpp's Jinja engine with
# the Go renderer, over the differential corpus (docs/llama-cpp.md).
#
# Usage: templates/llamacpp/compare.sh LLAMA_SERVER GGUF_PY_DIR [go test flags]
#
#   LLAMA_SERVER  an llama-server binary you built (this script builds nothing)
#   GGUF_PY_DIR   the gguf-py directory of the same llama.cpp checkout
#
# It writes a tiny model with make_tiny_gguf.py (Python 3 with numpy; set
# PYTHON to choose the interpreter), starts llama-server on 127.0.0.1 with
# the template (--jinja --chat-template-file, --no-prefill-assistant so that
# a conversation ending with an assistant turn is rendered as it is), runs
# TestTemplateMatchesGoRendererLlamaCpp against it, and stops the server.
set -euo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,14p' "$0" >&2
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

"${PYTHON:-python3}" templates/llamacpp/make_tiny_gguf.py --gguf-py "$ggufpy" "$work/tiny.gguf"
port=${PORT:-18181}
"$server" -m "$work/tiny.gguf" --jinja --chat-template-file templates/chat_template.jinja \
  --no-prefill-assistant --host 127.0.0.1 --port "$port" -c 512 -np 1 >"$work/server.log" 2>&1 &
pid=$!
# shellcheck source=templates/llamacpp/server.sh
. templates/llamacpp/server.sh
wait_for_server "$port" "$pid" "$work/server.log"
"$server" --version 2>&1 | grep -i -m2 "version\|commit" || true
go test ./templates -run 'TestTemplateMatchesGoRendererLlamaCpp' -count=1 -v -llama.url "http://127.0.0.1:$port" "$@"
