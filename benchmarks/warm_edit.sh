#!/usr/bin/env bash
# Warm `index --full` after a one-file edit (fact cache on, syntax layer) on the benchmark
# corpus, for each binary given: a cold pass first, then eight edits (two per language, each
# a declaration appended and indexed, then undone and indexed again), ROUNDS times (default
# 1); one line per pass with its wall seconds, the database's share (`write_database`) and
# the database file's size, so a database that grows with every update shows.
#
#   benchmarks/warm_edit.sh BIN_A BIN_B ...        (ROUNDS=2 benchmarks/warm_edit.sh ...)
set -euo pipefail
source "$(dirname "$0")/lib/corpus.sh"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
corpus_configuration "$work" on
edits=(
  "go/src/golang.org/x/net/html/render.go|go"
  "ts/zod/src/v4/core/checks.ts|ts"
  "python/flask-3.1.2/src/flask/app.py|py"
  "rust/src/syn-2.0.110/src/attr.rs|rs"
  "go/src/github.com/spf13/cobra/args.go|go"
  "ts/rxjs/src/internal/Notification.ts|ts"
  "python/django-5.2.8/django/db/models/base.py|py"
  "rust/src/clap_builder-4.5.51/src/builder/arg.rs|rs"
)
pass() { # binary, label
  local started ended json
  started=$(date +%s.%N)
  json=$(KIVGRAPH_ANALYZERS_DIR="$work/none" PATH=/usr/bin:/bin \
    "$1" index --full --json --config "$work/config.yaml" 2>"$work/stderr" | tail -1) || true
  ended=$(date +%s.%N)
  local generation
  generation=$(jq -r '.result.generation_path // empty' <<<"$json" 2>/dev/null || true)
  if [ -z "$generation" ]; then
    printf '%s %s: FAILED %s %s\n' "$(basename "$1")" "$2" "$json" "$(tail -3 "$work/stderr")"
    return
  fi
  local megabytes=-
  if [ -f "$generation/graph.lbdb" ]; then # a build before the database has none
    megabytes=$(( $(stat -c %s "$generation/graph.lbdb") / 1000000 ))
  fi
  printf '%s %s: %.2f s, database %s ms, %s MB\n' "$(basename "$1")" "$2" \
    "$(echo "$ended - $started" | bc)" \
    "$(jq -r '.result.index.phases_ms.write_database // "-"' <<<"$json")" "$megabytes"
  # Only the active generation is needed by the next pass; the rest would fill the disk.
  "$1" clean --keep-active --yes --config "$work/config.yaml" > /dev/null
}
for binary in "$@"; do
  rm -rf "$work/state"
  pass "$binary" cold
  i=0
  for edit in $(for _ in $(seq "${ROUNDS:-1}"); do printf '%s\n' "${edits[@]}"; done); do
    i=$((i + 1))
    file="$corpus/${edit%%|*}"
    cp "$file" "$work/original"
    declaration "${edit##*|}" "kivgraphWarmEdit$i" >> "$file"
    pass "$binary" "edit $i (${edit%%|*})"
    cp "$work/original" "$file"
    pass "$binary" "undo $i"
  done
done
