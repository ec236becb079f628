#!/usr/bin/env bash
# Runs Claude Code, Codex, opencode, Kilo Code, Factory's droid (Messages and
# Responses; "droid", Chat Completions, "continue", Continue's CLI, and
# "grok", Grok CLI, only when named, since they drop the reasoning and need GATEWAY_FLAGS=
# "--reasoning-memory-bytes N" or --allow-missing-thinking), Qwen Code, pi and
# GitHub Copilot (each of the last two over the three APIs), installed from npm, through the
# gateway in front of a scripted engine (engine/main.go), and checks that
# each finishes a session of two shell tool calls and a streamed answer
# (issue 32; docs/agents.md). Not part of CI: it downloads the clients.
#
# Usage: serve/testdata/agents/run.sh [--record DIR] [claude|codex|opencode|kilo|droid|droid-anthropic|droid-responses|continue|grok|qwen|pi|pi-anthropic|pi-responses|copilot|copilot-anthropic|copilot-responses ...]
#
#   --record DIR  also write each client's requests to DIR/CLIENT-VERSION/
#                 (what serve/testdata/agents/sessions holds, untrimmed;
#                 trim.py trims a recording as the sessions are)
#
# Needs Go, node and npm; reaches only the npm registry (Claude Code
# 2.1.332 and Qwen Code 0.24.4 declare Node.js 22, and npm warns EBADENGINE on an older one, but
# both run on Node.js 20). Set GATEWAY_FLAGS
# to pass flags to the gateway (--refuse-late-instructions, say: Claude
# Code then falls back and still finishes). The clients' versions are
# pinned below; set AGENTS_LATEST=1 to try the newest, KEEP=1 to keep the
# working directory (logs, the clients' output, the requests).
set -euo pipefail
record=""
if [ "${1:-}" = "--record" ]; then record=$(realpath -m "$2"); shift 2; fi
clients=("$@")
[ ${#clients[@]} -gt 0 ] || clients=(claude codex opencode kilo droid-anthropic droid-responses qwen pi pi-anthropic pi-responses copilot copilot-anthropic copilot-responses)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}" ${epid:-}; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  if [ -n "${KEEP:-}" ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

# The npm package each client runs from, pinned.
package_of() {
  case $1 in
  claude) echo @anthropic-ai/claude-code@2.1.332 ;;
  codex) echo @openai/codex@0.171.0 ;;
  opencode) echo opencode-ai@1.18.33 ;;
  kilo) echo @kilocode/cli@7.7.7 ;;
  droid*) echo @factory/cli-linux-x64@0.225.2 ;;
  qwen) echo @qwen-code/qwen-code@0.24.4 ;;
  pi*) echo @mariozechner/pi-coding-agent@0.73.1 ;;
  copilot*) echo @github/copilot@1.0.102 ;;
  continue) echo @continuedev/cli@1.5.47 ;;
  grok) echo @vibe-kit/grok-cli@0.0.34 ;;
  *) echo "unknown client $1" >&2; exit 2 ;;
  esac
}
# package_for is package_of at the version run: @latest with AGENTS_LATEST
# (not a bare name: npm would otherwise fall back to an older release
# whose "engines" field matches the machine's Node.js).
package_for() {
  local pkg
  pkg=$(package_of "$1") || exit 2
  [ -z "${AGENTS_LATEST:-}" ] || pkg=${pkg%@*}@latest
  echo "$pkg"
}
# Each package on its own, only those the clients named need: one that
# can't be installed fails its clients, not the run.
(cd "$work" && npm init -y >/dev/null)
installed=" "
for c in "${clients[@]}"; do
  pkg=$(package_for "$c")
  case $installed in *" $pkg "*) continue ;; esac
  if (cd "$work" && npm install --no-audit --no-fund "$pkg" >"$work/npm.log" 2>&1); then
    installed="$installed$pkg "
  else
    echo "npm could not install $pkg:" >&2; grep -i error "$work/npm.log" | head -5 >&2
  fi
done
bin=$work/node_modules/.bin
(cd "$root" && go build -o "$work/beamharmony" ./cmd/beamharmony && go build -o "$work/engine" ./serve/testdata/agents/engine)

eport=${ENGINE_PORT:-18001} gport=${GATEWAY_PORT:-18080} pport=${PROXY_PORT:-18090}
"$work/beamharmony" serve --backend "http://127.0.0.1:$eport" --listen "127.0.0.1:$gport" --model beam \
  --signing-key agents-replay --engine vllm --log-format text ${GATEWAY_FLAGS:-} >"$work/gateway.log" 2>&1 &
pids+=($!)
# /v1/models answers from --model, without the engine (which starts per client).
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$gport/v1/models" >/dev/null 2>&1 && break; sleep 0.2; done

