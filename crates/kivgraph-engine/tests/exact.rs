//! Exact analyzers layered over the syntax layer, on the fixtures under `testdata/exact`:
//! every exact edge and every unresolved row, exactly. The analyzers are the ones
//! `scripts/setup-analyzers.sh` installs (the test command runs it first).

mod support;

use std::collections::BTreeSet;
use std::path::PathBuf;

use kivgraph_analyzers::{Analyzer, Toolchain};
use kivgraph_config::{FactCacheMode, LanguageToken, RepositoryEntry, analyzers_dir};
use kivgraph_engine::{
    AnalyzerOptions, CacheIdentity, Engine, EngineError, PassOptions, load_repository, run_pass,
};
use kivgraph_facts::{Confidence, EdgeKind, FactSet, Provenance};
use support::{copy_tree, index_at, relations, unresolved_rows};

fn analyzers(scratch: &std::path::Path) -> AnalyzerOptions {
    let typescript = Toolchain::locate(Analyzer::Typescript, None, &analyzers_dir())
        .expect("scip-typescript is installed by scripts/setup-analyzers.sh");
    let python = Toolchain::locate(Analyzer::Python, None, &analyzers_dir())
        .expect("scip-python is installed by scripts/setup-analyzers.sh");
    AnalyzerOptions {
        typescript: Some(typescript),
        python: Some(python),
        scratch: scratch.to_path_buf(),
        maximum_workers: 2,
        absent: Vec::new(),
    }
}

fn index(fixtures: &[&str], language: LanguageToken) -> FactSet {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/exact");
    let scratch = tempfile::tempdir().unwrap();
    index_at(&root, fixtures, language, analyzers(scratch.path()))
}

/// Every relation the fixtures exercise, as `KIND row` lines.
fn all_relations(facts: &FactSet) -> Vec<String> {
    EdgeKind::ALL
        .iter()
        .filter(|k| k.is_reference() || matches!(k, EdgeKind::Implements | EdgeKind::Overrides))
        .flat_map(|kind| {
            relations(facts, *kind)
                .into_iter()
                .map(move |row| format!("{kind} {row}"))
        })
        .collect()
}

/// Every exact edge carries its analyzer's provenance.
fn provenances(facts: &FactSet) -> BTreeSet<(Confidence, Provenance)> {
    facts
        .edges
        .iter()
        .filter(|e| e.kind.is_reference() || e.kind == EdgeKind::Overrides)
        .map(|e| (e.confidence, e.provenance))
        .collect()
}

