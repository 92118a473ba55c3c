#!/usr/bin/env bash
# Fetches the cross-repository TypeScript corpus (benchmarks/crossrepo/clusters.json) from the
# npm registry into $KIVGRAPH_CORPUS/crossrepo (default ~/.cache/kivgraph/corpus), outside the
# repository: each package unpacked as its own repository, then its production dependencies
# installed by its cluster's package manager from the registry (npm, or pnpm pinned as in
# the project's notes), scripts off. Also installs the TypeScript the ground truth is taken
# with. Idempotent: a package already unpacked and installed is kept.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
corpus="${KIVGRAPH_CORPUS:-$HOME/.cache/kivgraph/corpus}/crossrepo"
tools="$corpus/.tools"
mkdir -p "$corpus/.downloads" "$tools"
if [ ! -x "$tools/node_modules/.bin/pnpm" ] || [ ! -d "$tools/node_modules/typescript" ]; then
  (cd "$tools" && npm i -E --silent --no-audit --no-fund pnpm@12.4.2 typescript@5.9.3 > /dev/null)
fi
pnpm="$tools/node_modules/.bin/pnpm"
node -e '
  const clusters = require(process.argv[1]).clusters;
  for (const c of clusters) for (const p of c.packages) console.log(c.manager, p.repository, p.spec);
' "$here/crossrepo/clusters.json" | while read -r manager repository spec; do
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
