//! Accuracy across repositories on registry code laid out as users have it
//! (`benchmarks/crossrepo/LANGUAGE`): clusters of packages that import each other, each
//! unpacked from its registry as its own repository with its dependencies installed the way
//! its ecosystem installs them (`benchmarks/fetch-crossrepo.sh`):
//!
//! - `typescript`: npm packages that ship their sources, installed by npm or pnpm, so a
//!   consumer reaches its provider through its `node_modules` — built declarations, maps,
//!   stores. Truth: the TypeScript language service's `findReferences` over the combined
//!   workspace (`typescript/truth.mjs`).
//! - `go`: Debian's golang-*-dev modules, each consumer's `go.mod` requiring versions other
//!   than the registered ones. Truth: go/types over one `go.work` using every registered
//!   module (`go/truth`).
//! - `rust`: crates from crates.io with the lockfiles cargo writes, one pinning older
//!   compatible releases. Truth: rust-analyzer over one Cargo workspace whose `[patch]`
//!   points every registered crate at its source (`kivgraph-bench crossrepo-truth rust`).
//! - `python`: PyPI sdists, each with the virtual environment pip installs, two of them
//!   holding older copies of registered projects. Truth: pyright over one project whose
//!   search path is every project's import root (`kivgraph-bench crossrepo-truth python`).
//!
//! Every truth is checked by reading. Each binary given is scored on the same questions in
//! one run (this build, and with `--before` the build before the change), next to grep over
//! the checkouts; each language is its own graph:
//!
//! ```text
//! benchmarks/fetch-crossrepo.sh [LANGUAGE...]
//! $CARGO_TARGET_DIR/release/kivgraph-bench crossrepo --kivgraph $CARGO_TARGET_DIR/release/kivgraph [--before OLD_BIN] [--languages typescript,go,rust,python]
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use kivgraph_config::{LanguageToken, RepositoryEntry};
use serde_json::{Value, json};

use crate::accuracy::{Checkouts, Question, score};
use crate::client::McpClient;
use crate::{Analyzers, corpus_dir, flag, run_index, write_config};

/// The languages with a cross-repository corpus, in the order they are scored.
pub(crate) const LANGUAGES: &[&str] = &["typescript", "go", "rust", "python"];

pub(crate) fn benchmark_file(language: &str, name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../crossrepo")
        .join(language)
        .join(name)
}

/// Where `fetch-crossrepo.sh` puts a language's corpus.
pub(crate) fn language_corpus(corpus: &Path, language: &str) -> PathBuf {
    match language {
        "typescript" => corpus.join("crossrepo"),
        other => corpus.join(format!("crossrepo-{other}")),
    }
}

/// Every package of every cluster, as registered repositories.
pub(crate) fn repositories(corpus: &Path, language: &str) -> anyhow::Result<Vec<RepositoryEntry>> {
    let token = match language {
        "typescript" => LanguageToken::Typescript,
        "go" => LanguageToken::Go,
        "rust" => LanguageToken::Rust,
        "python" => LanguageToken::Python,
        other => bail!("no cross-repository corpus for {other}"),
    };
    let clusters: Value = serde_json::from_str(&std::fs::read_to_string(benchmark_file(
        language,
        "clusters.json",
    ))?)?;
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
                "{} is missing: run benchmarks/fetch-crossrepo.sh {language} first",
                path.display()
            );
        }
        entries.push(RepositoryEntry {
            name: name.to_string(),
            path,
            languages: vec![token],
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
    let languages: Vec<String> = flag(args, "--languages").map_or_else(
        || LANGUAGES.iter().map(|l| l.to_string()).collect(),
        |l| l.split(',').map(str::to_string).collect(),
    );
    let mut binaries = vec![("this_build", kivgraph)];
    if let Some(before) = flag(args, "--before") {
        binaries.push(("before", PathBuf::from(before)));
    }
    let work = flag(args, "--work").map(PathBuf::from).unwrap_or_else(|| {
        std::env::temp_dir().join(format!("kivgraph-crossrepo-{}", std::process::id()))
    });
    let mut by_language = serde_json::Map::new();
    for language in &languages {
        let entries = repositories(&language_corpus(&corpus_dir(args), language), language)?;
        let questions: Vec<Question> = serde_json::from_str(&std::fs::read_to_string(
            benchmark_file(language, "questions.json"),
        )?)?;
        let checkouts: Checkouts = entries
            .iter()
            .map(|e| (e.name.clone(), e.path.clone()))
            .collect();
        let mut reports = serde_json::Map::new();
        for (label, binary) in &binaries {
            let dir = work.join(language).join(label);
            std::fs::create_dir_all(&dir)?;
            let config = write_config(&dir, &entries, "on")?;
            let (seconds, result) = run_index(binary, &config, Analyzers::Installed)?;
            eprintln!(
                "crossrepo: {language}: {label}: {} repositories indexed in {seconds:.1} s",
                entries.len()
            );
            let mut client = McpClient::start(binary, &config)?;
            analyzers_present(&mut client)?;
            let report = score(&mut client, &checkouts, &questions, None)?;
            reports.insert(
                label.to_string(),
                json!({"index_seconds": (seconds * 10.0).round() / 10.0, "counts": result["counts"],
                       "by_family": by_family(&report), "report": report}),
            );
        }
        by_language.insert(language.clone(), Value::Object(reports));
    }
    if flag(args, "--work").is_none() {
        let _ = std::fs::remove_dir_all(&work);
    }
    println!(
        "{}",
        serde_json::to_string_pretty(&Value::Object(by_language))?
    );
    Ok(())
}

/// Refuses a graph whose exact analyzers were not found: it would score the syntax layer as
/// if it were the product (set `KIVGRAPH_ANALYZERS_DIR`, run `cargo xtask setup`).
fn analyzers_present(client: &mut McpClient) -> anyhow::Result<()> {
    let listed: Value =
        serde_json::from_str(&client.call("list_repositories", json!({"limit": 500}))?)?;
    for repository in listed["results"].as_array().into_iter().flatten() {
        for analyzer in repository["analyzers"].as_array().into_iter().flatten() {
            if let Some(absent) = analyzer["absent"].as_str() {
                bail!("{}: {absent}", repository["name"]);
            }
        }
    }
    Ok(())
}