#[test]
fn typescript_references_are_typechecked_across_repositories() {
    let facts = index(
        &["tsprovider", "tsconsumer", "tsclaima", "tsclaimb"],
        LanguageToken::Typescript,
    );
    facts.validate().unwrap();
    assert_eq!(
        all_relations(&facts),
        vec![
            // Another repository, through the package name the consumer imports.
            "IMPORTS_SYMBOL src/report.ts#<module> -> src/format.ts#format EXACT_TYPECHECKED src/report.ts:1",
            "IMPORTS_SYMBOL src/report.ts#<module> -> src/legacy/format.ts#format EXACT_TYPECHECKED src/report.ts:1",
            "IMPORTS_SYMBOL src/report.ts#<module> -> src/shapes.ts#Shape EXACT_TYPECHECKED src/report.ts:1",
            "IMPORTS_SYMBOL src/report.ts#<module> -> src/shapes.ts#Square EXACT_TYPECHECKED src/report.ts:1",
            "IMPORTS_SYMBOL src/report.ts#<module> -> src/shapes.ts#largest EXACT_TYPECHECKED src/report.ts:1",
            // The barrel's renaming re-export reaches the homonym it names, not the other.
            "REEXPORTS src/index.ts#<module> -> src/format.ts#format EXACT_TYPECHECKED src/index.ts:1",
            "REEXPORTS src/index.ts#<module> -> src/legacy/format.ts#format EXACT_TYPECHECKED src/index.ts:2",
            "CALLS_DIRECT src/report.ts#report -> src/format.ts#format EXACT_TYPECHECKED src/report.ts:16",
            "CALLS_DIRECT src/report.ts#report -> src/report.ts#total EXACT_TYPECHECKED src/report.ts:16",
            "CALLS_DIRECT src/report.ts#report -> src/shapes.ts#Square.constructor EXACT_TYPECHECKED src/report.ts:14",
            "CALLS_DIRECT src/report.ts#report -> src/shapes.ts#largest EXACT_TYPECHECKED src/report.ts:16",
            // A method called through an interface: the interface's member, which the
            // syntax layer cannot bind at all.
            "CALLS_DIRECT src/report.ts#total -> src/shapes.ts#Shape.area EXACT_TYPECHECKED src/report.ts:8",
            "CALLS_DIRECT src/shapes.ts#largest -> src/shapes.ts#Shape.area EXACT_TYPECHECKED src/shapes.ts:21",
            "ASSIGNS_FUNCTION src/report.ts#report -> src/legacy/format.ts#format EXACT_TYPECHECKED src/report.ts:15",
            "TYPE_USES src/report.ts#report -> src/shapes.ts#Shape EXACT_TYPECHECKED src/report.ts:14",
            "TYPE_USES src/report.ts#total -> src/shapes.ts#Shape EXACT_TYPECHECKED src/report.ts:5",
            "TYPE_USES src/shapes.ts#largest -> src/shapes.ts#Shape EXACT_TYPECHECKED src/shapes.ts:20",
            "IMPLEMENTS src/shapes.ts#Circle -> src/shapes.ts#Shape EXACT_TYPECHECKED src/shapes.ts:13",
            "IMPLEMENTS src/shapes.ts#Circle.area -> src/shapes.ts#Shape.area EXACT_TYPECHECKED src/shapes.ts:15",
            "IMPLEMENTS src/shapes.ts#Square -> src/shapes.ts#Shape EXACT_TYPECHECKED src/shapes.ts:6",
            "IMPLEMENTS src/shapes.ts#Square.area -> src/shapes.ts#Shape.area EXACT_TYPECHECKED src/shapes.ts:8",
        ]
    );
    assert_eq!(
        provenances(&facts),
        BTreeSet::from([(Confidence::ExactTypechecked, Provenance::TypescriptChecker)])
    );
    // What no registered repository provides, or two claim, stays a declared hole: the
    // checker is never handed a guess.
    assert_eq!(
        unresolved_rows(&facts),
        vec![
            "AMBIGUOUS_PACKAGE_PROVIDER - @exact/claimed src/report.ts:2",
            "PACKAGE_PROVIDER_NOT_FOUND - left-pad src/report.ts:3",
        ]
    );
}

#[test]
fn python_references_are_resolved_by_pyright_across_repositories() {
    let facts = index(&["pyprovider", "pyconsumer"], LanguageToken::Python);
    facts.validate().unwrap();
    assert_eq!(
        all_relations(&facts),
        vec![
            "IMPORTS_SYMBOL app/report.py#<module> -> geometry/shapes.py#Square EXACT_TYPECHECKED app/report.py:1",
            "IMPORTS_SYMBOL app/report.py#<module> -> geometry/shapes.py#largest EXACT_TYPECHECKED app/report.py:2",
            "IMPORTS_SYMBOL app/report.py#<module> -> geometry/units.py#area EXACT_TYPECHECKED app/report.py:3",
            "IMPORTS_SYMBOL geometry/__init__.py#<module> -> geometry/shapes.py#Square EXACT_TYPECHECKED geometry/__init__.py:1",
            "CALLS_DIRECT app/report.py#report -> geometry/shapes.py#Square EXACT_TYPECHECKED app/report.py:8",
            // `first.area()` on a value pyright infers as `Square`: the method, not the
            // module-level homonym `units.area`, which the two calls around it name.
            "CALLS_DIRECT app/report.py#report -> geometry/shapes.py#Square.area EXACT_TYPECHECKED app/report.py:10",
            "CALLS_DIRECT app/report.py#report -> geometry/shapes.py#largest EXACT_TYPECHECKED app/report.py:10",
            "CALLS_DIRECT app/report.py#report -> geometry/units.py#area EXACT_TYPECHECKED app/report.py:10",
            "CALLS_DIRECT app/report.py#report -> geometry/units.py#area EXACT_TYPECHECKED app/report.py:10",
            "CALLS_DIRECT geometry/shapes.py#largest -> geometry/shapes.py#Shape.area EXACT_TYPECHECKED geometry/shapes.py:17",
            "TYPE_USES geometry/shapes.py#largest -> geometry/shapes.py#Shape EXACT_TYPECHECKED geometry/shapes.py:16",
            "EXTENDS geometry/shapes.py#Square -> geometry/shapes.py#Shape EXACT_TYPECHECKED geometry/shapes.py:8",
            "OVERRIDES geometry/shapes.py#Square.area -> geometry/shapes.py#Shape.area EXACT_TYPECHECKED geometry/shapes.py:12",
        ]
    );
    assert_eq!(
        provenances(&facts),
        BTreeSet::from([(Confidence::ExactTypechecked, Provenance::PythonIndexerUse)])
    );
    assert_eq!(
        unresolved_rows(&facts),
        vec!["PACKAGE_PROVIDER_NOT_FOUND - missingpkg app/report.py:4"]
    );
}