prompt="Run echo one, then echo two, with your shell tool, then tell me what they printed."
want="Both commands ran: one, then two."
status=0
for c in "${clients[@]}"; do
  dir=$work/rec-$c
  "$work/engine" -listen "127.0.0.1:$eport" -listen-proxy "127.0.0.1:$pport" -gateway "http://127.0.0.1:$gport" -record "$dir" >"$work/engine-$c.log" 2>&1 &
  epid=$!
  sleep 0.5
  home=$work/home-$c
  mkdir -p "$home" "$work/cwd-$c"
  out=$work/$c.out
  case $installed in *" $(package_for "$c") "*) ;; *)
    echo "$c: FAILED (not installed)" >&2; status=1; kill "$epid"; wait "$epid" 2>/dev/null || true; continue ;;
  esac
  case $c in
  claude)
    version=$("$bin/claude" --version | cut -d' ' -f1)
    (cd "$work/cwd-$c" && HOME=$home ANTHROPIC_BASE_URL=http://127.0.0.1:$pport ANTHROPIC_API_KEY=sk-local \
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 \
      ANTHROPIC_MODEL=beam ANTHROPIC_SMALL_FAST_MODEL=beam ANTHROPIC_DEFAULT_HAIKU_MODEL=beam \
      timeout 180 "$bin/claude" -p "$prompt" --allowedTools Bash >"$out" 2>"$out.err") || true
    name=claude-code-$version ;;
  codex)
    version=$("$bin/codex" --version | cut -d' ' -f2)
    cat >"$home/config.toml" <<TOML
model = "beam"
model_provider = "beam"

[model_providers.beam]
name = "Beam"
base_url = "http://127.0.0.1:$pport/v1"
env_key = "BEAM_API_KEY"
wire_api = "responses"
TOML
    (cd "$work/cwd-$c" && CODEX_HOME=$home BEAM_API_KEY=sk-local timeout 180 "$bin/codex" exec --skip-git-repo-check \
      --dangerously-bypass-approvals-and-sandbox "$prompt" >"$out" 2>"$out.err") || true
    name=codex-$version ;;
  opencode|kilo)
    # Kilo Code's CLI is a fork of opencode: the same provider settings, in
    # its own configuration file (~/.config/kilo/kilo.json).
    version=$("$bin/$c" --version 2>/dev/null | tail -1)
    config=opencode
    [ "$c" = opencode ] || config=kilo
    mkdir -p "$home/.config/$config"
    cat >"$home/.config/$config/$config.json" <<JSON
{"provider": {"beam": {"npm": "@ai-sdk/openai-compatible", "name": "Beam",
   "options": {"baseURL": "http://127.0.0.1:$pport/v1", "apiKey": "sk-local"},
   "models": {"beam": {"name": "Beam", "tool_call": true, "reasoning": true}}}},
 "model": "beam/beam", "small_model": "beam/beam", "autoupdate": false, "share": "disabled"}
JSON
    (cd "$work/cwd-$c" && HOME=$home XDG_CONFIG_HOME=$home/.config timeout 180 "$bin/$c" run "$prompt" >"$out" 2>"$out.err") || true
    name=$c-$version ;;
  droid|droid-anthropic|droid-responses)
    # Factory's droid with a custom model ("bring your own key"); its
    # platform package is installed by name (its launcher's optional
    # dependency may lag behind it on a registry mirror).
    droid=$work/node_modules/@factory/cli-linux-x64/bin/droid
    version=$("$droid" --version | tail -1)
    mkdir -p "$home/.factory"
    provider=generic-chat-completion-api url=http://127.0.0.1:$pport/v1
    case $c in
    droid-anthropic) provider=anthropic url=http://127.0.0.1:$pport ;;
    droid-responses) provider=openai ;;
    esac
    cat >"$home/.factory/settings.json" <<JSON
{"customModels": [{"model": "beam", "displayName": "Beam", "baseUrl": "$url",
  "apiKey": "sk-local", "provider": "$provider", "maxOutputTokens": 16384}]}
JSON
    (cd "$work/cwd-$c" && HOME=$home timeout 180 "$droid" exec -m custom:Beam-0 --auto high "$prompt" >"$out" 2>"$out.err") || true
    name=droid-$version${c#droid} ;;
  qwen)
    version=$("$bin/qwen" --version)
    (cd "$work/cwd-$c" && HOME=$home QWEN_CODE_SUPPRESS_YOLO_WARNING=1 timeout 180 "$bin/qwen" --auth-type openai --openai-api-key sk-local \
      --openai-base-url "http://127.0.0.1:$pport/v1" -m beam --yolo "$prompt" >"$out" 2>"$out.err") || true
    name=qwen-code-$version ;;
  continue)
    version=$("$bin/cn" --version 2>/dev/null | tail -1)
    mkdir -p "$home/.continue"
    cat >"$home/.continue/config.yaml" <<YAML
name: Beam
version: 1.0.0
schema: v1
models:
  - name: Beam
    provider: openai
    model: beam
    apiBase: http://127.0.0.1:$pport/v1
    apiKey: sk-local
    roles: [chat, edit, apply]
    capabilities: [tool_use]
