//! Exact analyzers layered over the syntax layer, on the fixtures under `testdata/exact`:
//! every exact edge and every unresolved row, exactly. The analyzers are the ones
//! `cargo xtask setup` installs (the test command runs it first).

mod support;

use std::collections::BTreeSet;
use std::path::PathBuf;

use kivgraph_analyzers::{Analyzer, ScipIndexer, Toolchain};
use kivgraph_config::{FactCacheMode, LanguageToken, RepositoryEntry, analyzers_dir};
use kivgraph_engine::{
    AnalyzerOptions, CacheIdentity, ConfiguredIndexer, Engine, EngineError, PassOptions,
    load_repository, run_pass,
};
use kivgraph_facts::{Confidence, EdgeKind, FactSet, Language, Provenance, Reason};
use support::cache_lie::make_cache_lie;
use support::{copy_tree, index_at, relations, unresolved_rows};

/// `testdata/exact`: the fixtures the exact analyzers are asserted on.
fn exact_fixtures() -> PathBuf {
    support::manifest_dir().join("../../testdata/exact")
}

fn analyzers(scratch: &std::path::Path) -> AnalyzerOptions {
    support::installed_analyzers(scratch)
}

fn index(fixtures: &[&str], language: LanguageToken) -> FactSet {
    let root = exact_fixtures();
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

/// Fails, listing every relation, when one of them is `unwanted`.
fn assert_no_relation(facts: &FactSet, unwanted: impl Fn(&str) -> bool) {
    let rows = all_relations(facts);
    assert!(rows.iter().all(|row| !unwanted(row)), "{rows:?}");
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

#[test]
fn rust_references_are_resolved_by_rust_analyzer_across_repositories() {
    let facts = index(
        &["rsprovider", "rsconsumer", "rsbroken"],
        LanguageToken::Rust,
    );
    facts.validate().unwrap();
    assert_eq!(
        all_relations(&facts),
        vec![
            "IMPORTS_SYMBOL core/src/lib.rs#<module> -> core/src/shapes/circle.rs#shapes::circle::Circle EXACT_TYPECHECKED core/src/lib.rs:6",
            "IMPORTS_SYMBOL core/src/lib.rs#<module> -> core/src/shapes/square.rs#shapes::square::Square EXACT_TYPECHECKED core/src/lib.rs:7",
            "IMPORTS_SYMBOL core/src/shapes/circle.rs#<module> -> core/src/lib.rs#Shape EXACT_TYPECHECKED core/src/shapes/circle.rs:1",
            "IMPORTS_SYMBOL core/src/shapes/square.rs#<module> -> core/src/lib.rs#Shape EXACT_TYPECHECKED core/src/shapes/square.rs:1",
            "IMPORTS_SYMBOL core/src/store.rs#<module> -> core/src/lib.rs#Shape EXACT_TYPECHECKED core/src/store.rs:2",
            "IMPORTS_SYMBOL core/src/store.rs#<module> -> core/src/shapes/circle.rs#shapes::circle::Circle EXACT_TYPECHECKED core/src/store.rs:1",
            "IMPORTS_SYMBOL src/lib.rs#<module> -> core/src/lib.rs#Shape EXACT_TYPECHECKED src/lib.rs:2",
            "IMPORTS_SYMBOL src/lib.rs#<module> -> core/src/lib.rs#total_area EXACT_TYPECHECKED src/lib.rs:2",
            "IMPORTS_SYMBOL src/lib.rs#<module> -> core/src/shapes/circle.rs#shapes::circle::Circle EXACT_TYPECHECKED src/lib.rs:2",
            "IMPORTS_SYMBOL src/lib.rs#<module> -> core/src/shapes/square.rs#shapes::square::Square EXACT_TYPECHECKED src/lib.rs:2",
            // Another repository, through a path dependency: `store::open`, not its
            // homonym `shapes_util::open`.
            "IMPORTS_SYMBOL src/lib.rs#<module> -> core/src/store.rs#store::open EXACT_TYPECHECKED src/lib.rs:1",
            "IMPORTS_SYMBOL util/src/lib.rs#<module> -> core/src/lib.rs#Shape EXACT_TYPECHECKED util/src/lib.rs:1",
            "IMPORTS_SYMBOL util/src/lib.rs#<module> -> core/src/shapes/square.rs#shapes::square::Square EXACT_TYPECHECKED util/src/lib.rs:1",
            "REFERENCES core/src/lib.rs#Shape::label -> core/src/lib.rs#Shape::area EXACT_TYPECHECKED core/src/lib.rs:16",
            "REFERENCES core/src/shapes/circle.rs#<module> -> core/src/shapes/circle.rs#shapes::circle::Circle EXACT_TYPECHECKED core/src/shapes/circle.rs:8",
            "REFERENCES core/src/shapes/circle.rs#shapes::circle::Circle::new -> core/src/shapes/circle.rs#shapes::circle::Circle::radius EXACT_TYPECHECKED core/src/shapes/circle.rs:10",
            "REFERENCES core/src/shapes/square.rs#<module> -> core/src/shapes/square.rs#shapes::square::Square EXACT_TYPECHECKED core/src/shapes/square.rs:14",
            "REFERENCES core/src/shapes/square.rs#<module> -> core/src/shapes/square.rs#shapes::square::Square EXACT_TYPECHECKED core/src/shapes/square.rs:8",
            "REFERENCES core/src/shapes/square.rs#shapes::square::Square::area -> core/src/shapes/square.rs#shapes::square::Square::side EXACT_TYPECHECKED core/src/shapes/square.rs:16",
            "REFERENCES core/src/shapes/square.rs#shapes::square::Square::area -> core/src/shapes/square.rs#shapes::square::Square::side EXACT_TYPECHECKED core/src/shapes/square.rs:16",
            "REFERENCES core/src/shapes/square.rs#shapes::square::Square::new -> core/src/shapes/square.rs#shapes::square::Square::side EXACT_TYPECHECKED core/src/shapes/square.rs:10",
            "REFERENCES core/src/store.rs#<module> -> core/src/shapes/circle.rs#shapes::circle::Circle EXACT_TYPECHECKED core/src/store.rs:4",
            "REFERENCES core/src/store.rs#store::Circle::area -> core/src/shapes/circle.rs#shapes::circle::Circle::radius EXACT_TYPECHECKED core/src/store.rs:6",
            "REFERENCES core/src/store.rs#store::Circle::area -> core/src/shapes/circle.rs#shapes::circle::Circle::radius EXACT_TYPECHECKED core/src/store.rs:6",
            "REFERENCES core/src/store.rs#store::open -> core/src/shapes/circle.rs#shapes::circle::Circle EXACT_TYPECHECKED core/src/store.rs:12",
            // Inside `vec![…]` the syntax records no site: the analyzer's target stands,
            // as a plain reference.
            "REFERENCES core/src/store.rs#store::open -> core/src/shapes/circle.rs#shapes::circle::Circle::new EXACT_TYPECHECKED core/src/store.rs:12",
            "REFERENCES src/lib.rs#<module> -> src/lib.rs#Reading EXACT_TYPECHECKED src/lib.rs:5",
            "REFERENCES src/lib.rs#circle_area -> core/src/shapes/circle.rs#shapes::circle::Circle EXACT_TYPECHECKED src/lib.rs:18",
            "REFERENCES src/lib.rs#summary -> core/src/shapes/square.rs#shapes::square::Square EXACT_TYPECHECKED src/lib.rs:12",
            // An impl inside a function's body: its type is no declaration, so the
            // function uses the trait (serde_json's deserializers' local visitors).
            "REFERENCES src/lib.rs#unit_area -> core/src/lib.rs#Shape EXACT_TYPECHECKED src/lib.rs:28",
            "REFERENCES util/src/lib.rs#<module> -> util/src/lib.rs#Ruler EXACT_TYPECHECKED util/src/lib.rs:27",
            "REFERENCES util/src/lib.rs#report -> core/src/shapes/square.rs#shapes::square::Square EXACT_TYPECHECKED util/src/lib.rs:10",
            "CALLS_DIRECT core/src/lib.rs#total_area -> core/src/lib.rs#Shape::area EXACT_TYPECHECKED core/src/lib.rs:22",
            "CALLS_DIRECT src/lib.rs#Reading::double -> src/lib.rs#Reading EXACT_TYPECHECKED src/lib.rs:7",
            "CALLS_DIRECT src/lib.rs#circle_area -> core/src/shapes/circle.rs#shapes::circle::Circle::new EXACT_TYPECHECKED src/lib.rs:18",
            // A trait method on a value, implemented in another file than its type.
            "CALLS_DIRECT src/lib.rs#circle_area -> core/src/store.rs#store::Circle::area EXACT_TYPECHECKED src/lib.rs:18",
            "CALLS_DIRECT src/lib.rs#measure -> src/lib.rs#Reading EXACT_TYPECHECKED src/lib.rs:12",
            "CALLS_DIRECT src/lib.rs#measure -> src/lib.rs#Reading::double EXACT_TYPECHECKED src/lib.rs:13",
            "CALLS_DIRECT src/lib.rs#summary -> core/src/lib.rs#total_area EXACT_TYPECHECKED src/lib.rs:13",
            "CALLS_DIRECT src/lib.rs#summary -> core/src/shapes/square.rs#shapes::square::Square::new EXACT_TYPECHECKED src/lib.rs:12",
            "CALLS_DIRECT src/lib.rs#summary -> core/src/store.rs#store::open EXACT_TYPECHECKED src/lib.rs:7",
            // Through `dyn Shape`: the trait's method, which the syntax layer cannot bind.
            "CALLS_DIRECT util/src/lib.rs#measure -> core/src/lib.rs#Shape::area EXACT_TYPECHECKED util/src/lib.rs:16",
            // A provided (default) trait method called on a value.
            "CALLS_DIRECT util/src/lib.rs#report -> core/src/lib.rs#Shape::label EXACT_TYPECHECKED util/src/lib.rs:11",
            "CALLS_DIRECT util/src/lib.rs#report -> core/src/shapes/square.rs#shapes::square::Square::new EXACT_TYPECHECKED util/src/lib.rs:10",
            "TYPE_USES core/src/lib.rs#total_area -> core/src/lib.rs#Shape EXACT_TYPECHECKED core/src/lib.rs:21",
            "TYPE_USES core/src/shapes/circle.rs#shapes::circle::Circle::new -> core/src/shapes/circle.rs#shapes::circle::Circle EXACT_TYPECHECKED core/src/shapes/circle.rs:10",
            "TYPE_USES core/src/shapes/square.rs#shapes::square::Square::new -> core/src/shapes/square.rs#shapes::square::Square EXACT_TYPECHECKED core/src/shapes/square.rs:10",
            "TYPE_USES core/src/store.rs#store::open -> core/src/shapes/circle.rs#shapes::circle::Circle EXACT_TYPECHECKED core/src/store.rs:11",
            "TYPE_USES src/lib.rs#Reading::double -> src/lib.rs#Reading EXACT_TYPECHECKED src/lib.rs:6",
            "TYPE_USES src/lib.rs#measure -> src/lib.rs#Reading EXACT_TYPECHECKED src/lib.rs:11",
            "TYPE_USES src/lib.rs#summary -> core/src/lib.rs#Shape EXACT_TYPECHECKED src/lib.rs:8",
            "TYPE_USES util/src/lib.rs#measure -> core/src/lib.rs#Shape EXACT_TYPECHECKED util/src/lib.rs:15",
            "TYPE_USES util/src/lib.rs#open -> core/src/shapes/square.rs#shapes::square::Square EXACT_TYPECHECKED util/src/lib.rs:4",
            // `impl Trait for Type` headers stay the syntax layer's (rule R5).
            "IMPLEMENTS core/src/shapes/circle.rs#shapes::circle::Circle -> core/src/lib.rs#Shape STRUCTURAL_CERTAIN core/src/store.rs:4",
            "IMPLEMENTS core/src/shapes/square.rs#shapes::square::Square -> core/src/lib.rs#Shape STRUCTURAL_CERTAIN core/src/shapes/square.rs:14",
            "IMPLEMENTS core/src/shapes/square.rs#shapes::square::Square::area -> core/src/lib.rs#Shape::area STRUCTURAL_CERTAIN core/src/shapes/square.rs:15",
            // A trait the syntax layer cannot reach (through a module re-exporting another
            // crate's items, as serde re-exports serde_core's): the analyzer's IMPLEMENTS.
            "IMPLEMENTS util/src/lib.rs#Ruler -> core/src/lib.rs#Shape EXACT_TYPECHECKED util/src/lib.rs:27",
        ]
    );
    assert_eq!(
        provenances(&facts),
        BTreeSet::from([
            (Confidence::ExactTypechecked, Provenance::RustAnalyzerUse),
            (Confidence::StructuralCertain, Provenance::TreeSitterSyntax),
        ])
    );
    // A dependency nobody checked out: the crate's own code is still analysed (the calls
    // above), the import stays the syntax layer's hole, and the partial load is reported
    // with the unit rather than hiding anything. The vendored crate under `vendor/` is
    // excluded by discovery and by the analyzer.
    assert_eq!(
        unresolved_rows(&facts),
        vec!["CRATE_PROVIDER_NOT_FOUND - gauge src/lib.rs:1"]
    );
    assert!(!facts.files.iter().any(|f| f.path.starts_with("vendor/")));
    let broken = Edited::new(&["rsbroken"], LanguageToken::Rust);
    let runs = broken
        .engine
        .analyzer_runs("rsbroken", &analyzers(broken.scratch.path()));
    assert!(
        runs[0].failures[0].starts_with("WORKSPACE_NOT_LOADED .: dependencies not loaded"),
        "{runs:?}"
    );
}

/// The relations from the fixture's files the Go build context decides (`_test.go` files,
/// a file built only with the `ladybug` tag, a Windows-only file), under `include_tests` and
/// `build_tags`.
fn go_selected_relations(include_tests: bool, build_tags: &[&str]) -> Vec<String> {
    let root = exact_fixtures();
    let scratch = tempfile::tempdir().unwrap();
    let mut options = analyzers(scratch.path());
    options.go_build.include_tests = include_tests;
    options.go_build.build_tags = build_tags.iter().map(|t| t.to_string()).collect();
    let facts = index_at(&root, &["gotests"], LanguageToken::Go, options);
    facts.validate().unwrap();
    let files: Vec<&str> = facts.files.iter().map(|f| f.path.as_str()).collect();
    let decided = |path: &str| path != "counter/counter.go" && path != "go.mod";
    let mut rows: Vec<String> = files
        .iter()
        .filter(|path| decided(path))
        .map(|path| format!("FILE {path}"))
        .collect();
    // Relations held in the files the context decides (the holder is `path#name`).
    rows.extend(all_relations(&facts).into_iter().filter(|row| {
        let holder = row.split(' ').nth(1).unwrap_or_default();
        decided(holder.split('#').next().unwrap_or_default())
    }));
    rows
}

#[test]
fn go_tests_and_constrained_files_are_in_the_graph_as_the_build_context_says() {
    // In-package and external tests, uses the syntax layer cannot bind (a method called on
    // a map's element and on a slice's): go/types binds them once the tests are checked.
    assert_eq!(
        go_selected_relations(true, &[]),
        vec![
            "FILE counter/counter_test.go",
            "FILE counter/external_test.go",
            "REFERENCES counter/counter_test.go#TestAdd -> counter/counter.go#Counter.n EXACT_TYPECHECKED counter/counter_test.go:9",
            "CALLS_DIRECT counter/counter_test.go#TestAdd -> counter/counter.go#Counter.Add EXACT_TYPECHECKED counter/counter_test.go:8",
            "CALLS_DIRECT counter/counter_test.go#TestAdd -> counter/counter.go#New EXACT_TYPECHECKED counter/counter_test.go:7",
            "CALLS_DIRECT counter/external_test.go#TestExternal -> counter/counter.go#Counter.Add EXACT_TYPECHECKED counter/external_test.go:12",
            "CALLS_DIRECT counter/external_test.go#TestExternal -> counter/counter.go#New EXACT_TYPECHECKED counter/external_test.go:11",
            "TYPE_USES counter/counter_test.go#TestAdd -> counter/counter.go#Counter EXACT_TYPECHECKED counter/counter_test.go:7",
            "TYPE_USES counter/external_test.go#TestExternal -> counter/counter.go#Counter EXACT_TYPECHECKED counter/external_test.go:11",
        ]
    );
    // The default build compiles neither the tests nor the tagged file, and no pass builds
    // for Windows here: none of them is in the graph, in either layer.
    assert_eq!(go_selected_relations(false, &[]), Vec::<String>::new());
    assert_eq!(
        go_selected_relations(false, &["ladybug"]),
        vec![
            "FILE counter/tagged.go",
            "CALLS_DIRECT counter/tagged.go#Tagged -> counter/counter.go#New EXACT_TYPECHECKED counter/tagged.go:6",
            "TYPE_USES counter/tagged.go#Tagged -> counter/counter.go#Counter EXACT_TYPECHECKED counter/tagged.go:6",
        ]
    );
}

#[test]
fn go_references_are_resolved_by_go_types_across_modules() {
    let facts = index(
        &["goprovider", "goconsumer", "gomissing"],
        LanguageToken::Go,
    );
    facts.validate().unwrap();
    assert_eq!(
        all_relations(&facts),
        vec![
            "REFERENCES report/report.go#Report -> shapes/shapes.go#Circle.Radius EXACT_TYPECHECKED report/report.go:12",
            // A field passed to `fmt.Sprintf` is read, not called back.
            "REFERENCES report/report.go#Report -> store/store.go#Named.Name EXACT_TYPECHECKED report/report.go:16",
            "REFERENCES report/report.go#Report -> store/store.go#Named.Square EXACT_TYPECHECKED report/report.go:15",
            "REFERENCES shapes/shapes.go#Circle.Area -> shapes/shapes.go#Circle.Radius EXACT_TYPECHECKED shapes/shapes.go:26",
            "REFERENCES shapes/shapes.go#Circle.Area -> shapes/shapes.go#Circle.Radius EXACT_TYPECHECKED shapes/shapes.go:26",
            "REFERENCES shapes/shapes.go#Circle.Scale -> shapes/shapes.go#Circle.Radius EXACT_TYPECHECKED shapes/shapes.go:29",
            "REFERENCES shapes/shapes.go#Square.Area -> shapes/shapes.go#Square.Side EXACT_TYPECHECKED shapes/shapes.go:15",
            "REFERENCES shapes/shapes.go#Square.Area -> shapes/shapes.go#Square.Side EXACT_TYPECHECKED shapes/shapes.go:15",
            "REFERENCES shapes/shapes.go#Square.Scale -> shapes/shapes.go#Square.Side EXACT_TYPECHECKED shapes/shapes.go:18",
            "REFERENCES store/store.go#Open -> shapes/shapes.go#Square.Side EXACT_TYPECHECKED store/store.go:24",
            "REFERENCES store/store.go#Open -> store/store.go#Named.Name EXACT_TYPECHECKED store/store.go:24",
            "REFERENCES store/store.go#Open -> store/store.go#Named.Square EXACT_TYPECHECKED store/store.go:24",
            // A module the go command cannot load offline keeps the syntax layer's facts.
            "CALLS_DIRECT missing.go#Read -> missing.go#local STRUCTURAL_CERTAIN missing.go:6",
            // Another module through `replace`; `Circle.Scale`, not its homonym on `*Square`.
            "CALLS_DIRECT report/report.go#Report -> shapes/shapes.go#Circle.Scale EXACT_TYPECHECKED report/report.go:13",
            "CALLS_DIRECT report/report.go#Report -> shapes/shapes.go#Total EXACT_TYPECHECKED report/report.go:15",
            "CALLS_DIRECT report/report.go#Report -> store/store.go#Open EXACT_TYPECHECKED report/report.go:14",
            // Through an interface with two implementations: the interface's method.
            "CALLS_DIRECT shapes/shapes.go#Total -> shapes/shapes.go#Shape.Area EXACT_TYPECHECKED shapes/shapes.go:35",
            // A method promoted through an embedded field.
            "CALLS_DIRECT store/store.go#Open -> shapes/shapes.go#Square.Scale EXACT_TYPECHECKED store/store.go:25",
            // Through an interface with one implementation.
            "CALLS_DIRECT store/store.go#Open -> store/store.go#Measurer.Measure EXACT_TYPECHECKED store/store.go:24",
            "TYPE_USES report/report.go#Report -> shapes/shapes.go#Circle EXACT_TYPECHECKED report/report.go:12",
            "TYPE_USES report/report.go#Report -> shapes/shapes.go#Shape EXACT_TYPECHECKED report/report.go:15",
            "TYPE_USES report/report.go#Report -> store/store.go#Ruler EXACT_TYPECHECKED report/report.go:14",
            "TYPE_USES shapes/shapes.go#Circle.Area -> shapes/shapes.go#Circle EXACT_TYPECHECKED shapes/shapes.go:26",
            "TYPE_USES shapes/shapes.go#Circle.Scale -> shapes/shapes.go#Circle EXACT_TYPECHECKED shapes/shapes.go:29",
            "TYPE_USES shapes/shapes.go#Square.Area -> shapes/shapes.go#Square EXACT_TYPECHECKED shapes/shapes.go:15",
            "TYPE_USES shapes/shapes.go#Square.Scale -> shapes/shapes.go#Square EXACT_TYPECHECKED shapes/shapes.go:18",
            "TYPE_USES shapes/shapes.go#Total -> shapes/shapes.go#Shape EXACT_TYPECHECKED shapes/shapes.go:32",
            "TYPE_USES store/store.go#Open -> shapes/shapes.go#Square EXACT_TYPECHECKED store/store.go:24",
            "TYPE_USES store/store.go#Open -> store/store.go#Measurer EXACT_TYPECHECKED store/store.go:23",
            "TYPE_USES store/store.go#Open -> store/store.go#Named EXACT_TYPECHECKED store/store.go:23",
            "TYPE_USES store/store.go#Open -> store/store.go#Named EXACT_TYPECHECKED store/store.go:24",
            "TYPE_USES store/store.go#Ruler.Measure -> store/store.go#Ruler EXACT_TYPECHECKED store/store.go:20",
            // Interface satisfaction stays the syntax layer's (rules G-I).
            "IMPLEMENTS shapes/shapes.go#Circle -> shapes/shapes.go#Shape STRUCTURAL_CERTAIN shapes/shapes.go:21",
            "IMPLEMENTS shapes/shapes.go#Circle.Area -> shapes/shapes.go#Shape.Area STRUCTURAL_CERTAIN shapes/shapes.go:26",
            "IMPLEMENTS shapes/shapes.go#Square -> shapes/shapes.go#Shape STRUCTURAL_CERTAIN shapes/shapes.go:10",
            "IMPLEMENTS shapes/shapes.go#Square.Area -> shapes/shapes.go#Shape.Area STRUCTURAL_CERTAIN shapes/shapes.go:15",
            "IMPLEMENTS store/store.go#Named -> shapes/shapes.go#Shape STRUCTURAL_CERTAIN store/store.go:6",
            "IMPLEMENTS store/store.go#Ruler -> store/store.go#Measurer STRUCTURAL_CERTAIN store/store.go:17",
            "IMPLEMENTS store/store.go#Ruler.Measure -> store/store.go#Measurer.Measure STRUCTURAL_CERTAIN store/store.go:20",
            "EMBEDS store/store.go#Named -> shapes/shapes.go#Square EXACT_TYPECHECKED store/store.go:7",
        ]
    );
    // The build-tagged package is not buildable; the module whose requirement nobody
    // downloaded is declared MODULE_NOT_LOADED (the pass goes on: its go.mod predates
    // module graph pruning, so the go command cannot list it offline), and its import stays
    // the syntax layer's hole.
    assert_eq!(
        unresolved_rows(&facts),
        vec![
            "MODULE_NOT_LOADED - example.com/gomissing example.com/gomissing -:0",
            "MODULE_PROVIDER_NOT_FOUND - example.com/nowhere/gauge missing.go:3",
            "PACKAGE_NOT_BUILDABLE - example.com/goprovider example.com/goprovider/legacy -:0",
        ]
    );
}

/// A module whose go.mod requires a registered module that only its tests import: with the
/// tests left out (the default), the go command still reads that module's go.mod (its own
/// predates graph pruning), so the registered module is in the unit's workspace and the
/// module is type-checked rather than declared MODULE_NOT_LOADED.
#[test]
fn a_registered_module_required_only_by_tests_is_in_the_workspace() {
    let facts = index(&["gotestonly", "goprovider"], LanguageToken::Go);
    facts.validate().unwrap();
    let relations = all_relations(&facts);
    let expected = "CALLS_DIRECT tally/tally.go#Count -> tally/tally.go#Tally.Add EXACT_TYPECHECKED tally/tally.go:10";
    assert!(relations.iter().any(|r| r == expected), "{relations:#?}");
    assert!(
        !relations.iter().any(|r| r.contains("tally_test.go")),
        "{relations:#?}"
    );
    assert_eq!(
        unresolved_rows(&facts),
        ["PACKAGE_NOT_BUILDABLE - example.com/goprovider example.com/goprovider/legacy -:0"]
    );
}

/// Modules as current Go writes them — `go 1.25`, a `tool` directive, a generic type alias —
/// are type-checked; a module newer than the installed Go is declared, naming both versions.
#[test]
fn current_go_modules_are_type_checked_and_a_newer_one_is_declared() {
    let facts = index(&["gomodern", "gofuture"], LanguageToken::Go);
    facts.validate().unwrap();
    let relations = all_relations(&facts);
    for expected in [
        "CALLS_DIRECT cmd/gen/main.go#main -> names/names.go#Greeting EXACT_TYPECHECKED cmd/gen/main.go:7",
        "TYPE_USES names/names.go#Greeting -> names/names.go#Set EXACT_TYPECHECKED names/names.go:9",
    ] {
        assert!(relations.iter().any(|r| r == expected), "{relations:#?}");
    }
    assert_eq!(
        unresolved_rows(&facts),
        ["MODULE_NOT_LOADED - example.com/gofuture example.com/gofuture -:0"]
    );
    assert_eq!(
        facts.unresolved[0].detail,
        "go: go.mod requires go >= 1.99 (running go 1.27.4; GOTOOLCHAIN=local)"
    );
}

/// A module whose `go.mod` replaces a registered module with a fork nobody registered: the
/// build uses the fork, so the import is a `REPLACE_CONFLICT`, never bound to the registered
/// module by its import path — by the syntax layer, and by go/types, whose load the missing
/// fork stops.
#[test]
fn a_go_import_a_replace_takes_elsewhere_is_a_conflict() {
    let root = exact_fixtures();
    let scratch = tempfile::tempdir().unwrap();
    for analyzers in [AnalyzerOptions::default(), analyzers(scratch.path())] {
        let facts = index_at(
            &root,
            &["goprovider", "goforked"],
            LanguageToken::Go,
            analyzers,
        );
        facts.validate().unwrap();
        assert_no_relation(&facts, |row| row.contains("forked.go#"));
        let conflicts: Vec<&str> = facts
            .unresolved
            .iter()
            .filter(|u| u.reason == Reason::ReplaceConflict)
            .map(|u| u.detail.as_str())
            .collect();
        assert_eq!(conflicts.len(), 1, "{:?}", unresolved_rows(&facts));
        assert!(
            conflicts[0].starts_with("go.mod replaces example.com/goprovider with ")
                && conflicts[0].contains("/testdata/exact/goprovider-fork, so the build does not use the registered example.com/goprovider/shapes (")
                && conflicts[0].ends_with("/testdata/exact/goprovider/shapes)"),
            "{}",
            conflicts[0]
        );
    }
}

/// A consumer whose `Cargo.lock` pins a crates.io release of a crate registered at a
/// release its requirement also accepts is loaded as a developer working on both would set
/// it up — the registered source patched in, in scratch space — and its uses are edges to
/// the registered crate. The checkout's lockfile stays as it is.
#[test]
fn a_pinned_compatible_dependency_is_loaded_against_the_registered_source() {
    let lock = exact_fixtures().join("rspinned/Cargo.lock");
    let before = std::fs::read(&lock).unwrap();
    let facts = index(&["rsitoanext", "rspinned"], LanguageToken::Rust);
    facts.validate().unwrap();
    let calls: Vec<String> = relations(&facts, EdgeKind::CallsDirect)
        .into_iter()
        .filter(|row| row.starts_with("src/lib.rs#render"))
        .collect();
    assert_eq!(
        calls,
        [
            "src/lib.rs#render -> src/lib.rs#Buffer::format EXACT_TYPECHECKED src/lib.rs:3",
            "src/lib.rs#render -> src/lib.rs#Buffer::new EXACT_TYPECHECKED src/lib.rs:2",
        ]
    );
    assert_eq!(unresolved_rows(&facts), Vec::<String>::new());
    assert_eq!(std::fs::read(&lock).unwrap(), before);
    assert!(!exact_fixtures().join("rspinned/target").exists());
}

/// A consumer turns on a feature of a registered crate that the crate's own build leaves
/// off: no load defines the gated function, so rust-analyzer's use of it names nothing the
/// graph holds. It is declared `CRATE_SYMBOL_NOT_MATCHED` (never owed nothing, which would
/// let an answer about `fast_sum` call itself complete), and the syntax layer's reading of
/// the site stands; the ungated call is exact.
#[test]
fn a_use_no_load_defines_is_declared_and_the_syntax_layer_answers_it() {
    let facts = index(&["rsgated", "rsgateduser"], LanguageToken::Rust);
    facts.validate().unwrap();
    let calls: Vec<String> = relations(&facts, EdgeKind::CallsDirect)
        .into_iter()
        .filter(|row| row.starts_with("src/lib.rs#total"))
        .collect();
    assert_eq!(
        calls,
        [
            "src/lib.rs#total -> src/lib.rs#fast_sum CANDIDATE src/lib.rs:2",
            "src/lib.rs#total -> src/lib.rs#sum EXACT_TYPECHECKED src/lib.rs:2",
        ]
    );
    assert_eq!(
        unresolved_rows(&facts),
        ["CRATE_SYMBOL_NOT_MATCHED fast_sum rsgated 0.1.0 src/lib.rs:2"]
    );
    assert_eq!(
        facts.unresolved[0].detail,
        "the analyzer resolved this use into rsgated 0.1.0, whose load defines no `fast_sum`"
    );
}

/// The registered source, patched in, would keep the consumer's workspace from resolving
/// offline (it needs a crate no registry here holds): the workspace is loaded as published,
/// and its uses of the registry's release are declared, never bound to the registered copy.
#[test]
fn a_patch_that_breaks_the_workspace_is_not_applied() {
    let facts = index(&["rsitoaunresolvable", "rspinned"], LanguageToken::Rust);
    facts.validate().unwrap();
    assert_no_relation(&facts, |row| {
        row.starts_with("CALLS_DIRECT src/lib.rs#render")
    });
    let reasons: Vec<String> = unresolved_rows(&facts)
        .into_iter()
        .map(|row| row.split(" itoa ").next().unwrap().to_string())
        .collect();
    assert_eq!(
        reasons,
        [
            "CRATE_VERSION_MISMATCH Buffer",
            "CRATE_VERSION_MISMATCH format",
            "CRATE_VERSION_MISMATCH new"
        ]
    );
}

/// A registered crate named like a crates.io dependency, at another release: cargo resolves
/// the dependency from the local registry, and rust-analyzer binds the uses there. They are
/// declared `CRATE_VERSION_MISMATCH`, never bound to the registered copy by name.
#[test]
fn a_use_resolved_into_another_release_of_a_registered_crate_is_declared() {
    let facts = index(&["rsfakeitoa", "rsversions"], LanguageToken::Rust);
    facts.validate().unwrap();
    assert_no_relation(&facts, |row| {
        row.starts_with("CALLS_DIRECT src/lib.rs#render")
    });
    let rows: Vec<String> = unresolved_rows(&facts)
        .into_iter()
        .filter(|row| row.starts_with("CRATE_VERSION_MISMATCH"))
        .map(|row| {
            // The release is whichever 1.x the local registry holds.
            let (head, tail) = row.split_once(" itoa 1.").unwrap();
            let (_, tail) = tail.split_once(' ').unwrap();
            format!("{head} itoa 1.x {tail}")
        })
        .collect();
    assert_eq!(
        rows,
        vec![
            "CRATE_VERSION_MISMATCH Buffer itoa 1.x src/lib.rs:2",
            "CRATE_VERSION_MISMATCH format itoa 1.x src/lib.rs:3",
            "CRATE_VERSION_MISMATCH new itoa 1.x src/lib.rs:2",
        ]
    );
}

/// The TypeScript fixtures, copied so a test may edit them, as registry entries.
fn editable_typescript_fixtures() -> (tempfile::TempDir, Vec<RepositoryEntry>) {
    editable_fixtures(
        &["tsprovider", "tsconsumer", "tsclaima", "tsclaimb"],
        LanguageToken::Typescript,
    )
}

/// Fixtures copied so a test may edit them, as registry entries.
fn editable_fixtures(
    names: &[&str],
    language: LanguageToken,
) -> (tempfile::TempDir, Vec<RepositoryEntry>) {
    let from = exact_fixtures();
    let dir = tempfile::tempdir().unwrap();
    let entries = names
        .iter()
        .map(|name| {
            copy_tree(&from.join(name), &dir.path().join(name));
            RepositoryEntry {
                name: name.to_string(),
                path: dir.path().join(name),
                languages: vec![language],
                manifests: vec![],
                roots: vec![],
                exclusions: vec![],
            }
        })
        .collect();
    (dir, entries)
}

/// An engine over fixtures copied so a test may edit them, analysed once.
struct Edited {
    dir: tempfile::TempDir,
    entries: Vec<RepositoryEntry>,
    scratch: tempfile::TempDir,
    engine: Engine,
}

impl Edited {
    fn new(names: &[&str], language: LanguageToken) -> Self {
        let (dir, entries) = editable_fixtures(names, language);
        let scratch = tempfile::tempdir().unwrap();
        let mut edited = Edited {
            dir,
            entries,
            engine: Engine::new(),
            scratch,
        };
        edited
            .engine
            .set_analyzers(&analyzers(edited.scratch.path()));
        edited.engine.update(&edited.load());
        edited.engine.facts(&|_| {});
        edited
    }

    fn load(&self) -> Vec<kivgraph_engine::LoadedRepository> {
        self.entries
            .iter()
            .map(|e| {
                load_repository(
                    kivgraph_discovery::discover_repository(e, &Default::default()).unwrap(),
                )
            })
            .collect()
    }

    /// How many times `query` ran since the last call.
    fn executions(&self, query: &str) -> usize {
        let log = self.engine.execution_log().take();
        log.iter()
            .filter(|e| e.starts_with(&format!("{query}(")))
            .count()
    }

    fn edit(&self, path: &str, from: &str, to: &str) {
        let file = self.dir.path().join(path);
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains(from), "{path} does not spell {from}");
        std::fs::write(&file, text.replace(from, to)).unwrap();
    }

    /// Re-analyses after an edit; how many times `query` ran.
    fn reruns(&mut self, query: &str) -> usize {
        self.engine.update(&self.load());
        self.engine.facts(&|_| {});
        self.executions(query)
    }

    /// The incremental result is what a cold engine computes, and no analyzer wrote a file
    /// into a checkout (a `target/`, a `Cargo.lock`, a `go.sum`, a `tsconfig.json`…): each
    /// holds exactly the fixture's files.
    fn assert_same_as_cold(&self) {
        let after = self.engine.facts(&|_| {}).to_fact_set();
        let mut cold = Engine::new();
        cold.set_analyzers(&analyzers(self.scratch.path()));
        cold.update(&self.load());
        assert_eq!(cold.facts(&|_| {}).to_fact_set(), after);
        let fixtures = exact_fixtures();
        for entry in &self.entries {
            assert_eq!(
                files_under(&entry.path),
                files_under(&fixtures.join(&entry.name)),
                "an analyzer wrote into {}",
                entry.name
            );
        }
    }
}

/// Every file under `root`, hidden ones included, by relative path.
fn files_under(root: &std::path::Path) -> BTreeSet<String> {
    let mut files = BTreeSet::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(directory) = pending.pop() {
        for entry in std::fs::read_dir(&directory).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let relative = path.strip_prefix(root).unwrap();
                files.insert(relative.display().to_string());
            }
        }
    }
    files
}

