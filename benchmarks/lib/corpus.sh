# Sourced by the benchmark scripts: `corpus_configuration DIR FACT_CACHE` writes into DIR the
# registry of the benchmark corpus (four repositories, one per language, as the corpus
# script fetches them) and a configuration with the fact cache FACT_CACHE (`on` or `off`).
corpus="${KIVGRAPH_CORPUS:-$HOME/.cache/kivgraph/corpus}"

corpus_configuration() {
  cat > "$1/repositories.yaml" <<YAML
version: 1
repositories:
  - {name: debian-go, path: $corpus/go/src, languages: [go]}
  - {name: npm, path: $corpus/ts, languages: [typescript]}
  - {name: pypi, path: $corpus/python, languages: [python]}
  - {name: crates, path: $corpus/rust/src, languages: [rust]}
YAML
  printf 'version: 1\nindexing:\n  fact_cache: %s\n' "$2" > "$1/config.yaml"
}

# `declaration LANGUAGE NAME` prints a function NAME in go, ts, py or rs, to append to a file
# of that language as an edit.
declaration() {
  case "$1" in
    go) printf '\nfunc %s() int { return 1 }\n' "$2" ;;
    ts) printf '\nexport function %s(): number { return 1 }\n' "$2" ;;
    py) printf '\n\ndef %s():\n    return 1\n' "$2" ;;
    rs) printf '\npub fn %s() -> i32 { 1 }\n' "$2" ;;
  esac
}
