#!/usr/bin/env bash
# One command on a fresh machine: build kivgraph, register this repository and the bundled
# fixture repositories, index them, check the result, and answer a real question from the
# published snapshot. Idempotent: run it again and it publishes the next generation.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/kivgraph/target}"
demo="${KIVGRAPH_DEMO_DIR:-$HOME/.cache/kivgraph/demo}"
question="${1:-run_pass}"

# The exact analyzers for TypeScript/JavaScript and Python (skipped, with a note, without npm).
bash scripts/setup-analyzers.sh
cargo build --release --locked -p kivgraph-cli -p kivgraph-store --examples --bins
bin="$CARGO_TARGET_DIR/release/kivgraph"

"$bin" init --config "$demo/config.yaml" \
  --repository "kivgraph=$root" \
  --repository "fixture-go=$root/testdata/repos/gosvc" \
  --repository "fixture-ts=$root/testdata/repos/tsweb" \
  --repository "fixture-rust=$root/testdata/repos/rscore" \
  --repository "fixture-python=$root/testdata/repos/pytools" \
  --languages go,typescript,rust,python
"$bin" index --full --config "$demo/config.yaml"
"$bin" doctor --config "$demo/config.yaml"
echo
echo "Where is $question declared?"
"$CARGO_TARGET_DIR/release/examples/where_is" "$demo/state" "$question"