/// An edit re-runs the unit that owns the file and the units whose checker read it, and no
/// other: the consumer's edit re-checks the consumer alone; the provider's edit re-checks
/// the provider and the consumer that imports it, never the packages nobody imports from.
#[test]
fn an_edit_reruns_the_units_that_read_the_file_and_no_other() {
    let mut edited = Edited::new(
        &["tsprovider", "tsconsumer", "tsclaima", "tsclaimb"],
        LanguageToken::Typescript,
    );
    assert_eq!(edited.executions("typescript_unit"), 4);
    edited.edit("tsconsumer/src/report.ts", "let sum = 0;", "let sum = 0.0;");
    assert_eq!(edited.reruns("typescript_unit"), 1);
    edited.edit(
        "tsprovider/src/shapes.ts",
        "export class Square",
        "export const unit = 1;\nexport class Square",
    );
    assert_eq!(edited.reruns("typescript_unit"), 2);
    edited.assert_same_as_cold();
}

/// Rust: a unit per Cargo workspace. Editing a `.rs` file re-runs its workspace's unit and
/// no other; editing the provider re-runs the consumer too, whose path dependency
/// rust-analyzer loaded; so does a manifest edit. Nothing is written in the checkouts.
#[test]
fn a_rust_edit_reruns_its_workspace_and_the_workspaces_that_depend_on_it() {
    let mut edited = Edited::new(&["rsprovider", "rsconsumer"], LanguageToken::Rust);
    assert_eq!(edited.executions("rust_unit"), 2);
    edited.edit(
        "rsconsumer/src/lib.rs",
        "Square::new(2.0)",
        "Square::new(3.0)",
    );
    assert_eq!(edited.reruns("rust_unit"), 1);
    edited.edit(
        "rsprovider/core/src/store.rs",
        "vec![Circle::new(1.0)]",
        "vec![Circle::new(2.0)]",
    );
    assert_eq!(edited.reruns("rust_unit"), 2);
    edited.edit(
        "rsconsumer/Cargo.toml",
        "version = \"0.1.0\"",
        "version = \"0.1.1\"",
    );
    assert_eq!(edited.reruns("rust_unit"), 1);
    edited.assert_same_as_cold();
}

