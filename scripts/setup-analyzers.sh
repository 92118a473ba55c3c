#!/usr/bin/env bash
# Installs the exact analyzers into $KIVGRAPH_ANALYZERS_DIR (default:
# ~/.local/state/kivgraph/analyzers), never into the checkout. Idempotent.
#  - scip-typescript and scip-python, pinned by analyzers/package-lock.json (npm);
#  - rust-analyzer and the standard library's sources (rust-src) of the Rust toolchain
#    pinned in analyzers/rust-toolchain (rustup), linked as bin/rust-analyzer;
#  - Go (the Debian packages analyzers/go-toolchain.sha256 names — trixie-backports'
#    golang-1.27, statically linked — checked against their SHA-256 and extracted under go/,
#    no root needed, go/current pointing at it) and our go/types worker (analyzers/go-worker,
#    standard library only) built with it as bin/kivgraph-go-worker.
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

install_go_worker() {
  # golang-1.27-go_1.27.4-1~bpo13+1_amd64.deb: its source package and Go's directory.
  local package
  package="$(sed -n 's/^[0-9a-f]* \(golang-1\.[0-9]*\)-go_.*/\1/p' analyzers/go-toolchain.sha256)"
  local go_root="$target/go/usr/lib/go-${package#golang-}"
  if [ ! -x "$go_root/bin/go" ]; then
    if ! command -v curl >/dev/null 2>&1 || ! command -v dpkg-deb >/dev/null 2>&1; then
      echo "setup-analyzers: curl or dpkg-deb not found; the Go worker stays absent" >&2
      return
    fi
    local pool="https://deb.debian.org/debian/pool/main/g/$package"
    local downloads="$target/downloads"
    mkdir -p "$downloads"
    while read -r sha file; do
      if ! echo "$sha  $downloads/$file" | sha256sum -c --status 2>/dev/null; then
        curl -fsSL "$pool/$file" -o "$downloads/$file"
        echo "$sha  $downloads/$file" | sha256sum -c --status
      fi
      dpkg-deb -x "$downloads/$file" "$target/go"
    done < analyzers/go-toolchain.sha256
    echo "setup-analyzers: Go $("$go_root/bin/go" version | cut -d' ' -f3) extracted under $target/go" >&2
  fi
  # The worker runs the Go this names; an older extraction beside it is never used.
  if [ "$(readlink "$target/go/current" 2>/dev/null)" != "${go_root#"$target/go/"}" ]; then
    ln -sfn "${go_root#"$target/go/"}" "$target/go/current"
  fi
  local worker="$target/bin/kivgraph-go-worker"
  local stamp="$target/bin/.go-worker.sha256"
  local digest
  digest="$(cat analyzers/go-toolchain.sha256 analyzers/go-worker/go.mod analyzers/go-worker/*.go | sha256sum | cut -d' ' -f1)"
  if [ ! -x "$worker" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$digest" ]; then
    mkdir -p "$target/bin"
    (cd analyzers/go-worker && GOTOOLCHAIN=local GOPROXY=off GOFLAGS=-mod=mod \
      "$go_root/bin/go" build -trimpath -o "$worker" .) >&2
    echo "$digest" > "$stamp"
    echo "setup-analyzers: built the Go worker under $target/bin" >&2
  fi
}

install_npm_analyzers
install_rust_analyzer
install_go_worker
