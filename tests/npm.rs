//! Cross-repository answers on the npm layouts users have (`testdata/npm`: providers built
//! by the real compiler, consumers installed by npm and pnpm), through the real binary and
//! its MCP server: one declaration per function whatever its build emitted, consumers at
//! symbol level through every layout, the failures named in `completeness`, and no
//! `COMPLETE` over a file that spells a subject's name where no use was bound.

#[path = "common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};

use common::client::{Client, index_with, init};
use serde_json::{Value, json};

const REPOSITORIES: [&str; 12] = [
    "values", "nomap", "bare", "twina", "twinb", "facade", "apppnpm", "appnpm", "appold",
    "applink", "appjs", "notes",
];

fn npm_fixtures() -> PathBuf {
    common::manifest_dir()
        .join("../../testdata/npm")
        .canonicalize()
        .unwrap()
}

fn indexed() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = npm_fixtures();
    let paths: Vec<PathBuf> = REPOSITORIES.iter().map(|r| root.join(r)).collect();
    let repositories: Vec<(&str, &Path)> = REPOSITORIES
        .iter()
        .zip(&paths)
        .map(|(name, path)| (*name, path.as_path()))
        .collect();
    init(dir.path(), "typescript", &repositories);
    index_with(dir.path(), true);
    dir
}

