#!/usr/bin/env bash
# Renders every example request in this folder through the CLI, one after
# the other, each under a header. Errors (some examples show the page's
# error cases) are printed and do not stop the loop.
set -u
cd "$(dirname "$0")/.."
go build -o "${TMPDIR:-/tmp}/beamharmony" ./cmd/beamharmony || exit 1
for f in examples/*.json; do
  printf '\n===== %s\n' "$f"
  "${TMPDIR:-/tmp}/beamharmony" render "$f" 2>&1
  echo
done
