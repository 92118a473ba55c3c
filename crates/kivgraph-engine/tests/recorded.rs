//! Fact sets: every repository recorded on its own and merged elsewhere is the graph one
//! pass over the same checkouts computes, with the analyzers' answers carried over exactly
//! and nothing read from the checkouts at the merge.

mod support;

use std::path::Path;

use kivgraph_analyzers::{Analyzer, GoAnalyzer, GoSettings, Toolchain};
use kivgraph_config::{FactCacheMode, GoSection, LanguageToken, RepositoryEntry};
use kivgraph_engine::{
    CacheIdentity, Engine, PassOptions, RecordError, RecordedRepository, run_pass,
    run_pass_from_records,
};
use kivgraph_facts::EdgeKind;
use support::{installed_analyzers, manifest_dir};

const REPOSITORIES: [(&str, LanguageToken); 8] = [
    ("goconsumer", LanguageToken::Go),
    ("goprovider", LanguageToken::Go),
    ("pyconsumer", LanguageToken::Python),
    ("pyprovider", LanguageToken::Python),
    ("rsconsumer", LanguageToken::Rust),
    ("rsprovider", LanguageToken::Rust),
    ("tsconsumer", LanguageToken::Typescript),
    ("tsprovider", LanguageToken::Typescript),
];

fn entries(root: &Path) -> Vec<RepositoryEntry> {
    REPOSITORIES
        .iter()
        .map(|(name, language)| RepositoryEntry {
            name: name.to_string(),
            path: root.join(name),
            languages: vec![*language],
            manifests: vec![],
            roots: vec![],
            exclusions: vec![],
        })
        .collect()
}

fn options(scratch: &Path) -> PassOptions {
    PassOptions {
        fact_cache: FactCacheMode::Off,
        cache_directory: scratch.join("cache"),
        identity: CacheIdentity("test".into()),
        analyzers: installed_analyzers(scratch),
        published_generation: None,
    }
}

#[test]
fn fact_sets_recorded_apart_merge_into_the_graph_of_one_pass() {
    let work = tempfile::tempdir().unwrap();
    let checkouts = work.path().join("checkouts");
    for (name, _) in REPOSITORIES {
        support::copy_tree(
            &manifest_dir().join("../../testdata/exact").join(name),
            &checkouts.join(name),
        );
    }
    let entries = entries(&checkouts);
    let options = options(&work.path().join("scratch"));
    let one_pass = run_pass(&entries, &options, &|_| {})
        .unwrap()
        .computed()
        .unwrap();
    // Each repository recorded by a pass of its own, and carried as bytes.
    let encoded: Vec<Vec<u8>> = entries
        .iter()
        .map(|entry| {
            let recorded = Engine::record(&entries, &entry.name, &options, &|_| {}).unwrap();
            assert!(
                !recorded.units.is_empty(),
                "{}: no unit answered",
                entry.name
            );
            postcard::to_allocvec(&recorded).unwrap()
        })
        .collect();
    // The checkouts are gone where the fact sets are merged.
    std::fs::remove_dir_all(&checkouts).unwrap();
    let records: Vec<RecordedRepository> = encoded
        .iter()
        .map(|bytes| postcard::from_bytes(bytes).unwrap())
        .collect();
    let merged = run_pass_from_records(records, &options, &|_| {})
        .unwrap()
        .computed()
        .unwrap();
    assert_eq!(merged, one_pass);
    // Exact edges across repositories came through: the analyzers' answers, not syntax.
    let exact_across = merged
        .edges
        .iter()
        .filter(|e| e.kind == EdgeKind::CallsDirect && e.confidence.is_exact())
        .count();
    assert!(exact_across > 0, "no exact call edge in the merged graph");
}

#[test]
fn a_repository_merged_twice_is_refused() {
    let work = tempfile::tempdir().unwrap();
    let checkouts = work.path().join("checkouts");
    support::copy_tree(
        &manifest_dir().join("../../testdata/exact/goprovider"),
        &checkouts.join("goprovider"),
    );
    let entries: Vec<RepositoryEntry> = entries(&checkouts)
        .into_iter()
        .filter(|e| e.name == "goprovider")
        .collect();
    let mut options = options(&work.path().join("scratch"));
    options.analyzers = Default::default();
    let recorded = Engine::record(&entries, "goprovider", &options, &|_| {}).unwrap();
    let error = run_pass_from_records(vec![recorded.clone(), recorded], &options, &|_| {})
        .err()
        .unwrap();
    assert!(
        matches!(error, RecordError::Duplicate(ref name) if name == "goprovider"),
        "{error}"
    );
    let error = Engine::record(&entries, "elsewhere", &options, &|_| {})
        .err()
        .unwrap();
    assert_eq!(
        error.to_string(),
        "repository \"elsewhere\" is not registered"
    );
}

/// Where each machine keeps an analyzer decides nothing: fact sets whose Go worker sits
/// elsewhere merge; one answered by another version of it is refused, naming both.
#[test]
fn analyzers_must_agree_by_version_not_by_place() {
    let work = tempfile::tempdir().unwrap();
    let checkouts = work.path().join("checkouts");
    for name in ["goconsumer", "goprovider"] {
        support::copy_tree(
            &manifest_dir().join("../../testdata/exact").join(name),
            &checkouts.join(name),
        );
    }
    let entries: Vec<RepositoryEntry> = entries(&checkouts)
        .into_iter()
        .filter(|e| e.name.starts_with("go"))
        .collect();
    let mut options = options(&work.path().join("scratch"));
    options.analyzers = Default::default();
    let worker = |program: &str, version: &str| GoAnalyzer {
        toolchain: Toolchain {
            analyzer: Analyzer::Go,
            program: program.into(),
            version: version.into(),
            source: "installed".into(),
        },
        settings: GoSettings::of(&GoSection::default()),
    };
    let mut records: Vec<RecordedRepository> = ["goconsumer", "goprovider"]
        .iter()
        .map(|name| Engine::record(&entries, name, &options, &|_| {}).unwrap())
        .collect();
    records[0].analyzers.go = Some(worker("/ci/a/bin/worker", "kivgraph-go-worker 3 go1.27.4"));
    records[1].analyzers.go = Some(worker("/ci/b/bin/worker", "kivgraph-go-worker 3 go1.27.4"));
    run_pass_from_records(records.clone(), &options, &|_| {}).unwrap();
    records[1].analyzers.go = Some(worker("/ci/b/bin/worker", "kivgraph-go-worker 3 go1.26.0"));
    let error = run_pass_from_records(records, &options, &|_| {})
        .err()
        .unwrap()
        .to_string();
    assert!(
        error.starts_with("the fact sets of \"goconsumer\" and \"goprovider\" were answered by different Go analyzers")
            && error.contains("go1.26.0"),
        "{error}"
    );
}