#[test]
fn consumers_are_found_at_symbol_level_through_every_layout() {
    let dir = indexed();
    let mut client = Client::start(dir.path());
    // One declaration: dist/value.js and dist/value.d.ts are the build's, not the source's.
    let found = client.ok("find_symbol", json!({"name": "compute"}));
    assert_eq!(
        found["results"]["symbols"],
        json!([{"at": "src/value.ts:2", "end": 4, "sig": "function compute(x: number): number"}]),
        "{found}"
    );
    // Through the pnpm store, a plain copy, a CommonJS require and another repository's
    // barrel; the consumer pinned to 1.0.0 is a declared failure, named in completeness.
    let consumers = client.ok(
        "find_cross_repo_consumers",
        json!({"qualified_name": "compute", "repository": "values", "view": "full"}),
    );
    let rows: Vec<String> = consumers["results"]["consumers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            format!(
                "{} {} {}:{} {}",
                row["category"].as_str().unwrap(),
                row["edge_kind"]
                    .as_str()
                    .or(row["reason"].as_str())
                    .unwrap_or(""),
                row["repository"].as_str().unwrap(),
                row["file_path"].as_str().unwrap_or(""),
                row["confidence"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            "exact_symbol IMPORTS_SYMBOL appjs:src/main.js EXACT_TYPECHECKED",
            "exact_symbol CALLS_DIRECT appjs:src/main.js EXACT_TYPECHECKED",
            "exact_symbol IMPORTS_SYMBOL appnpm:src/main.ts EXACT_TYPECHECKED",
            "exact_symbol CALLS_DIRECT appnpm:src/main.ts EXACT_TYPECHECKED",
            "exact_symbol IMPORTS_SYMBOL apppnpm:src/app.ts EXACT_TYPECHECKED",
            "exact_symbol IMPORTS_SYMBOL apppnpm:src/app.ts EXACT_TYPECHECKED",
            "exact_symbol IMPORTS_SYMBOL apppnpm:src/app.ts EXACT_TYPECHECKED",
            "exact_symbol CALLS_DIRECT apppnpm:src/app.ts EXACT_TYPECHECKED",
            "exact_symbol CALLS_DIRECT apppnpm:src/app.ts EXACT_TYPECHECKED",
            "exact_symbol CALLS_DIRECT apppnpm:src/app.ts EXACT_TYPECHECKED",
            "exact_symbol REEXPORTS facade:src/index.ts EXACT_TYPECHECKED",
            // Depends on the package, uses none of it named `compute`.
            "package PACKAGE_DEPENDS_ON applink:src/linked.ts CANDIDATE",
            "package PACKAGE_DEPENDS_ON applink:src/linked.ts CANDIDATE",
            "package PACKAGE_DEPENDS_ON appold:src/main.ts CANDIDATE",
            "package PACKAGE_DEPENDS_ON appold:src/main.ts CANDIDATE",
            "unresolved PACKAGE_VERSION_MISMATCH appold:src/main.ts ",
            "unresolved PACKAGE_VERSION_MISMATCH appold:src/main.ts ",
        ],
        "{consumers}"
    );
    let package_rows: Vec<&Value> = consumers["results"]["consumers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|row| row["category"] == "package")
        .collect();
    assert_eq!(
        package_rows[0]["detail"],
        "every spelling of this symbol's name in it is accounted for, none as a use of it: it depends on the package only"
    );
    assert_eq!(
        package_rows[2]["detail"],
        "its uses of this symbol did not resolve: see its unresolved rows"
    );
    assert_eq!(
        consumers["completeness"]["blind_spots"][0],
        json!({"reason": "PACKAGE_VERSION_MISMATCH", "repository": "appold", "path": "src/main.ts", "line": 1,
               "requested_symbol": "compute", "requested_package": "@fx/values",
               "detail": "the consumer requires @fx/values ^1.0.0; the registered source is @fx/values 2.0.0"})
    );
    assert_eq!(consumers["completeness"]["verdict"], "LOWER_BOUND");
    assert_eq!(consumers["completeness"].get("unbound_uses"), None);
    // No map: the provider's build configuration ties the artifact to its source. `notes`
    // spells `part` where nothing binds it, but cannot import the package: no floor.
    let part = client.ok(
        "find_references",
        json!({"qualified_name": "part", "repository": "nomap"}),
    );
    assert_eq!(
        (
            part["total"].clone(),
            part["results"]["confidence"].clone(),
            part["results"]["provenance"].clone(),
            part["completeness"].clone()
        ),
        (
            json!(2),
            json!("EXACT_PACKAGE_MAPPED"),
            json!("TYPESCRIPT_PROJECT_REFERENCE"),
            json!({"verdict": "COMPLETE"})
        )
    );
    // An artifact nothing ties to a source, and a name two repositories claim: no edge,
    // a failure each, and a floor.
    for (name, repository, reason) in [
        ("bare", "bare", "DECLARATION_SOURCE_NOT_MAPPED"),
        ("twin", "twina", "AMBIGUOUS_PACKAGE_PROVIDER"),
    ] {
        let answer = client.ok(
            "find_references",
            json!({"qualified_name": name, "repository": repository}),
        );
        assert_eq!(answer["total"], 0, "{answer}");
        assert_eq!(answer["completeness"]["verdict"], "LOWER_BOUND", "{answer}");
        assert_eq!(
            answer["completeness"]["blind_spots"][0]["reason"], reason,
            "{answer}"
        );
    }
    // What the pass treated as build output, and why.
    let repositories = client.ok("list_repositories", json!({}));
    let values = repositories["results"]["repositories"]
        .as_array()
        .or(repositories["results"].as_array())
        .unwrap()
        .iter()
        .find(|r| r["name"] == "values")
        .cloned()
        .unwrap();
    assert_eq!(
        values["build_output"],
        json!([{"path": "dist", "reason": "COMPILER_OUTPUT", "files": 4, "detail": "emitted by tsconfig.json from src/"}])
    );
    let status = client.ok("graph_status", json!({}));
    assert_eq!(
        status["results"]["unresolved_by_reason"],
        json!([
            {"key": "AMBIGUOUS_PACKAGE_PROVIDER", "count": 2},
            {"key": "DECLARATION_SOURCE_NOT_MAPPED", "count": 2},
            {"key": "EXPORT_NOT_FOUND", "count": 2},
            {"key": "PACKAGE_VERSION_MISMATCH", "count": 4},
        ])
    );
}

/// `text` without its comments (what a census counts is code).
fn code_of(text: &str) -> String {
    let mut code = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("//").into_iter().chain(rest.find("/*")).min() {
        code.push_str(&rest[..at]);
        let end = if rest[at..].starts_with("//") {
            rest[at..].find('\n').map_or(rest.len(), |e| at + e)
        } else {
            rest[at..].find("*/").map_or(rest.len(), |e| at + e + 2)
        };
        rest = &rest[end..];
    }
    code.push_str(rest);
    code
}

/// The files of the registered consumers that import `package` and spell `name` as a word
/// in their code, as a `\bname\b` search over them without comments finds them.
fn spelling_importers(root: &Path, package: &str, name: &str) -> Vec<String> {
    let word = |text: &str| {
        text.match_indices(name).any(|(at, _)| {
            let before = text[..at].chars().next_back();
            let after = text[at + name.len()..].chars().next();
            let boundary = |c: Option<char>| !c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            boundary(before) && boundary(after)
        })
    };
    let mut files = Vec::new();
    for repository in REPOSITORIES {
        let source = root.join(repository).join("src");
        for entry in std::fs::read_dir(&source).into_iter().flatten().flatten() {
            let text = code_of(&std::fs::read_to_string(entry.path()).unwrap_or_default());
            if text.contains(&format!("\"{package}\"")) && word(&text) {
                files.push(format!(
                    "{repository}:src/{}",
                    entry.file_name().to_string_lossy()
                ));
            }
        }
    }
    files.sort();
    files
}

/// The census, held to account: for every declaration of every provider, an answer that
/// says `COMPLETE` lists every consumer file that imports the provider's package and
/// spells the declaration's name.
#[test]
fn no_complete_answer_over_an_unbound_spelling() {
    let dir = indexed();
    let mut client = Client::start(dir.path());
    let root = npm_fixtures();
    let providers = [
        (
            "values",
            "@fx/values",
            "src/value.ts",
            &["compute", "resize", "Box", "Box.open"][..],
        ),
        ("nomap", "@fx/nomap", "src/parts.ts", &["part"][..]),
        ("bare", "@fx/bare", "src/index.ts", &["bare"][..]),
        ("twina", "@fx/twin", "index.ts", &["twin"][..]),
    ];
    let mut checked = 0;
    for (repository, package, path, names) in providers {
        for qualified in names {
            let name = qualified.rsplit('.').next().unwrap();
            for tool in ["find_references", "find_cross_repo_consumers"] {
                let answer = client.ok(
                    tool,
                    json!({"qualified_name": qualified, "repository": repository, "path": path, "view": "full"}),
                );
                if answer["completeness"]["verdict"] != "COMPLETE" {
                    continue;
                }
                checked += 1;
                let rows = answer["results"]["consumers"]
                    .as_array()
                    .or(answer["results"]["references"].as_array())
                    .cloned()
                    .unwrap_or_default();
                let listed: Vec<String> = rows
                    .iter()
                    .filter_map(|row| {
                        Some(format!(
                            "{}:{}",
                            row["repository"].as_str()?,
                            row["file_path"].as_str()?
                        ))
                    })
                    .collect();
                for file in spelling_importers(&root, package, name) {
                    assert!(
                        listed.contains(&file),
                        "{tool} {qualified}: COMPLETE without {file}: {answer}"
                    );
                }
            }
        }
    }
    assert!(checked >= 6, "only {checked} answers were COMPLETE");
}
