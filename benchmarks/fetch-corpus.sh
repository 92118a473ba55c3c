#!/usr/bin/env bash
# Fetches the benchmark corpus from the package registries into $KIVGRAPH_CORPUS
# (default ~/.cache/kivgraph/corpus), outside the repository. Idempotent: what is already
# there is kept. Sources:
#   rust/   crates from crates.io (benchmarks/corpus/rust/Cargo.toml, fetched with cargo)
#   go/     Go sources from Debian golang-*-dev packages (apt-get download + dpkg -x)
#   ts/     TypeScript sources from npm packages that ship .ts (npm pack)
#   python/ Python sdists from PyPI (pip download --no-binary)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
corpus="${KIVGRAPH_CORPUS:-$HOME/.cache/kivgraph/corpus}"
mkdir -p "$corpus"/{rust,go,ts,python,downloads}

if [ ! -e "$corpus/rust/.done" ]; then
  mkdir -p "$corpus/rust/manifest"
  cp "$here/corpus/rust/Cargo.toml" "$here/corpus/rust/lib.rs" "$corpus/rust/manifest/"
  CARGO_HOME="$corpus/rust/cargo-home" cargo fetch --manifest-path "$corpus/rust/manifest/Cargo.toml"
  rm -rf "$corpus/rust/src" && mkdir -p "$corpus/rust/src"
  cp -r "$corpus"/rust/cargo-home/registry/src/*/. "$corpus/rust/src/"
  touch "$corpus/rust/.done"
fi

go_packages=(golang-golang-x-tools-dev golang-google-grpc-dev golang-github-prometheus-client-golang-dev
  golang-github-spf13-cobra-dev golang-github-gorilla-mux-dev golang-golang-x-net-dev golang-github-google-go-cmp-dev)
if [ ! -e "$corpus/go/.done" ]; then
  (cd "$corpus/downloads" && apt-get download "${go_packages[@]}")
  for deb in "$corpus"/downloads/golang-*.deb; do dpkg -x "$deb" "$corpus/go/extract"; done
  rm -rf "$corpus/go/src" && cp -r "$corpus/go/extract/usr/share/gocode/src" "$corpus/go/src"
  touch "$corpus/go/.done"
fi

npm_packages=(rxjs@7.8.2 fp-ts@2.16.11 effect@3.19.3 zod@3.25.76 io-ts@2.2.22)
if [ ! -e "$corpus/ts/.done" ]; then
  for spec in "${npm_packages[@]}"; do
    name="${spec%@*}"
    (cd "$corpus/downloads" && npm pack --silent "$spec" > /dev/null)
    mkdir -p "$corpus/ts/$name"
    tar -xzf "$corpus"/downloads/"${name//\//-}"-*.tgz -C "$corpus/ts/$name" --strip-components=1
  done
  touch "$corpus/ts/.done"
fi

# Each sdist is fetched when its directory is missing, so a package added here reaches a
# corpus fetched before it (sympy brought the corpus past 4 M indexed lines).
pypi_packages=(Django==5.2.8 SQLAlchemy==2.0.44 requests==2.32.5 flask==3.1.2 sympy==1.14.0)
for spec in "${pypi_packages[@]}"; do
  name="$(echo "${spec%%==*}" | tr '[:upper:]' '[:lower:]')"
  version="${spec##*==}"
  [ -d "$corpus/python/$name-$version" ] && continue
  python3 -m pip download --quiet --no-binary :all: --no-deps -d "$corpus/downloads/pypi" "$spec"
  tar -xzf "$corpus/downloads/pypi/$name-$version.tar.gz" -C "$corpus/python"
done

for part in rust go ts python; do
  lines=$(find "$corpus/$part" -path '*/node_modules' -prune -o -type f \( -name '*.rs' -o -name '*.go' -o -name '*.ts' -o -name '*.tsx' -o -name '*.py' \) -print0 | xargs -0 cat | wc -l)
  echo "corpus $part: $lines lines ($corpus/$part)"
done
