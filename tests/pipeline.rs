//! Fact sets from anywhere, through the real binary: each repository recorded on its own
//! (`index --facts-only`), merged on another configuration without the checkouts
//! (`rebuild --facts`), publishes the graph one `index --full` publishes — same digests,
//! same answers over MCP — and every bad input is refused with nothing published.

mod common;

use std::path::{Path, PathBuf};

use common::client::{Client, init};
use common::{copy_tree, fail, manifest_dir, succeed};
use serde_json::{Value, json};

const REPOSITORIES: [&str; 8] = [
    "goconsumer",
    "goprovider",
    "pyconsumer",
    "pyprovider",
    "rsconsumer",
    "rsprovider",
    "tsconsumer",
    "tsprovider",
];

/// The exact fixtures copied under `dir/src` and registered in `dir`'s configuration.
fn register(dir: &Path) -> PathBuf {
    let sources = dir.join("src");
    for name in REPOSITORIES {
        copy_tree(
            &manifest_dir().join("../../testdata/exact").join(name),
            &sources.join(name),
        );
    }
    let paths: Vec<PathBuf> = REPOSITORIES.iter().map(|n| sources.join(n)).collect();
    let repositories: Vec<(&str, &Path)> = REPOSITORIES
        .iter()
        .zip(&paths)
        .map(|(name, path)| (*name, path.as_path()))
        .collect();
    init(dir, "go,typescript,javascript,python,rust", &repositories);
    sources
}

/// The last JSON line a `--json` command printed: its `result`.
fn result(stdout: &str) -> Value {
    let line: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    line["result"].clone()
}

