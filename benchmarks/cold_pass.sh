#!/usr/bin/env bash
# Cold `index --full` (fact cache off, syntax layer) of the benchmark corpus by each binary
# given, alternating, ROUNDS times (default 3): the wall seconds of each, one line per pass.
# Binaries measured in turn share the machine's state, so their ratio is fair.
#
#   benchmarks/cold_pass.sh BIN_A BIN_B ...        (ROUNDS=5 benchmarks/cold_pass.sh ...)
set -euo pipefail
corpus="${KIVGRAPH_CORPUS:-$HOME/.cache/kivgraph/corpus}"
rounds="${ROUNDS:-3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat > "$work/repositories.yaml" <<YAML
version: 1
repositories:
  - {name: debian-go, path: $corpus/go/src, languages: [go]}
  - {name: npm, path: $corpus/ts, languages: [typescript]}
  - {name: pypi, path: $corpus/python, languages: [python]}
  - {name: crates, path: $corpus/rust/src, languages: [rust]}
YAML
printf 'version: 1\nindexing:\n  fact_cache: off\n' > "$work/config.yaml"
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