/// Go: an edit re-runs its module's unit and the units of the modules that import it.
#[test]
fn a_go_edit_reruns_its_module_and_the_modules_that_require_it() {
    let mut edited = Edited::new(&["goprovider", "goconsumer"], LanguageToken::Go);
    assert_eq!(edited.executions("go_unit"), 2);
    edited.edit("goconsumer/report/report.go", "Radius: 1", "Radius: 2");
    assert_eq!(edited.reruns("go_unit"), 1);
    edited.edit("goprovider/store/store.go", "return 1", "return 2");
    assert_eq!(edited.reruns("go_unit"), 2);
    edited.assert_same_as_cold();
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
        published_generation: None,
    };
    run_pass(&entries, &options(FactCacheMode::On), &|_| {}).unwrap();
    run_pass(&entries, &options(FactCacheMode::Verify), &|_| {}).unwrap();
    // The consumer unit's memo spells the consumer's symbols (so do the memos derived
    // from it): make every one of them lie.
    let cache = dir.path().join("cache/engine.cache");
    make_cache_lie(
        &cache,
        b"npm exact-consumer 1.0.0 src/`report.ts`/total().",
        b"X().",
    );
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

/// scip-python plugged in by configuration, as any SCIP indexer would be: one run per
/// repository in a mirror of it, its edges `SCIP_INDEXER`, in place of the built-in unit.
fn configured_scip_python(scratch: &std::path::Path, command_tail: &[&str]) -> AnalyzerOptions {
    let program = Toolchain::locate(Analyzer::Python, None, &analyzers_dir())
        .expect("scip-python is installed by cargo xtask setup")
        .program;
    let environment = scratch.join("environment.json");
    std::fs::create_dir_all(scratch).unwrap();
    std::fs::write(&environment, "[]").unwrap();
    let mut command = vec![program.display().to_string()];
    command.extend(command_tail.iter().map(|a| a.to_string()));
    command.extend([
        "--environment".to_string(),
        environment.display().to_string(),
    ]);
    let indexer = ScipIndexer::locate("pyright-scip", &command).unwrap();
    AnalyzerOptions {
        scip_indexers: vec![ConfiguredIndexer {
            indexer,
            languages: vec![Language::Python],
            repositories: Vec::new(),
        }],
        ..analyzers(scratch)
    }
}

