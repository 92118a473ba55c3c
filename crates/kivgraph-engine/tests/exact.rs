//! Exact analyzers layered over the syntax layer, on the fixtures under `testdata/exact`:
//! every exact edge and every unresolved row, exactly. The analyzers are the ones
//! `scripts/setup-analyzers.sh` installs (the test command runs it first).

mod support;

use std::collections::BTreeSet;
use std::path::PathBuf;

use kivgraph_analyzers::{Analyzer, Toolchain};
use kivgraph_config::{LanguageToken, analyzers_dir};
use kivgraph_engine::AnalyzerOptions;
use kivgraph_facts::{Confidence, EdgeKind, FactSet, Provenance};
use support::{index_at, relations, unresolved_rows};

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
