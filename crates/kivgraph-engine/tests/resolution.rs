//! Syntax-level resolution on the fixtures under `testdata/resolution`: every edge and every
//! unresolved row, exactly.

use std::path::PathBuf;

use kivgraph_config::{FactCacheMode, LanguageToken, RepositoryEntry};
use kivgraph_engine::{CacheIdentity, PassOptions, run_pass};
use kivgraph_facts::{EdgeKind, FactSet};

fn index(fixture: &str, language: LanguageToken) -> FactSet {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/resolution");
    let entry = RepositoryEntry {
        name: fixture.into(),
        path: root.join(fixture),
        languages: vec![language],
        manifests: vec![],
        roots: vec![],
        exclusions: vec![],
    };
    let cache = tempfile::tempdir().unwrap();
    let options = PassOptions {
        fact_cache: FactCacheMode::Off,
        cache_directory: cache.path().join("cache"),
        identity: CacheIdentity("test".into()),
    };
    run_pass(&[entry], &options, &|_| {}).unwrap().facts
}

/// `source-file#qualified-name -> target-file#qualified-name CONFIDENCE file:line` per call edge.
fn calls(facts: &FactSet) -> Vec<String> {
    let symbol = |key| {
        let s = facts.symbols.iter().find(|s| s.key == key).unwrap();
        format!("{}#{}", s.file_path, s.qualified_name)
    };
    let mut rows: Vec<String> = facts
        .edges
        .iter()
        .filter(|e| e.kind == EdgeKind::CallsDirect)
        .map(|e| {
            let evidence = facts
                .evidence
                .iter()
                .find(|v| Some(v.key) == e.evidence)
                .unwrap();
            format!(
                "{} -> {} {} {}:{}",
                symbol(e.source),
                symbol(e.target),
                e.confidence,
                evidence.file_path,
                evidence.span.start_line
            )
        })
        .collect();
    rows.sort();
    rows
}

#[test]
fn go_bare_calls_bind_within_the_package_and_nowhere_else() {
    let facts = index("gocalls", LanguageToken::Go);
    facts.validate().unwrap();
    assert_eq!(
        calls(&facts),
        vec![
            "client/client.go#Dial -> client/client.go#NewServer STRUCTURAL_CERTAIN client/client.go:7",
            "server/report.go#report -> server/report.go#cleanup STRUCTURAL_CERTAIN server/report.go:6",
            "server/server.go#Run -> server/report.go#report STRUCTURAL_CERTAIN server/server.go:17",
            "server/server.go#Run -> server/server.go#NewServer STRUCTURAL_CERTAIN server/server.go:13",
            "server/server.go#retry -> server/report.go#report CANDIDATE server/server.go:28",
            // `package server_test` shares the directory, not the package block.
            "server/server_ext_test.go#TestRun -> server/server_ext_test.go#report STRUCTURAL_CERTAIN server/server_ext_test.go:6",
        ]
    );
    let unresolved: Vec<String> = facts
        .unresolved
        .iter()
        .map(|u| {
            format!(
                "{} {} {}:{}",
                u.reason,
                u.requested_symbol.as_deref().unwrap_or("-"),
                u.file_path.as_deref().unwrap_or("-"),
                u.span.map_or(0, |s| s.start_line)
            )
        })
        .collect();
    assert_eq!(
        unresolved,
        vec!["NAME_NOT_RESOLVED missing server/server.go:19"]
    );
}
