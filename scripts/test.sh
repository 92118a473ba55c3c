#!/usr/bin/env bash
# The whole test suite. `.ci/run` calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/kivgraph/target}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
# The exact analyzers (npm, pinned by analyzers/package-lock.json), cached outside the clone;
# the fixture tests assert what they resolve.
export KIVGRAPH_ANALYZERS_DIR="${KIVGRAPH_ANALYZERS_DIR:-$HOME/.cache/kivgraph/analyzers}"
bash scripts/setup-analyzers.sh
cargo test --locked --workspace --all-targets
