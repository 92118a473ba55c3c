//! Accuracy across repositories on npm packages laid out as users have them
//! (`benchmarks/crossrepo`): clusters of packages that ship their TypeScript sources and
//! import each other, each unpacked from the registry as its own repository with its
//! dependencies installed by npm or pnpm (`benchmarks/fetch-crossrepo.sh`), so a consumer
//! reaches its provider through its `node_modules` — built declarations, maps, stores. The
//! questions' ground truth is the TypeScript language service's `findReferences` over the
//! combined workspace (`benchmarks/crossrepo/truth.mjs`), checked by reading.
//!
//! Each binary given is scored on the same questions in one run (this build, and with
//! `--before` the build before the change), next to grep over the checkouts:
//!
//! ```text
//! benchmarks/fetch-crossrepo.sh
//! $CARGO_TARGET_DIR/release/kivgraph-bench crossrepo --kivgraph $CARGO_TARGET_DIR/release/kivgraph [--before OLD_BIN]
//! ```

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{Context, bail};
use kivgraph_config::{LanguageToken, RepositoryEntry};
use serde_json::{Value, json};

use crate::accuracy::{Checkouts, Question, score};
use crate::client::McpClient;
use crate::{Analyzers, corpus_dir, flag, run_index, write_config};

fn benchmark_file(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../crossrepo")
        .join(name)
}

/// Every package of every cluster, as registered repositories.
fn repositories(corpus: &std::path::Path) -> anyhow::Result<Vec<RepositoryEntry>> {
    let clusters: Value =
        serde_json::from_str(&std::fs::read_to_string(benchmark_file("clusters.json"))?)?;
    let mut entries = Vec::new();
    for package in clusters["clusters"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|c| c["packages"].as_array().into_iter().flatten())
    {
        let name = package["repository"]
            .as_str()
            .context("a package names its repository")?;
        let path = corpus.join(name);
        if !path.join(".installed").exists() {
            bail!(
                "{} is missing: run benchmarks/fetch-crossrepo.sh first",
                path.display()
            );
        }
        entries.push(RepositoryEntry {
            name: name.to_string(),
            path,
            languages: vec![LanguageToken::Typescript],
            manifests: vec![],
            roots: vec![],
            exclusions: vec![],
        });
    }
    Ok(entries)
}

/// Per question class: precision of the files answered, recall of the truth, the misses no
/// completeness block accounts for, the COMPLETE verdicts that missed a file, and grep's
/// precision and recall over the same questions.
fn by_family(report: &Value) -> Value {
    #[derive(Default)]
    struct Tally {
        questions: u64,
        answered: u64,
        right: u64,
        truth: u64,
        found: u64,
        unaccounted: u64,
        complete_with_misses: u64,
        grep_files: u64,
        grep_right: u64,
    }
    let mut families: BTreeMap<String, Tally> = BTreeMap::new();
    for row in report["questions"].as_array().into_iter().flatten() {
        let number = |key: &str| row[key].as_u64().unwrap_or(0);
        let length = |key: &str| row[key].as_array().map_or(0, Vec::len) as u64;
        for family in [row["class"].as_str().unwrap_or("?"), "all"] {
            let tally = families.entry(family.to_string()).or_default();
            tally.questions += 1;
            tally.answered += number("answered_files");
            tally.right += number("answered_files") - length("wrong");
            tally.truth += number("truth_files");
            tally.found += number("found");
            tally.unaccounted += length("missed_unaccounted");
            tally.complete_with_misses +=
                u64::from(row["verdict"] == "COMPLETE" && number("found") < number("truth_files"));
            tally.grep_files += number("grep_files");
            tally.grep_right += number("grep_right");
        }
    }
    let ratio = |a: u64, b: u64| {
        if b == 0 {
            Value::Null
        } else {
            json!((a as f64 / b as f64 * 1000.0).round() / 1000.0)
        }
    };
    families
        .into_iter()
        .map(|(family, t)| {
            (
                family,
                json!({
                    "questions": t.questions,
                    "precision": ratio(t.right, t.answered), "answered_files": t.answered,
                    "recall": ratio(t.found, t.truth), "truth_files": t.truth, "found": t.found,
                    "misses_unaccounted": t.unaccounted,
                    "complete_verdicts_that_missed_a_file": t.complete_with_misses,
                    "grep_precision": ratio(t.grep_right, t.grep_files),
                    "grep_recall": ratio(t.grep_right, t.truth),
                }),
            )
        })
        .collect::<serde_json::Map<String, Value>>()
        .into()
}

pub fn crossrepo_benchmark(args: &[String]) -> anyhow::Result<()> {
    let kivgraph = PathBuf::from(flag(args, "--kivgraph").context("--kivgraph BIN is required")?);
    let corpus = corpus_dir(args).join("crossrepo");
    let entries = repositories(&corpus)?;
    let questions: Vec<Question> =
        serde_json::from_str(&std::fs::read_to_string(benchmark_file("questions.json"))?)?;
    let checkouts: Checkouts = entries
        .iter()
        .map(|e| (e.name.clone(), e.path.clone()))
        .collect();
    let mut binaries = vec![("this_build", kivgraph)];
    if let Some(before) = flag(args, "--before") {
        binaries.push(("before", PathBuf::from(before)));
    }
    let work = flag(args, "--work").map(PathBuf::from).unwrap_or_else(|| {
        std::env::temp_dir().join(format!("kivgraph-crossrepo-{}", std::process::id()))
    });
    let mut reports = serde_json::Map::new();
    for (label, binary) in binaries {
        let dir = work.join(label);
        std::fs::create_dir_all(&dir)?;
        let config = write_config(&dir, &entries, "on")?;
        let (seconds, result) = run_index(&binary, &config, Analyzers::Installed)?;
        eprintln!(
            "crossrepo: {label}: {} repositories indexed in {seconds:.1} s",
            entries.len()
        );
        let mut client = McpClient::start(&binary, &config)?;
        let report = score(&mut client, &checkouts, &questions, None)?;
        reports.insert(
            label.to_string(),
            json!({"index_seconds": (seconds * 10.0).round() / 10.0, "counts": result["counts"],
                   "by_family": by_family(&report), "report": report}),
        );
    }
    if flag(args, "--work").is_none() {
        let _ = std::fs::remove_dir_all(&work);
    }
    println!("{}", serde_json::to_string_pretty(&Value::Object(reports))?);
    Ok(())
}