YAML
    (cd "$work/cwd-$c" && HOME=$home timeout 180 "$bin/cn" --config "$home/.continue/config.yaml" --auto -p "$prompt" >"$out" 2>"$out.err") || true
    name=continue-cli-$version ;;
  grok)
    # Grok CLI: Chat Completions through the openai SDK, headless with -p.
    # (grok --version prints 1.0.1 for the npm package 0.0.34: the package's version names it.)
    version=$(node -p "require('$work/node_modules/@vibe-kit/grok-cli/package.json').version")
    (cd "$work/cwd-$c" && HOME=$home timeout 180 "$bin/grok" -k sk-local -u "http://127.0.0.1:$pport/v1" -m beam -d "$work/cwd-$c" \
      -p "$prompt" >"$out" 2>"$out.err") || true
    name=grok-cli-$version ;;
  pi|pi-anthropic|pi-responses)
    # pi speaks Chat Completions, Anthropic Messages or Responses as its
    # models.json says: one client, the gateway's three APIs.
    version=$("$bin/pi" --version 2>&1 | tail -1) # pi prints it on stderr
    case $c in
    pi) api=openai-completions url=http://127.0.0.1:$pport/v1 ;;
    pi-anthropic) api=anthropic-messages url=http://127.0.0.1:$pport ;;
    pi-responses) api=openai-responses url=http://127.0.0.1:$pport/v1 ;;
    esac
    mkdir -p "$home/.pi/agent"
    cat >"$home/.pi/agent/models.json" <<JSON
{"providers": {"beam": {"baseUrl": "$url", "api": "$api", "apiKey": "sk-local",
  "models": [{"id": "beam", "reasoning": true}]}}}
JSON
    (cd "$work/cwd-$c" && HOME=$home PI_SKIP_VERSION_CHECK=1 timeout 180 "$bin/pi" -p --no-session --provider beam --model beam "$prompt" \
      >"$out" 2>"$out.err") || true
    name=pi-coding-agent-$version${c#pi} ;;
  copilot|copilot-anthropic|copilot-responses)
    # GitHub Copilot CLI with a custom provider (BYOK), offline: no GitHub
    # sign-in, telemetry or update.
    version=$("$bin/copilot" --version | grep -o "[0-9]*\.[0-9]*\.[0-9]*" | head -1)
    ptype=openai wire=completions url=http://127.0.0.1:$pport/v1
    case $c in
    copilot-anthropic) ptype=anthropic url=http://127.0.0.1:$pport ;;
    copilot-responses) wire=responses ;;
    esac
    (cd "$work/cwd-$c" && HOME=$home COPILOT_HOME=$home/.copilot COPILOT_OFFLINE=true COPILOT_AUTO_UPDATE=false \
      COPILOT_PROVIDER_BASE_URL=$url COPILOT_PROVIDER_TYPE=$ptype COPILOT_PROVIDER_WIRE_API=$wire \
      COPILOT_PROVIDER_API_KEY=sk-local COPILOT_MODEL=beam COPILOT_ALLOW_ALL=true \
      timeout 180 "$bin/copilot" -p "$prompt" -s --disable-client-telemetry >"$out" 2>"$out.err") || true
    name=copilot-$version${c#copilot} ;;
  *) echo "unknown client $c" >&2; exit 2 ;;
  esac
  # Time for the recorder to write the last exchanges: a client can exit
  # before the proxy has finished relaying a reply it did not wait for.
  # Up to thirty seconds, while fewer than three are written (one second
  # was too short once on a busy machine). Codex's third exchange went
  # missing once on 6 December 2026 though the gateway answered it: Codex
  # can hang up before the proxy has relayed the whole reply (the gateway
  # had finished it), and the reverse proxy's abort skipped the recording.
  # The proxy now records such an exchange and logs "the client hung up"
  # (engine/main.go's relay): logged in 2 of 5 Codex runs that evening,
  # each recorded and "ok".
  generations() { cat "$dir"/*.json 2>/dev/null | grep -c '"generations"' || true; }
  for _ in $(seq 60); do
    [ "$(generations)" -ge 3 ] && break
    sleep 0.5
  done
  sleep 1; kill "$epid"; wait "$epid" 2>/dev/null || true
  if grep -qF "$want" "$out" && [ "$(generations)" -ge 3 ]; then
    echo "$name: ok ($(ls "$dir" | wc -l) requests)"
  else
    echo "$name: FAILED ($(ls "$dir" | wc -l) requests recorded); its output, then the gateway's log:" >&2
    cat "$out" "$out.err" >&2; tail -20 "$work/gateway.log" >&2; status=1
  fi
  if [ -n "$record" ]; then mkdir -p "$record/$name" && cp "$dir"/*.json "$record/$name/"; fi
done
# What the gateway refused or failed, besides Claude Code's HEAD / probe.
grep -E 'status=(4|5)[0-9][0-9]' "$work/gateway.log" | grep -v -e 'path=/ ' -e 'path=/health' >&2 || true
exit $status
