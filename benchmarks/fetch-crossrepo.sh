#!/usr/bin/env bash
# Fetches the cross-repository corpora (benchmarks/crossrepo/LANGUAGE/clusters.json) into
# $KIVGRAPH_CORPUS/crossrepo-LANGUAGE (default ~/.cache/kivgraph/corpus; TypeScript's is
# crossrepo), outside the repository, each package unpacked as its own repository and
# its dependencies installed as its users have them:
#   typescript  npm packages; production dependencies installed by the cluster's package
#               manager from the registry (npm, or pnpm pinned as in the project's notes),
#               scripts off; also the TypeScript the ground truth is taken with.
#   go          Debian golang-*-dev packages (apt-get download + dpkg -x), one module each.
#   rust        crates from crates.io, each from its .crate, with the Cargo.lock cargo
#               writes for it (pinned older where the cluster says) and its dependencies
#               fetched into the user's CARGO_HOME, where cargo keeps them for a developer.
#   python      PyPI sdists, each with the virtual environment (.venv) pip installs the
#               project and its dependencies into (pinned older where the cluster says).
# Idempotent: a package already unpacked and installed is kept.
#
#   benchmarks/fetch-crossrepo.sh [typescript|go|rust|python ...]   (all when none is named)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
base="${KIVGRAPH_CORPUS:-$HOME/.cache/kivgraph/corpus}"

# Every package of a language's clusters, one line each: the fields named, in order (a
# cluster's own field, such as `manager`, where the package has none; a list or a map of
# pins joined by commas, `name@version` for a map).
packages() {
  local language="$1"; shift
  node -e '
    const [file, ...fields] = process.argv.slice(1);
    const text = (v) => Array.isArray(v) ? v.join(",")
      : v && typeof v === "object" ? Object.entries(v).map(([n, ver]) => `${n}@${ver}`).join(",")
      : (v ?? "");
    for (const c of require(file).clusters) for (const p of c.packages)
      console.log(fields.map((f) => text(p[f] ?? c[f])).join(" "));
  ' "$here/crossrepo/$language/clusters.json" "$@"
}

fetch_typescript() {
  corpus="$base/crossrepo"
  tools="$corpus/.tools"
  mkdir -p "$corpus/.downloads" "$tools"
  if [ ! -x "$tools/node_modules/.bin/pnpm" ] || [ ! -d "$tools/node_modules/typescript" ]; then
    (cd "$tools" && npm i -E --silent --no-audit --no-fund pnpm@12.4.2 typescript@5.9.3 > /dev/null)
  fi
  pnpm="$tools/node_modules/.bin/pnpm"
  packages typescript manager repository spec | while read -r manager repository spec; do
    dir="$corpus/$repository"
    [ -e "$dir/.installed" ] && continue
    rm -rf "$dir" && mkdir -p "$dir"
    tarball="$(cd "$corpus/.downloads" && npm pack --silent "$spec" | tail -1)"
    tar -xzf "$corpus/.downloads/$tarball" -C "$dir" --strip-components=1
    # A package's peers are what its developers install beside it (as devDependencies in
    # its own repository); no package manager installs a project's own peers, so they are
    # made dependencies at the same ranges (TypeScript itself excepted); devDependencies,
    # never installed here, are dropped.
    node -e '
      const fs = require("fs"), file = process.argv[1], manifest = JSON.parse(fs.readFileSync(file));
      const peers = Object.entries(manifest.peerDependencies || {}).filter(([name]) => name !== "typescript");
      manifest.dependencies = Object.assign(Object.fromEntries(peers), manifest.dependencies || {});
      // What is not installed is not declared: a package a devDependency also names would
      // otherwise be left out as one.
      delete manifest.devDependencies;
      fs.writeFileSync(file, JSON.stringify(manifest, null, 2) + "\n");
    ' "$dir/package.json"
    case "$manager" in
      npm) (cd "$dir" && npm install --silent --omit=dev --ignore-scripts --no-audit --no-fund --no-package-lock > /dev/null) ;;
      pnpm) (cd "$dir" && "$pnpm" install --silent --prod --ignore-scripts --no-lockfile --store-dir "$corpus/.pnpm-store" > /dev/null) ;;
    esac
    touch "$dir/.installed"
    echo "crossrepo: $repository ($spec, $manager)"
  done
  echo "crossrepo corpus: $corpus"
}

