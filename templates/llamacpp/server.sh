# Sourced by compare.sh, constrained.sh and tokenizer.sh: waits for the
# llama-server they started.

# wait_for_server PORT PID LOG: returns once the server on 127.0.0.1:PORT
# answers /health (up to a minute); exits 1 with LOG when process PID has
# ended or the server never answered.
wait_for_server() {
  local port=$1 pid=$2 log=$3
  for _ in $(seq 120); do
    if curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1; then return 0; fi
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "llama-server exited:" >&2; cat "$log" >&2; exit 1
    fi
    sleep 0.5
  done
  echo "llama-server did not come up:" >&2; cat "$log" >&2; exit 1
}
