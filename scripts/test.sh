#!/usr/bin/env bash
# The whole test suite. `.ci/run` calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/kivgraph/target}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
cargo test --locked --workspace --all-targets
