#!/usr/bin/env bash
# The watcher's own database pass on the benchmark corpus (syntax layer, fact cache on): for
# each binary given, a cold `index --full`, then `watch --json` while EDITS saves (default 6,
# across the four languages) are made, each followed by a pause longer than the watcher's
# 2 s, so each save's generation (published without a database) is followed by the pass
# that writes its database. One line per pass: its trigger, wall milliseconds and the
# database's share; then the watcher's resident memory after each pause.
#
#   benchmarks/database_pass.sh BIN_A BIN_B ...
set -euo pipefail
source "$(dirname "$0")/lib/corpus.sh"
work="$(mktemp -d)"
watcher=""
trap '[ -n "$watcher" ] && kill "$watcher" 2>/dev/null; rm -rf "$work"' EXIT
corpus_configuration "$work" on
files=(
  "go/src/golang.org/x/net/html/render.go|go"
  "ts/zod/src/v4/core/checks.ts|ts"
  "python/flask-3.1.2/src/flask/app.py|py"
  "rust/src/syn-2.0.110/src/attr.rs|rs"
  "go/src/github.com/spf13/cobra/args.go|go"
  "python/django-5.2.8/django/db/models/base.py|py"
)
for binary in "$@"; do
  rm -rf "$work/state"
  export KIVGRAPH_ANALYZERS_DIR="$work/none" PATH=/usr/bin:/bin
  "$binary" index --full --json --config "$work/config.yaml" > /dev/null
  "$binary" watch --json --config "$work/config.yaml" > "$work/events" 2>/dev/null &
  watcher=$!
  until grep -q '"event":"watching"' "$work/events" 2>/dev/null; do sleep 0.2; done
  i=0
  resident=()
  for entry in "${files[@]:0:${EDITS:-6}}"; do
    i=$((i + 1))
    file="$corpus/${entry%%|*}"
    cp "$file" "$work/original"
    { cat "$work/original"; declaration "${entry##*|}" "kivgraphDatabasePass$i"; } > "$file.kivgraph~"
    mv "$file.kivgraph~" "$file"
    sleep 12
    resident+=("$(awk '/VmRSS/ {print int($2 / 1024)}' "/proc/$watcher/status")")
    cp "$work/original" "$file.kivgraph~"
    mv "$file.kivgraph~" "$file"
    sleep 12
    resident+=("$(awk '/VmRSS/ {print int($2 / 1024)}' "/proc/$watcher/status")")
  done
  kill "$watcher"
  wait "$watcher" 2>/dev/null || true
  watcher=""
  jq -r --arg b "$(basename "$binary")" 'select(.event == "pass") |
    "\($b) \(.trigger): \(.duration_ms) ms, database \(.phases_ms.write_database // "-") ms"' \
    "$work/events"
  echo "$(basename "$binary") resident MiB after each pause: ${resident[*]}"
done
