#!/usr/bin/env bash
# Installs the exact analyzers into $KIVGRAPH_ANALYZERS_DIR (default:
# ~/.local/state/kivgraph/analyzers), never into the checkout. Idempotent.
#  - scip-typescript and scip-python, pinned by analyzers/package-lock.json (npm);
#  - rust-analyzer and the standard library's sources (rust-src) of the Rust toolchain
#    pinned in analyzers/rust-toolchain (rustup), linked as bin/rust-analyzer.
# A missing installer leaves its analyzers absent: the syntax layer still answers.
set -euo pipefail
cd "$(dirname "$0")/.."
state="${XDG_STATE_HOME:-$HOME/.local/state}/kivgraph"
target="${KIVGRAPH_ANALYZERS_DIR:-$state/analyzers}"
# Several test runs may start at once: one installs, the others wait for it.
mkdir -p "$target"
exec 9>"$target/.setup.lock"
flock 9

install_npm_analyzers() {
  if ! command -v npm >/dev/null 2>&1; then
    echo "setup-analyzers: npm not found; scip-typescript and scip-python stay absent" >&2
    return
  fi
  if [ -x "$target/node_modules/.bin/scip-typescript" ] && [ -x "$target/node_modules/.bin/scip-python" ] \
    && cmp -s analyzers/package-lock.json "$target/package-lock.json"; then
    return
  fi
  cp analyzers/package.json analyzers/package-lock.json "$target/"
  (cd "$target" && npm ci --no-audit --no-fund --loglevel=error >&2)
  echo "setup-analyzers: installed $(ls "$target/node_modules/.bin" | grep -c scip-) npm analyzers under $target" >&2
}

install_rust_analyzer() {
  local toolchain
  toolchain="$(tr -d '[:space:]' < analyzers/rust-toolchain)"
  if ! command -v rustup >/dev/null 2>&1; then
    echo "setup-analyzers: rustup not found; rust-analyzer stays absent" >&2
    return
  fi
  local program
  program="$(rustup which --toolchain "$toolchain" rust-analyzer 2>/dev/null || true)"
  local sources
  sources="$(rustc +"$toolchain" --print sysroot 2>/dev/null || true)/lib/rustlib/src/rust/library"
  if [ -z "$program" ] || [ ! -x "$program" ] || [ ! -d "$sources" ]; then
    rustup toolchain install "$toolchain" --profile minimal --component rust-analyzer,rust-src >&2
    program="$(rustup which --toolchain "$toolchain" rust-analyzer)"
    sources="$(rustc +"$toolchain" --print sysroot)/lib/rustlib/src/rust/library"
  fi
  # The standard library's own workspace names crates.io dependencies (its Cargo.lock pins
  # them): rust-analyzer loads it offline, so they must be in the local registry, or std's
  # crates lose their links to each other.
  local fetched="$target/bin/.rust-src-fetched-$toolchain"
  if [ ! -e "$fetched" ]; then
    RUSTC_BOOTSTRAP=1 __CARGO_TEST_CHANNEL_OVERRIDE_DO_NOT_USE_THIS=nightly \
      cargo +"$toolchain" fetch --locked --manifest-path "$sources/Cargo.toml" >&2
    mkdir -p "$target/bin" && : > "$fetched"
  fi
  mkdir -p "$target/bin"
  if [ "$(readlink "$target/bin/rust-analyzer" 2>/dev/null)" != "$program" ]; then
    ln -sfn "$program" "$target/bin/rust-analyzer"
    echo "setup-analyzers: rust-analyzer of toolchain $toolchain linked under $target/bin" >&2
  fi
}

install_npm_analyzers
install_rust_analyzer
