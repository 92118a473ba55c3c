//! Cross-repository TypeScript/JavaScript on the layouts users have (`testdata/npm`, built
//! by the real compiler and installed by npm and pnpm, see its `regenerate.sh`): a provider
//! with `src/` and a built `dist/`, consumers reaching it through a pnpm store outside
//! their repository, a plain `node_modules` copy, a workspace link, another version, a
//! drifted artifact, an artifact no map or build ties to a source, a package two
//! repositories claim, barrels across repositories, JavaScript consumers. Every edge and
//! every unresolved row, exactly.

mod support;

use std::path::PathBuf;

use kivgraph_config::LanguageToken;
use kivgraph_facts::{EdgeKind, FactSet};
use support::{evidence_of, index_at, installed_analyzers};

fn npm_fixtures() -> PathBuf {
    support::manifest_dir().join("../../testdata/npm")
}

const REPOSITORIES: [&str; 11] = [
    "values", "nomap", "bare", "twina", "twinb", "facade", "apppnpm", "appnpm", "appold",
    "applink", "appjs",
];

fn index() -> FactSet {
    let scratch = tempfile::tempdir().unwrap();
    index_at(
        &npm_fixtures(),
        &REPOSITORIES,
        LanguageToken::Typescript,
        installed_analyzers(scratch.path()),
    )
}

/// `KIND repo:path#holder -> repo:path#target CONFIDENCE PROVENANCE repo:path:line` for every
/// reference edge, sorted.
fn references(facts: &FactSet) -> Vec<String> {
    let name = |key| match facts.symbols.iter().find(|s| s.key == key) {
        Some(s) => format!("{}:{}#{}", s.repository, s.file_path, s.qualified_name),
        None => {
            let file = facts.files.iter().find(|f| f.key == key).unwrap();
            format!("{}:{}#<module>", file.repository, file.path)
        }
    };
    let mut rows: Vec<String> = facts
        .edges
        .iter()
        .filter(|e| e.kind.is_reference() || e.kind == EdgeKind::Overrides)
        .map(|e| {
            let evidence = evidence_of(facts, e);
            format!(
                "{} {} -> {} {} {} {}:{}:{}",
                e.kind,
                name(e.source),
                name(e.target),
                e.confidence,
                e.provenance,
                evidence.repository,
                evidence.file_path,
                evidence.span.start_line
            )
        })
        .collect();
    rows.sort();
    rows
}

/// `REASON symbol package repo:path:line: detail` per unresolved row, sorted.
fn unresolved(facts: &FactSet) -> Vec<String> {
    let mut rows: Vec<String> = facts
        .unresolved
        .iter()
        .map(|u| {
            format!(
                "{} {} {} {}:{}:{}: {}",
                u.reason,
                u.requested_symbol.as_deref().unwrap_or("-"),
                u.requested_package.as_deref().unwrap_or("-"),
                u.repository,
                u.file_path.as_deref().unwrap_or("-"),
                u.span.map_or(0, |s| s.start_line),
                u.detail
            )
        })
        .collect();
    rows.sort();
    rows
}