fn manifest(generation_path: &Value) -> Value {
    let path = Path::new(generation_path.as_str().unwrap()).join("manifest.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn record(dir: &Path, name: &str, facts: &Path) -> Value {
    let out = facts.join(format!("{name}.kgfacts"));
    result(&succeed(
        dir,
        &[
            "index",
            "--facts-only",
            "--repository",
            name,
            "--out",
            out.to_str().unwrap(),
            "--json",
        ],
    ))
}

#[test]
fn fact_sets_merged_elsewhere_publish_the_graph_of_one_index_full() {
    let indexer = tempfile::tempdir().unwrap();
    let sources = register(indexer.path());
    let full = result(&succeed(indexer.path(), &["index", "--full", "--json"]));
    let facts = indexer.path().join("facts");
    let mut paths = Vec::new();
    for name in REPOSITORIES {
        let recorded = record(indexer.path(), name, &facts);
        assert_eq!(
            (&recorded["repository"], &recorded["units"]),
            (&json!(name), &json!(1)),
            "{recorded}"
        );
        let others: Vec<&str> = REPOSITORIES
            .iter()
            .copied()
            .filter(|n| *n != name)
            .collect();
        assert_eq!(recorded["workspace"], json!(others));
        paths.push(recorded["fact_set"].as_str().unwrap().to_string());
    }
    // Recording publishes nothing.
    assert_eq!(
        std::fs::read_to_string(indexer.path().join("state/CURRENT"))
            .unwrap()
            .trim(),
        "000001"
    );
    // The merging machine has its own configuration, no repository and no checkout.
    let merger = tempfile::tempdir().unwrap();
    init(merger.path(), "go", &[]);
    let away = indexer.path().join("src.away");
    std::fs::rename(&sources, &away).unwrap();
    let mut args = vec!["rebuild", "--json", "--facts"];
    args.extend(paths.iter().map(String::as_str));
    let merged = result(&succeed(merger.path(), &args));
    std::fs::rename(&away, &sources).unwrap();
    assert_eq!(merged["generation_id"], "000001");
    assert_eq!(merged["counts"], full["counts"]);
    let (full_manifest, merged_manifest) = (
        manifest(&full["generation_path"]),
        manifest(&merged["generation_path"]),
    );
    assert_eq!(merged_manifest["digests"], full_manifest["digests"]);
    assert_eq!(merged["digests"], full_manifest["digests"]);
    for fact_set in merged["fact_sets"].as_array().unwrap() {
        assert_eq!(fact_set["missing_from_merge"], json!([]), "{fact_set}");
    }
    // The canonical database holds the same graph.
    let tables = |manifest: &Value| {
        let mut graph = manifest["graph"].clone();
        // Sizes and digests are the file's layout, which bulk loads in another order vary.
        for field in ["digest", "bytes", "whole_bytes"] {
            graph.as_object_mut().unwrap().remove(field);
        }
        graph
    };
    assert_eq!(tables(&merged_manifest), tables(&full_manifest));
    // Both servers answer alike, analyzers' exact edges across repositories included.
    let mut from_index = Client::start(indexer.path());
    let mut from_merge = Client::start(merger.path());
    let questions = [
        (
            "find_cross_repo_consumers",
            json!({"qualified_name": "Open", "repository": "goprovider"}),
        ),
        (
            "find_cross_repo_consumers",
            json!({"qualified_name": "Total", "repository": "goprovider", "view": "full"}),
        ),
        (
            "find_references",
            json!({"qualified_name": "Shape", "repository": "goprovider"}),
        ),
        ("find_symbol", json!({"name": "Circle"})),
        ("graph_status", json!({})),
    ];
    for (tool, arguments) in questions {
        // How old each snapshot is differs, and says nothing of the graph.
        let ask = |client: &mut Client| {
            let mut answer = client.ok(tool, arguments.clone());
            answer.as_object_mut().unwrap().remove("snapshot_age_ms");
            answer
        };
        let (expected, actual) = (ask(&mut from_index), ask(&mut from_merge));
        if tool == "graph_status" {
            for field in [
                "repositories",
                "files",
                "symbols",
                "edges_by_kind",
                "unresolved_by_reason",
            ] {
                let value = &actual["results"][field];
                assert!(!value.is_null(), "graph_status has no {field}: {actual}");
                assert_eq!(value, &expected["results"][field], "{field}");
            }
        } else {
            assert_eq!(actual, expected, "{tool} {arguments}");
        }
    }
    let open = from_merge.ok(
        "find_cross_repo_consumers",
        json!({"qualified_name": "Open", "repository": "goprovider"}),
    );
    assert_eq!(open["results"]["confidence"], "EXACT_TYPECHECKED", "{open}");
    assert_eq!(
        open["results"]["consumers"][0]["repo"], "goconsumer",
        "{open}"
    );
}

#[test]
fn bad_fact_sets_are_refused_and_nothing_is_published() {
    let indexer = tempfile::tempdir().unwrap();
    register(indexer.path());
    let facts = indexer.path().join("facts");
    // Without its analyzers: what is refused does not depend on them.
    let consumer = record(indexer.path(), "goconsumer", &facts);
    let consumer = consumer["fact_set"].as_str().unwrap().to_string();
    assert!(
        fail(
            indexer.path(),
            &[
                "index",
                "--facts-only",
                "--repository",
                "nowhere",
                "--out",
                "x.kgfacts"
            ]
        )
        .contains("repository \"nowhere\" is not registered")
    );
    assert!(
        fail(
            indexer.path(),
            &["index", "--facts-only", "--out", "x.kgfacts"]
        )
        .contains("--repository")
    );
    let merger = tempfile::tempdir().unwrap();
    init(merger.path(), "go", &[]);
    let damaged = merger.path().join("damaged.kgfacts");
    let mut bytes = std::fs::read(&consumer).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&damaged, bytes).unwrap();
    let foreign = merger.path().join("foreign.kgfacts");
    std::fs::write(&foreign, "{\"repository\": \"goconsumer\"}\n").unwrap();
    let refusals = [
        (
            vec![damaged.to_str().unwrap()],
            "damaged (its body does not match its digest)",
        ),
        (vec![foreign.to_str().unwrap()], "not a fact set"),
        (
            vec!["missing.kgfacts"],
            "fact set missing.kgfacts: cannot be read",
        ),
        (
            vec![consumer.as_str(), consumer.as_str()],
            "two fact sets hold repository \"goconsumer\"",
        ),
    ];
    for (paths, says) in refusals {
        let mut args = vec!["rebuild", "--facts"];
        args.extend(paths);
        let stderr = fail(merger.path(), &args);
        assert!(stderr.contains(says), "{stderr}");
    }
    assert!(!merger.path().join("state/CURRENT").exists());
    // A consumer merged without its provider is published, and the report says what its
    // analyzers saw that the merge lacks.
    let merged = result(&succeed(
        merger.path(),
        &["rebuild", "--json", "--facts", &consumer],
    ));
    let missing = &merged["fact_sets"][0]["missing_from_merge"];
    assert!(
        missing.as_array().unwrap().contains(&json!("goprovider")),
        "{merged}"
    );
    assert_eq!(merged["counts"]["repositories"], 1);
}