# A module's source tree as Debian installs it (/usr/share/gocode/src/IMPORT_PATH).
fetch_go() {
  local corpus="$base/crossrepo-go"
  mkdir -p "$corpus/.downloads"
  packages go repository debian import_path | while read -r repository debian import_path; do
    dir="$corpus/$repository"
    [ -e "$dir/.installed" ] && continue
    (cd "$corpus/.downloads" && apt-get download -q "$debian" > /dev/null 2>&1) \
      || { echo "fetch-crossrepo: apt-get download $debian failed" >&2; exit 1; }
    local extract="$corpus/.downloads/extract-$repository"
    rm -rf "$extract" "$dir"
    dpkg -x "$corpus/.downloads/$debian"_*.deb "$extract"
    cp -r "$extract/usr/share/gocode/src/$import_path" "$dir"
    rm -rf "$extract"
    # A module from before modules: the go.mod the go command synthesizes for it.
    [ -e "$dir/go.mod" ] || printf 'module %s\n' "$import_path" > "$dir/go.mod"
    touch "$dir/.installed"
    echo "crossrepo-go: $repository ($debian)"
  done
  echo "crossrepo-go corpus: $corpus"
}

# A crate as crates.io serves it: downloaded by cargo through a scratch manifest that asks
# for exactly its version, copied out of cargo's unpacked sources.
fetch_rust() {
  local corpus="$base/crossrepo-rust"
  local cargo_home="${CARGO_HOME:-$HOME/.cargo}"
  mkdir -p "$corpus/.downloads"
  packages rust repository crate version pins | while read -r repository crate version pins; do
    dir="$corpus/$repository"
    [ -e "$dir/.installed" ] && continue
    local manifest="$corpus/.downloads/$crate-$version"
    mkdir -p "$manifest/src" && touch "$manifest/src/lib.rs"
    printf '[package]\nname = "fetch"\nversion = "0.0.0"\nedition = "2021"\n[dependencies]\n%s = "=%s"\n' \
      "$crate" "$version" > "$manifest/Cargo.toml"
    cargo fetch --quiet --manifest-path "$manifest/Cargo.toml"
    rm -rf "$dir" && cp -r "$(ls -d "$cargo_home"/registry/src/*/"$crate-$version" | head -1)" "$dir"
    (cd "$dir" && cargo generate-lockfile --quiet)
    for pin in ${pins//,/ }; do
      (cd "$dir" && cargo update --quiet -p "${pin%@*}" --precise "${pin#*@}")
    done
    (cd "$dir" && cargo fetch --quiet)
    touch "$dir/.installed"
    echo "crossrepo-rust: $repository ($crate $version${pins:+, pinned $pins})"
  done
  echo "crossrepo-rust corpus: $corpus"
}

fetch_python() {
  local corpus="$base/crossrepo-python"
  mkdir -p "$corpus/.downloads"
  packages python repository spec pins | while read -r repository spec pins; do
    dir="$corpus/$repository"
    [ -e "$dir/.installed" ] && continue
    local sdists="$corpus/.downloads/$repository"
    rm -rf "$sdists" "$dir" && mkdir -p "$sdists" "$dir"
    python3 -m pip download --quiet --no-deps --no-binary :all: -d "$sdists" "$spec"
    tar -xzf "$sdists"/*.tar.gz -C "$dir" --strip-components=1
    python3 -m venv "$dir/.venv"
    "$dir/.venv/bin/pip" install --quiet --disable-pip-version-check "$spec" ${pins//,/ }
    touch "$dir/.installed"
    echo "crossrepo-python: $repository ($spec${pins:+, environment pins $pins})"
  done
  echo "crossrepo-python corpus: $corpus"
}

languages=("$@")
[ ${#languages[@]} -gt 0 ] || languages=(typescript go rust python)
for language in "${languages[@]}"; do
  case "$language" in
    typescript) fetch_typescript ;;
    go) fetch_go ;;
    rust) fetch_rust ;;
    python) fetch_python ;;
    *) echo "fetch-crossrepo: unknown language $language" >&2; exit 2 ;;
  esac
done