#[test]
fn a_configured_scip_indexer_decides_its_language_in_place_of_the_built_in() {
    let scratch = tempfile::tempdir().unwrap();
    let options = configured_scip_python(
        scratch.path(),
        &[
            "index",
            "--output",
            "{output}",
            "--quiet",
            "--project-name",
            "geometry",
            "--project-version",
            "1",
        ],
    );
    let facts = index_at(
        &exact_fixtures(),
        &["pyprovider", "pyconsumer"],
        LanguageToken::Python,
        options,
    );
    facts.validate().unwrap();
    // On the provider, the same exact edges as the built-in unit's (which ran pyright over
    // both repositories at once).
    let provider_rows = |facts: &FactSet| -> Vec<String> {
        all_relations(facts)
            .into_iter()
            .filter(|row| {
                row.split(' ')
                    .nth(1)
                    .is_some_and(|s| s.starts_with("geometry/"))
            })
            .collect()
    };
    let built_in = index(&["pyprovider", "pyconsumer"], LanguageToken::Python);
    assert_eq!(provider_rows(&facts), provider_rows(&built_in));
    assert_eq!(provider_rows(&facts).len(), 5);
    // Run on the consumer alone, pyright cannot see the provider: those uses keep the
    // syntax layer's candidates, never an edge the indexer did not give.
    let consumer_rows: Vec<String> = all_relations(&facts)
        .into_iter()
        .filter(|row| row.contains(" app/report.py#"))
        .collect();
    assert_eq!(consumer_rows.len(), 7);
    assert!(
        consumer_rows.iter().all(|row| row.contains(" CANDIDATE ")),
        "{consumer_rows:?}"
    );
    // The indexer's edges say which source they came from; the built-in unit never ran.
    assert_eq!(
        provenances(&facts),
        BTreeSet::from([
            (Confidence::ExactTypechecked, Provenance::ScipIndexer),
            (Confidence::Candidate, Provenance::TreeSitterSyntax),
        ])
    );
    assert_eq!(
        unresolved_rows(&facts),
        vec!["PACKAGE_PROVIDER_NOT_FOUND - missingpkg app/report.py:4"]
    );
}