#[test]
fn uses_of_built_and_installed_artifacts_land_on_the_registered_source() {
    let facts = index();
    facts.validate().unwrap();
    // Build output is not source: each provider's declarations are its `src/` alone.
    let mut declared: Vec<String> = facts
        .symbols
        .iter()
        .filter(|s| s.parent.is_none())
        .map(|s| format!("{}:{}#{}", s.repository, s.file_path, s.qualified_name))
        .collect();
    declared.sort();
    assert_eq!(
        declared,
        [
            "appjs:src/main.js#twice",
            "applink:src/linked.ts#linked",
            "appnpm:src/main.ts#main",
            "appold:src/main.ts#legacy",
            "apppnpm:src/app.ts#run",
            "bare:src/index.ts#bare",
            "nomap:src/parts.ts#part",
            "twina:index.ts#twin",
            "twinb:index.ts#twin",
            "values:src/value.ts#Box",
            "values:src/value.ts#compute",
            "values:src/value.ts#resize",
        ]
    );
    assert_eq!(
        references(&facts),
        [
            // A CommonJS `require` of the installed copy, through its declaration map.
            "CALLS_DIRECT appjs:src/legacy.cjs#<module> -> values:src/value.ts#Box.constructor EXACT_TYPECHECKED TYPESCRIPT_CHECKER appjs:src/legacy.cjs:4",
            "CALLS_DIRECT appjs:src/legacy.cjs#<module> -> values:src/value.ts#Box.open EXACT_TYPECHECKED TYPESCRIPT_CHECKER appjs:src/legacy.cjs:4",
            "CALLS_DIRECT appjs:src/main.js#twice -> values:src/value.ts#compute EXACT_TYPECHECKED TYPESCRIPT_CHECKER appjs:src/main.js:4",
            // A workspace link: the registered directory's own dist/ and its maps.
            "CALLS_DIRECT applink:src/linked.ts#linked -> values:src/value.ts#Box.constructor EXACT_TYPECHECKED TYPESCRIPT_CHECKER applink:src/linked.ts:4",
            "CALLS_DIRECT applink:src/linked.ts#linked -> values:src/value.ts#Box.open EXACT_TYPECHECKED TYPESCRIPT_CHECKER applink:src/linked.ts:4",
            "CALLS_DIRECT applink:src/linked.ts#linked -> values:src/value.ts#resize EXACT_TYPECHECKED TYPESCRIPT_CHECKER applink:src/linked.ts:4",
            // No map: the provider's tsconfig says dist/ is emitted from src/.
            "CALLS_DIRECT appnpm:src/main.ts#main -> nomap:src/parts.ts#part EXACT_PACKAGE_MAPPED TYPESCRIPT_PROJECT_REFERENCE appnpm:src/main.ts:8",
            "CALLS_DIRECT appnpm:src/main.ts#main -> values:src/value.ts#compute EXACT_TYPECHECKED TYPESCRIPT_CHECKER appnpm:src/main.ts:8",
            // A pnpm store outside the consumer: `compute`, the renamed `calc`, and
            // `facadeCompute` through another repository's barrel.
            "CALLS_DIRECT apppnpm:src/app.ts#run -> values:src/value.ts#Box.constructor EXACT_TYPECHECKED TYPESCRIPT_CHECKER apppnpm:src/app.ts:5",
            "CALLS_DIRECT apppnpm:src/app.ts#run -> values:src/value.ts#Box.open EXACT_TYPECHECKED TYPESCRIPT_CHECKER apppnpm:src/app.ts:7",
            "CALLS_DIRECT apppnpm:src/app.ts#run -> values:src/value.ts#compute EXACT_TYPECHECKED TYPESCRIPT_CHECKER apppnpm:src/app.ts:7",
            "CALLS_DIRECT apppnpm:src/app.ts#run -> values:src/value.ts#compute EXACT_TYPECHECKED TYPESCRIPT_CHECKER apppnpm:src/app.ts:7",
            "CALLS_DIRECT apppnpm:src/app.ts#run -> values:src/value.ts#compute EXACT_TYPECHECKED TYPESCRIPT_CHECKER apppnpm:src/app.ts:7",
            "IMPORTS_SYMBOL appjs:src/main.js#<module> -> values:src/value.ts#compute EXACT_TYPECHECKED TYPESCRIPT_CHECKER appjs:src/main.js:1",
            "IMPORTS_SYMBOL applink:src/linked.ts#<module> -> values:src/value.ts#Box EXACT_TYPECHECKED TYPESCRIPT_CHECKER applink:src/linked.ts:1",
            "IMPORTS_SYMBOL applink:src/linked.ts#<module> -> values:src/value.ts#resize EXACT_TYPECHECKED TYPESCRIPT_CHECKER applink:src/linked.ts:1",
            "IMPORTS_SYMBOL appnpm:src/main.ts#<module> -> nomap:src/parts.ts#part EXACT_PACKAGE_MAPPED TYPESCRIPT_PROJECT_REFERENCE appnpm:src/main.ts:2",
            "IMPORTS_SYMBOL appnpm:src/main.ts#<module> -> values:src/value.ts#compute EXACT_TYPECHECKED TYPESCRIPT_CHECKER appnpm:src/main.ts:1",
            "IMPORTS_SYMBOL apppnpm:src/app.ts#<module> -> values:src/value.ts#Box EXACT_TYPECHECKED TYPESCRIPT_CHECKER apppnpm:src/app.ts:1",
            "IMPORTS_SYMBOL apppnpm:src/app.ts#<module> -> values:src/value.ts#compute EXACT_TYPECHECKED TYPESCRIPT_CHECKER apppnpm:src/app.ts:1",
            "IMPORTS_SYMBOL apppnpm:src/app.ts#<module> -> values:src/value.ts#compute EXACT_TYPECHECKED TYPESCRIPT_CHECKER apppnpm:src/app.ts:1",
            "IMPORTS_SYMBOL apppnpm:src/app.ts#<module> -> values:src/value.ts#compute EXACT_TYPECHECKED TYPESCRIPT_CHECKER apppnpm:src/app.ts:2",
            // The barrel of another repository renames what it passes on.
            "REEXPORTS facade:src/index.ts#<module> -> values:src/value.ts#Box EXACT_TYPECHECKED TYPESCRIPT_CHECKER facade:src/index.ts:2",
            "REEXPORTS facade:src/index.ts#<module> -> values:src/value.ts#compute EXACT_TYPECHECKED TYPESCRIPT_CHECKER facade:src/index.ts:2",
            "REEXPORTS values:src/index.ts#<module> -> values:src/value.ts#compute EXACT_TYPECHECKED TYPESCRIPT_CHECKER values:src/index.ts:2",
            "REFERENCES appjs:src/legacy.cjs#<module> -> values:src/value.ts#Box EXACT_TYPECHECKED TYPESCRIPT_CHECKER appjs:src/legacy.cjs:1",
        ]
    );
    // Declared, never guessed; `helper`, which the checker bound into the unregistered
    // package installed beside @fx/values, is neither an edge nor a failure of @fx/values.
    assert_eq!(
        unresolved(&facts),
        [
            "AMBIGUOUS_PACKAGE_PROVIDER twin @fx/twin appnpm:src/main.ts:4: 2 registered packages are named @fx/twin; none is chosen",
            "AMBIGUOUS_PACKAGE_PROVIDER twin @fx/twin appnpm:src/main.ts:8: 2 registered packages are named @fx/twin; none is chosen",
            "DECLARATION_SOURCE_NOT_MAPPED bare @fx/bare appnpm:src/main.ts:3: @fx/bare 1.0.0 dist/index.d.ts has no declaration map, and no build configuration of bare emits it from a source",
            "DECLARATION_SOURCE_NOT_MAPPED bare @fx/bare appnpm:src/main.ts:8: @fx/bare 1.0.0 dist/index.d.ts has no declaration map, and no build configuration of bare emits it from a source",
            "EXPORT_NOT_FOUND scale @fx/values appnpm:src/main.ts:1: src/value.ts of values exports no `scale`, directly or through its re-exports; @fx/values 2.0.0 dist/value.d.ts declares it",
            "EXPORT_NOT_FOUND scale @fx/values appnpm:src/main.ts:8: src/value.ts of values exports no `scale`, directly or through its re-exports; @fx/values 2.0.0 dist/value.d.ts declares it",
            "PACKAGE_VERSION_MISMATCH compute @fx/values appold:src/main.ts:1: the consumer requires @fx/values ^1.0.0; the registered source is @fx/values 2.0.0",
            "PACKAGE_VERSION_MISMATCH compute @fx/values appold:src/main.ts:4: the consumer requires @fx/values ^1.0.0; the registered source is @fx/values 2.0.0",
            "PACKAGE_VERSION_MISMATCH scale @fx/values appold:src/main.ts:1: the consumer requires @fx/values ^1.0.0; the registered source is @fx/values 2.0.0",
            "PACKAGE_VERSION_MISMATCH scale @fx/values appold:src/main.ts:4: the consumer requires @fx/values ^1.0.0; the registered source is @fx/values 2.0.0",
        ]
    );
}

