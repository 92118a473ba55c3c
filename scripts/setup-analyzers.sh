#!/usr/bin/env bash
# Installs the exact analyzers (scip-typescript, scip-python) pinned by analyzers/package-lock.json
# into $KIVGRAPH_ANALYZERS_DIR (default: ~/.local/state/kivgraph/analyzers), never into the
# checkout. Idempotent: does nothing when the installed lock matches the committed one.
set -euo pipefail
cd "$(dirname "$0")/.."
state="${XDG_STATE_HOME:-$HOME/.local/state}/kivgraph"
target="${KIVGRAPH_ANALYZERS_DIR:-$state/analyzers}"
if ! command -v npm >/dev/null 2>&1; then
  echo "setup-analyzers: npm not found; the exact analyzers stay absent (the syntax layer still answers)" >&2
  exit 0
fi
# Several test runs may start at once: one installs, the others wait for it.
mkdir -p "$target"
exec 9>"$target/.setup.lock"
flock 9
if [ -x "$target/node_modules/.bin/scip-typescript" ] && [ -x "$target/node_modules/.bin/scip-python" ] \
  && cmp -s analyzers/package-lock.json "$target/package-lock.json"; then
  exit 0
fi
cp analyzers/package.json analyzers/package-lock.json "$target/"
(cd "$target" && npm ci --no-audit --no-fund --loglevel=error >&2)
echo "setup-analyzers: installed $(ls "$target/node_modules/.bin" | grep -c scip-) analyzers under $target" >&2
