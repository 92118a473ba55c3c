#!/usr/bin/env bash
# Cold `index --full` (fact cache off, syntax layer) of the benchmark corpus by each binary
# given, alternating, ROUNDS times (default 3): the wall seconds of each, one line per pass.
# Binaries measured in turn share the machine's state, so their ratio is fair.
#
#   benchmarks/cold_pass.sh BIN_A BIN_B ...        (ROUNDS=5 benchmarks/cold_pass.sh ...)
set -euo pipefail
source "$(dirname "$0")/lib/corpus.sh"
rounds="${ROUNDS:-3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
corpus_configuration "$work" off
for round in $(seq "$rounds"); do
  for binary in "$@"; do
    rm -rf "$work/state"
    started=$(date +%s.%N)
    KIVGRAPH_ANALYZERS_DIR="$work/none" PATH=/usr/bin:/bin \
      "$binary" index --full --json --config "$work/config.yaml" > /dev/null
    ended=$(date +%s.%N)
    printf '%s round %s: %.2f s\n' "$binary" "$round" "$(echo "$ended - $started" | bc)"
  done
done
