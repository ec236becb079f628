#!/usr/bin/env bash
# Renders every example request in this folder through the CLI, one after
# the other, each under a header. The examples named *_error.json are the
# format page's error cases: for them the page's error message is the
# expected output, and the header says so. Warnings (what "beamharmony
# lint" would say) are printed under the prompt.
set -u
cd "$(dirname "$0")/.."
bin="${TMPDIR:-/tmp}/beamharmony"
err="${TMPDIR:-/tmp}/beamharmony-render.err"
go build -o "$bin" ./cmd/beamharmony || exit 1
for f in examples/*.json; do
  case "$f" in
    *_error.json) printf '\n===== %s (a page error case: the error below is the expected output)\n' "$f" ;;
    *) printf '\n===== %s\n' "$f" ;;
  esac
  "$bin" render "$f" 2>"$err"
  echo
  cat "$err"
done
rm -f "$err"