/// The TypeScript fixtures, copied so a test may edit them, as registry entries.
fn editable_typescript_fixtures() -> (tempfile::TempDir, Vec<RepositoryEntry>) {
    let from = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/exact");
    let dir = tempfile::tempdir().unwrap();
    let entries = ["tsprovider", "tsconsumer", "tsclaima", "tsclaimb"]
        .iter()
        .map(|name| {
            copy_tree(&from.join(name), &dir.path().join(name));
            RepositoryEntry {
                name: name.to_string(),
                path: dir.path().join(name),
                languages: vec![LanguageToken::Typescript],
                manifests: vec![],
                roots: vec![],
                exclusions: vec![],
            }
        })
        .collect();
    (dir, entries)
}

/// An edit re-runs the unit that owns the file and the units whose checker read it, and no
/// other: the consumer's edit re-checks the consumer alone; the provider's edit re-checks
/// the provider and the consumer that imports it, never the packages nobody imports from.
#[test]
fn an_edit_reruns_the_units_that_read_the_file_and_no_other() {
    let (dir, entries) = editable_typescript_fixtures();
    let load = || -> Vec<_> {
        entries
            .iter()
            .map(|e| load_repository(kivgraph_discovery::discover_repository(e).unwrap()))
            .collect()
    };
    let scratch = tempfile::tempdir().unwrap();
    let mut engine = Engine::new();
    engine.set_analyzers(&analyzers(scratch.path()));
    engine.update(&load());
    engine.facts(&|_| {});
    assert_eq!(engine.execution_log().count("typescript_unit"), 4);
    engine.execution_log().take();

    let report = dir.path().join("tsconsumer/src/report.ts");
    let text = std::fs::read_to_string(&report).unwrap();
    std::fs::write(&report, text.replace("let sum = 0;", "let sum = 0.0;")).unwrap();
    engine.update(&load());
    engine.facts(&|_| {});
    let log = engine.execution_log().take();
    let units: Vec<&String> = log
        .iter()
        .filter(|e| e.starts_with("typescript_unit("))
        .collect();
    assert_eq!(units.len(), 1, "{units:?}");

    let shapes = dir.path().join("tsprovider/src/shapes.ts");
    let text = std::fs::read_to_string(&shapes).unwrap();
    std::fs::write(&shapes, format!("{text}\nexport const unit = 1;\n")).unwrap();
    engine.update(&load());
    let after = engine.facts(&|_| {}).to_fact_set();
    assert_eq!(engine.execution_log().count("typescript_unit"), 2);
    // And the result is what a cold engine computes.
    let mut cold = Engine::new();
    cold.set_analyzers(&analyzers(scratch.path()));
    cold.update(&load());
    assert_eq!(cold.facts(&|_| {}).to_fact_set(), after);
}

/// `fact_cache: verify` re-runs every analyzer and names the unit whose cached answer
/// disagrees with a fresh one.
#[test]
fn verify_names_the_analyzer_unit_whose_cached_answer_lies() {
    let (dir, entries) = editable_typescript_fixtures();
    let scratch = tempfile::tempdir().unwrap();
    let options = |mode| PassOptions {
        fact_cache: mode,
        cache_directory: dir.path().join("cache"),
        identity: CacheIdentity("test-build".into()),
        analyzers: analyzers(scratch.path()),
    };
    run_pass(&entries, &options(FactCacheMode::On), &|_| {}).unwrap();
    run_pass(&entries, &options(FactCacheMode::Verify), &|_| {}).unwrap();
    // Only the consumer unit's memo spells the consumer's symbols.
    let cache = dir.path().join("cache/engine.cache");
    let mut bytes = std::fs::read(&cache).unwrap();
    let needle = b"npm exact-consumer 1.0.0 src/`report.ts`/total().";
    let position = bytes
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("the consumer's symbol in its unit's memo");
    bytes[position + needle.len() - 4] = b'X';
    std::fs::write(&cache, bytes).unwrap();
    let err = run_pass(&entries, &options(FactCacheMode::Verify), &|_| {}).unwrap_err();
    match err {
        EngineError::VerifyMismatch {
            repository, path, ..
        } => assert_eq!(
            (repository.as_str(), path.as_str()),
            ("tsconsumer", "TypeScript unit .")
        ),
        other => panic!("unexpected {other}"),
    }
}
