#!/usr/bin/env bash
# Runs the agent libraries' tool loops through the gateway in front of the
# scripted engine (engine/main.go):
#   - the Vercel AI SDK (libraries/aisdk.mjs: generateText and streamText
#     with a get_weather tool) with each of its providers for the gateway's
#     APIs: @ai-sdk/openai-compatible (Chat Completions), @ai-sdk/openai's
#     responses model (store left on, and store: false) and its chat model,
#     @ai-sdk/anthropic (Messages);
#   - LangChain.js (libraries/langchain.mjs: invoke and stream) with
#     ChatOpenAI on Chat Completions and on Responses, and ChatAnthropic;
#   - the OpenAI Agents SDK (libraries/agents-sdk.mjs: run, whole and
#     streamed) on Responses and on Chat Completions, and a second run
#     carried by previousResponseId (with the memory only).
# Twice: a gateway as started by default, then one with
# --reasoning-memory-bytes, which reads the item_reference items
# @ai-sdk/openai's Responses model sends by default and restores the
# reasoning its chat model and LangChain's ChatOpenAI leave out
# (docs/agents.md: "Vercel AI SDK", "LangChain.js", "OpenAI Agents SDK").
# Not part of CI: it installs the libraries from npm (pinned below).
#
# Usage: serve/testdata/agents/libraries.sh
# Prints each provider's result under each gateway; exits 1 when a
# provider the docs say works failed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
# The libraries, pinned (not a package.json: CI installs those): npm's
# newest on 6 December 2026. ai 7, its providers and @langchain/openai 1.6
# declare Node.js 22 (npm warns EBADENGINE on an older one) and run on
# Node.js 20; LIBRARIES_PREVIOUS=1 installs the releases before them (ai 6,
# what npm picks for a bare "ai" on Node.js 20), checked the same way.
packages="ai@7.0.185 @ai-sdk/openai-compatible@3.0.97 @ai-sdk/openai@4.0.126 @ai-sdk/anthropic@4.0.112
  @langchain/core@1.4.0 @langchain/openai@1.6.0 @langchain/anthropic@1.5.11 @openai/agents@0.20.0 openai@7.60.0 zod@4.6.7"
if [ -n "${LIBRARIES_PREVIOUS:-}" ]; then
  packages="ai@6.0.333 @ai-sdk/openai-compatible@2.0.92 @ai-sdk/openai@3.0.141 @ai-sdk/anthropic@3.0.140
  @langchain/core@1.4.0 @langchain/openai@1.5.8 @langchain/anthropic@1.5.11 @openai/agents@0.20.0 openai@7.60.0 zod@4.6.7"
fi
cp "$here/libraries/aisdk.mjs" "$here/libraries/langchain.mjs" "$here/libraries/agents-sdk.mjs" "$work/"
(cd "$work" && npm init -y >/dev/null && npm install --no-audit --no-fund --loglevel=error --engine-strict=false $packages >/dev/null)
(cd "$root" && go build -o "$work/beamharmony" ./cmd/beamharmony && go build -o "$work/engine" ./serve/testdata/agents/engine)

eport=${ENGINE_PORT:-18201} gport=${GATEWAY_PORT:-18280}
"$work/engine" -listen "127.0.0.1:$eport" >"$work/engine.log" 2>&1 &
pids+=($!)
status=0
# The providers that work with each gateway, by the docs.
for run in default memory; do
  flags=() expect="openai-compatible openai-responses-store-false anthropic langchain-openai-responses langchain-anthropic
    agents-sdk-responses agents-sdk-chat_completions"
  if [ "$run" = memory ]; then
    flags=(--reasoning-memory-bytes 16777216)
    expect="$expect openai-responses openai-chat langchain-openai-chat agents-sdk-previous"
  fi
  "$work/beamharmony" serve --backend "http://127.0.0.1:$eport" --listen "127.0.0.1:$gport" --model beam \
    --engine vllm --log-format text "${flags[@]}" >"$work/gateway-$run.log" 2>&1 &
  gpid=$!
  for _ in $(seq 50); do curl -sf "http://127.0.0.1:$gport/v1/models" >/dev/null 2>&1 && break; sleep 0.2; done
  echo "== gateway: $run ${flags[*]}"
  for script in aisdk langchain agents-sdk; do
    (cd "$work" && GATEWAY=http://127.0.0.1:$gport/v1 AI_SDK_LOG_WARNINGS=false node $script.mjs) || true
  done | tee "$work/out-$run"
  for p in $expect; do
    if [ "$(grep -c "^$p [a-z]*: ok" "$work/out-$run")" != 2 ]; then
      echo "$p: FAILED with the $run gateway" >&2
      status=1
    fi
  done
  kill "$gpid"; wait "$gpid" 2>/dev/null || true
done
exit $status