/// Without an exact analyzer, an import of a registered package whose entry is build output
/// (`types: ./dist/index.d.ts`) reaches the source its build emits it from: a candidate, as
/// every binding through a package name is for the syntax layer.
#[test]
fn the_syntax_layer_reaches_the_source_behind_a_built_entry() {
    let facts = index_at(
        &npm_fixtures(),
        &["values", "nomap", "appnpm"],
        LanguageToken::Typescript,
        kivgraph_engine::AnalyzerOptions::default(),
    );
    let rows: Vec<String> = references(&facts)
        .into_iter()
        .filter(|row| row.starts_with("IMPORTS_SYMBOL appnpm"))
        .collect();
    assert_eq!(
        rows,
        [
            "IMPORTS_SYMBOL appnpm:src/main.ts#<module> -> nomap:src/parts.ts#part CANDIDATE TREE_SITTER_SYNTAX appnpm:src/main.ts:2",
            "IMPORTS_SYMBOL appnpm:src/main.ts#<module> -> values:src/value.ts#compute CANDIDATE TREE_SITTER_SYNTAX appnpm:src/main.ts:1",
        ]
    );
}

/// A provider that ships its sources and maps but no build configuration (as effect's
/// packages do): the syntax layer reaches the source its `dist/` maps name.
#[test]
fn the_syntax_layer_reaches_the_source_a_built_entry_maps_to() {
    let root = tempfile::tempdir().unwrap();
    for fixture in ["values", "appnpm"] {
        let copied = std::process::Command::new("cp")
            .arg("-r")
            .arg(npm_fixtures().join(fixture))
            .arg(root.path())
            .status()
            .unwrap();
        assert!(copied.success());
    }
    std::fs::remove_file(root.path().join("values/tsconfig.json")).unwrap();
    let facts = index_at(
        root.path(),
        &["values", "appnpm"],
        LanguageToken::Typescript,
        kivgraph_engine::AnalyzerOptions::default(),
    );
    let rows: Vec<String> = references(&facts)
        .into_iter()
        .filter(|row| row.starts_with("IMPORTS_SYMBOL appnpm"))
        .collect();
    assert_eq!(
        rows,
        [
            "IMPORTS_SYMBOL appnpm:src/main.ts#<module> -> values:src/value.ts#compute CANDIDATE TREE_SITTER_SYNTAX appnpm:src/main.ts:1"
        ]
    );
}
