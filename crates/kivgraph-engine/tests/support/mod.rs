//! Helpers shared by the engine's fixture tests: a pass over fixture repositories, and
//! the graph's relations as sorted, readable rows.
#![allow(dead_code)]

pub mod cache_lie;

use std::path::Path;

use kivgraph_analyzers::{Analyzer, GoAnalyzer, GoSettings, RustAnalyzer, RustSettings, Toolchain};
use kivgraph_config::{FactCacheMode, LanguageToken, RepositoryEntry};
use kivgraph_config::{GoBuildContext, GoSection, analyzers_dir};
use kivgraph_engine::{AnalyzerOptions, CacheIdentity, LoadsAtOnce, PassOptions, run_pass};
use kivgraph_facts::{Edge, EdgeKind, Evidence, FactSet};

/// The engine's package directory in the checkout the tests run in: cargo says so at run
/// time (a test binary built in another clone sharing the target directory names that
/// clone at compile time).
pub fn manifest_dir() -> std::path::PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

/// Every exact analyzer `cargo xtask setup` installs.
pub fn installed_analyzers(scratch: &std::path::Path) -> AnalyzerOptions {
    let typescript = Toolchain::locate(Analyzer::Typescript, None, &analyzers_dir())
        .expect("scip-typescript is installed by cargo xtask setup");
    let python = Toolchain::locate(Analyzer::Python, None, &analyzers_dir())
        .expect("scip-python is installed by cargo xtask setup");
    let rust = Toolchain::locate(Analyzer::Rust, None, &analyzers_dir())
        .expect("rust-analyzer is linked by cargo xtask setup");
    let go = Toolchain::locate(Analyzer::Go, None, &analyzers_dir())
        .expect("the Go worker is built by cargo xtask setup");
    AnalyzerOptions {
        go: Some(GoAnalyzer {
            toolchain: go,
            settings: GoSettings::of(&GoSection::default()),
        }),
        go_build: GoBuildContext::default(),
        typescript: Some(typescript),
        python: Some(python),
        rust: Some(RustAnalyzer {
            toolchain: rust,
            settings: RustSettings::standard(scratch.join("rust-target")),
        }),
        scip_indexers: Vec::new(),
        scratch: scratch.to_path_buf(),
        maximum_workers: 2,
        loads_at_once: LoadsAtOnce {
            rust_workspaces: 2,
            go_modules: 2,
        },
        absent: Vec::new(),
        deferred_repositories: Vec::new(),
    }
}

/// One pass, fact cache off, over `fixtures` (directories under `root`, each a repository
/// of its own name).
pub fn index_at(
    root: &Path,
    fixtures: &[&str],
    language: LanguageToken,
    analyzers: AnalyzerOptions,
) -> FactSet {
    let entries: Vec<RepositoryEntry> = fixtures
        .iter()
        .map(|fixture| RepositoryEntry {
            name: fixture.to_string(),
            path: root.join(fixture),
            languages: vec![language],
            manifests: vec![],
            roots: vec![],
            exclusions: vec![],
        })
        .collect();
    let cache = tempfile::tempdir().unwrap();
    let options = PassOptions {
        fact_cache: FactCacheMode::Off,
        cache_directory: cache.path().join("cache"),
        identity: CacheIdentity("test".into()),
        analyzers,
        published_generation: None,
    };
    let outcome = run_pass(&entries, &options, &|_| {}).unwrap();
    outcome
        .computed()
        .expect("a pass with the cache off computes")
}

pub fn relations(facts: &FactSet, kind: EdgeKind) -> Vec<String> {
    // A call outside every declaration is held by its file's module scope.
    let symbol = |key| match facts.symbols.iter().find(|s| s.key == key) {
        Some(s) => format!("{}#{}", s.file_path, s.qualified_name),
        None => {
            let file = facts.files.iter().find(|f| f.key == key).unwrap();
            format!("{}#<module>", file.path)
        }
    };
    let mut rows: Vec<String> = facts
        .edges
        .iter()
        .filter(|e| e.kind == kind)
        .map(|e| {
            let evidence = evidence_of(facts, e);
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

pub fn evidence_of<'f>(facts: &'f FactSet, edge: &Edge) -> &'f Evidence {
    facts
        .evidence
        .iter()
        .find(|v| Some(v.key) == edge.evidence)
        .unwrap()
}

/// `REASON symbol package path:line` per unresolved row, sorted.
pub fn unresolved_rows(facts: &FactSet) -> Vec<String> {
    let mut rows: Vec<String> = facts
        .unresolved
        .iter()
        .map(|u| {
            format!(
                "{} {} {} {}:{}",
                u.reason,
                u.requested_symbol.as_deref().unwrap_or("-"),
                u.requested_package.as_deref().unwrap_or("-"),
                u.file_path.as_deref().unwrap_or("-"),
                u.span.map_or(0, |s| s.start_line)
            )
        })
        .collect();
    rows.sort();
    rows
}

/// Copies a fixture so a test can edit it.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}