/// A stand-in SCIP indexer: answers `--version`, then writes the index prepared for the
/// repository it runs in (the consumer's when its mirror holds `app/report.py`).
fn fake_indexer(dir: &std::path::Path, provider: &[u8], consumer: &[u8]) -> Vec<String> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(dir.join("provider.scip"), provider).unwrap();
    std::fs::write(dir.join("consumer.scip"), consumer).unwrap();
    let program = dir.join("scip-fake");
    std::fs::write(
        &program,
        format!(
            "#!/bin/sh\n[ \"$1\" = --version ] && {{ echo 'scip-fake 0.1'; exit 0; }}\nif [ -f app/report.py ]; then cp {0}/consumer.scip \"$1\"; else cp {0}/provider.scip \"$1\"; fi\n",
            dir.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    vec![program.display().to_string(), "{output}".to_string()]
}

/// One document of a SCIP index: `(symbol, line, start column, end column, definition)`,
/// and `(symbol, its type)` type-definition relationships.
fn scip_index(
    path: &str,
    occurrences: &[(&str, i32, i32, i32, bool)],
    types: &[(&str, &str)],
) -> Vec<u8> {
    use protobuf::Message;
    let mut document = scip::types::Document::new();
    document.relative_path = path.to_string();
    for (typed, type_symbol) in types {
        let mut relationship = scip::types::Relationship::new();
        relationship.symbol = type_symbol.to_string();
        relationship.is_type_definition = true;
        let mut information = scip::types::SymbolInformation::new();
        information.symbol = typed.to_string();
        information.relationships.push(relationship);
        document.symbols.push(information);
    }
    for (symbol, line, start, end, definition) in occurrences {
        let mut occurrence = scip::types::Occurrence::new();
        occurrence.symbol = symbol.to_string();
        occurrence.range = vec![*line, *start, *end];
        occurrence.symbol_roles = i32::from(*definition);
        document.occurrences.push(occurrence);
    }
    let mut index = scip::types::Index::new();
    index.documents.push(document);
    index.write_to_bytes().unwrap()
}

#[test]
fn a_configured_indexer_reaches_another_repository_through_the_symbols_it_shares() {
    // What a SCIP indexer names a symbol defined in another package: its moniker (scheme,
    // manager, package, version, descriptors), the same string the provider's own index
    // defines it under.
    const SQUARE: &str = "scip-fake pypi geometry 1.0 geometry.shapes/Square#";
    const LARGEST: &str = "scip-fake pypi geometry 1.0 geometry.shapes/largest().";
    const ELSEWHERE: &str = "scip-fake pypi geometry 2.0 geometry.shapes/largest().";
    const REPORT: &str = "scip-fake pypi app 0.1 app.report/report().";
    let provider = scip_index(
        "geometry/shapes.py",
        &[(SQUARE, 7, 6, 12, true), (LARGEST, 15, 4, 11, true)],
        &[],
    );
    let consumer = scip_index(
        "app/report.py",
        &[
            (SQUARE, 0, 21, 27, false),
            (LARGEST, 1, 28, 35, false),
            (REPORT, 6, 4, 10, true),
            (SQUARE, 7, 15, 21, false),
            // Another release of the provider than the registered one: not its declaration.
            (ELSEWHERE, 9, 37, 44, false),
        ],
        // What the indexer says `report` has for a type (a relationship a declaration
        // carries, never spelled at a use): an edge observed at the declaration. One to a
        // type nobody defines gives nothing.
        &[
            (REPORT, SQUARE),
            (REPORT, "scip-fake pypi builtins 3 builtins/str#"),
        ],
    );
    let scratch = tempfile::tempdir().unwrap();
    let command = fake_indexer(scratch.path(), &provider, &consumer);
    let options = AnalyzerOptions {
        scip_indexers: vec![ConfiguredIndexer {
            indexer: ScipIndexer::locate("fake", &command).unwrap(),
            languages: vec![Language::Python],
            repositories: Vec::new(),
        }],
        ..analyzers(scratch.path())
    };
    let facts = index_at(
        &exact_fixtures(),
        &["pyprovider", "pyconsumer"],
        LanguageToken::Python,
        options,
    );
    facts.validate().unwrap();
    let rows: Vec<String> = all_relations(&facts)
        .into_iter()
        .filter(|row| row.contains("app/report.py#"))
        .collect();
    assert_eq!(
        rows,
        vec![
            "IMPORTS_SYMBOL app/report.py#<module> -> geometry/shapes.py#Square EXACT_TYPECHECKED app/report.py:1",
            "IMPORTS_SYMBOL app/report.py#<module> -> geometry/shapes.py#largest EXACT_TYPECHECKED app/report.py:2",
            "IMPORTS_SYMBOL app/report.py#<module> -> geometry/units.py#area CANDIDATE app/report.py:3",
            "CALLS_DIRECT app/report.py#report -> geometry/shapes.py#Square EXACT_TYPECHECKED app/report.py:8",
            "CALLS_DIRECT app/report.py#report -> geometry/units.py#area CANDIDATE app/report.py:10",
            "CALLS_DIRECT app/report.py#report -> geometry/units.py#area CANDIDATE app/report.py:10",
            "TYPE_USES app/report.py#report -> geometry/shapes.py#Square EXACT_TYPECHECKED app/report.py:7",
        ]
    );
    assert_eq!(
        unresolved_rows(&facts),
        vec![
            "PACKAGE_PROVIDER_NOT_FOUND - missingpkg app/report.py:4",
            "PACKAGE_VERSION_MISMATCH largest geometry 2.0 app/report.py:10",
        ]
    );
}

/// A module behind a feature the configured build leaves off (`rsfeatures`' `extras`) is
/// code that build does not compile: its declarations stay in the graph (another build may
/// compile them), what it spells is no use — no edge, no hole, nothing in the census — and
/// the pass says how many files that is. An item behind a `cfg` cargo's features and the
/// target decide off loses the syntax layer's reading; one behind a cfg only a build script
/// sets keeps it. Activating the feature (`rust.features`) makes their uses exact edges.
#[test]
fn a_module_behind_an_inactive_feature_is_not_the_builds_code() {
    let fixtures = ["rsprovider", "rsfeatures"];
    let from_fixture = |facts: &FactSet| -> Vec<String> {
        all_relations(facts)
            .into_iter()
            .filter(|r| r.split(' ').nth(1).is_some_and(|s| s.starts_with("src/")))
            .collect()
    };
    let facts = index(&fixtures, LanguageToken::Rust);
    assert_eq!(
        from_fixture(&facts),
        [
            "IMPORTS_SYMBOL src/metric.rs#<module> -> core/src/shapes/square.rs#shapes::square::Square EXACT_TYPECHECKED src/metric.rs:1",
            // rust-analyzer resolves the paths of an item its build leaves out in the
            // module's scope (no inference: no method call): its answer stands. The syntax
            // layer's reading of the same item (`Circle::new` as a call) is withdrawn.
            "REFERENCES src/metric.rs#metric::circle_area -> core/src/lib.rs#Shape EXACT_TYPECHECKED src/metric.rs:11",
            "REFERENCES src/metric.rs#metric::circle_area -> core/src/shapes/circle.rs#shapes::circle::Circle EXACT_TYPECHECKED src/metric.rs:11",
            "REFERENCES src/metric.rs#metric::probed -> core/src/shapes/square.rs#shapes::square::Square EXACT_TYPECHECKED src/metric.rs:24",
            "REFERENCES src/metric.rs#metric::square_area -> core/src/lib.rs#Shape EXACT_TYPECHECKED src/metric.rs:5",
            "REFERENCES src/metric.rs#metric::square_area -> core/src/shapes/square.rs#shapes::square::Square EXACT_TYPECHECKED src/metric.rs:5",
            "REFERENCES src/metric.rs#metric::unit_side -> core/src/shapes/square.rs#shapes::square::Square EXACT_TYPECHECKED src/metric.rs:17",
            "REFERENCES src/metric.rs#metric::unit_side -> core/src/shapes/square.rs#shapes::square::Square::side EXACT_TYPECHECKED src/metric.rs:17",
            // A cfg only a build script could set is not known to be off: the syntax
            // layer's reading stays, a candidate.
            "CALLS_DIRECT src/metric.rs#metric::probed -> core/src/shapes/square.rs#shapes::square::Square::new CANDIDATE src/metric.rs:24",
            "CALLS_DIRECT src/metric.rs#metric::square_area -> core/src/shapes/square.rs#shapes::square::Square::area EXACT_TYPECHECKED src/metric.rs:5",
            "CALLS_DIRECT src/metric.rs#metric::square_area -> core/src/shapes/square.rs#shapes::square::Square::new EXACT_TYPECHECKED src/metric.rs:5",
            "CALLS_DIRECT src/metric.rs#metric::unit_side -> core/src/shapes/square.rs#shapes::square::Square::new EXACT_TYPECHECKED src/metric.rs:17",
            "TYPE_USES src/metric.rs#metric::probed -> core/src/shapes/square.rs#shapes::square::Square EXACT_TYPECHECKED src/metric.rs:23",
        ]
    );
    assert!(
        facts
            .symbols
            .iter()
            .any(|s| s.file_path == "src/extras.rs" && s.name == "circles")
    );
    let extras = facts
        .files
        .iter()
        .find(|f| f.path == "src/extras.rs")
        .unwrap();
    assert_eq!(extras.mentions, vec![]);
    // A test crate whose root is `#![cfg]`-ed off, and the module only it declares.
    assert_no_relation(&facts, |r| {
        r.split(' ').nth(1).is_some_and(|s| s.starts_with("tests/"))
    });
    assert!(
        !unresolved_rows(&facts)
            .iter()
            .any(|r| r.contains("src/extras.rs"))
    );
    let edited = Edited::new(&fixtures, LanguageToken::Rust);
    let runs = edited
        .engine
        .analyzer_runs("rsfeatures", &analyzers(edited.scratch.path()));
    assert_eq!(
        runs[0].not_built,
        [
            ".: 3 of its files no crate of the configured build compiles (a module behind an inactive feature or cfg, or one no module declares), e.g. src/extras.rs"
        ]
    );

    let scratch = tempfile::tempdir().unwrap();
    let mut options = analyzers(scratch.path());
    options.rust.as_mut().unwrap().settings.features = vec!["extras".into()];
    let facts = index_at(&exact_fixtures(), &fixtures, LanguageToken::Rust, options);
    let (extras, rest): (Vec<String>, Vec<String>) = from_fixture(&facts)
        .into_iter()
        .partition(|r| r.contains(" src/extras.rs#"));
    // `circle_area` is built now, inferred and all; `unit_side` is not: of it, only the
    // paths rust-analyzer resolves in the module's scope remain.
    assert_eq!(
        rest,
        [
            "IMPORTS_SYMBOL src/metric.rs#<module> -> core/src/shapes/square.rs#shapes::square::Square EXACT_TYPECHECKED src/metric.rs:1",
            "REFERENCES src/metric.rs#metric::circle_area -> core/src/lib.rs#Shape EXACT_TYPECHECKED src/metric.rs:11",
            "REFERENCES src/metric.rs#metric::circle_area -> core/src/shapes/circle.rs#shapes::circle::Circle EXACT_TYPECHECKED src/metric.rs:11",
            "REFERENCES src/metric.rs#metric::probed -> core/src/shapes/square.rs#shapes::square::Square EXACT_TYPECHECKED src/metric.rs:24",
            "REFERENCES src/metric.rs#metric::square_area -> core/src/lib.rs#Shape EXACT_TYPECHECKED src/metric.rs:5",
            "REFERENCES src/metric.rs#metric::square_area -> core/src/shapes/square.rs#shapes::square::Square EXACT_TYPECHECKED src/metric.rs:5",
            "REFERENCES src/metric.rs#metric::unit_side -> core/src/shapes/square.rs#shapes::square::Square EXACT_TYPECHECKED src/metric.rs:17",
            "CALLS_DIRECT src/metric.rs#metric::circle_area -> core/src/shapes/circle.rs#shapes::circle::Circle::new EXACT_TYPECHECKED src/metric.rs:11",
            "CALLS_DIRECT src/metric.rs#metric::circle_area -> core/src/store.rs#store::Circle::area EXACT_TYPECHECKED src/metric.rs:11",
            "CALLS_DIRECT src/metric.rs#metric::probed -> core/src/shapes/square.rs#shapes::square::Square::new CANDIDATE src/metric.rs:24",
            "CALLS_DIRECT src/metric.rs#metric::square_area -> core/src/shapes/square.rs#shapes::square::Square::area EXACT_TYPECHECKED src/metric.rs:5",
            "CALLS_DIRECT src/metric.rs#metric::square_area -> core/src/shapes/square.rs#shapes::square::Square::new EXACT_TYPECHECKED src/metric.rs:5",
            "TYPE_USES src/metric.rs#metric::probed -> core/src/shapes/square.rs#shapes::square::Square EXACT_TYPECHECKED src/metric.rs:23",
        ]
    );
    assert_eq!(
        extras,
        [
            "IMPORTS_SYMBOL src/extras.rs#<module> -> core/src/lib.rs#Shape EXACT_TYPECHECKED src/extras.rs:1",
            "IMPORTS_SYMBOL src/extras.rs#<module> -> core/src/lib.rs#total_area EXACT_TYPECHECKED src/extras.rs:1",
            "IMPORTS_SYMBOL src/extras.rs#<module> -> core/src/shapes/circle.rs#shapes::circle::Circle EXACT_TYPECHECKED src/extras.rs:1",
            "REFERENCES src/extras.rs#extras::circles -> core/src/shapes/circle.rs#shapes::circle::Circle EXACT_TYPECHECKED src/extras.rs:7",
            "CALLS_DIRECT src/extras.rs#extras::circles -> core/src/lib.rs#total_area EXACT_TYPECHECKED src/extras.rs:9",
            "CALLS_DIRECT src/extras.rs#extras::circles -> core/src/shapes/circle.rs#shapes::circle::Circle::new EXACT_TYPECHECKED src/extras.rs:7",
            "TYPE_USES src/extras.rs#extras::circles -> core/src/lib.rs#Shape EXACT_TYPECHECKED src/extras.rs:5",
            "TYPE_USES src/extras.rs#extras::circles -> core/src/lib.rs#Shape EXACT_TYPECHECKED src/extras.rs:7",
        ]
    );
}
