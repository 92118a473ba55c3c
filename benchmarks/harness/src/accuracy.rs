//! Accuracy of the relation tools on real code: reference, impact and consumer questions with
//! hand-checked ground truth (`benchmarks/accuracy/questions.json`: the files that hold the
//! references), scored by file-level precision per confidence class and recall, with the
//! tokens of the answer against grep + reading the files that hold the truth.
//!
//! The corpus is registered one upstream project per repository (seven Go modules, five npm
//! packages, four PyPI projects, and the Rust crates together), so consumers across projects
//! are cross-repository.
//!
//! Two graphs are scored side by side in one run: the one the installed exact analyzers
//! produce (`exact`) and the syntax layer alone (`syntax`). `--languages` keeps the questions
//! of some languages; `--work DIR` keeps both configurations (fact cache on) so a second run
//! reuses every memo and analyzer unit; `--extra-config YAML` adds sections to both
//! configurations.
//!
//! ```text
//! $CARGO_TARGET_DIR/release/kivgraph-bench accuracy --kivgraph $CARGO_TARGET_DIR/release/kivgraph
//! $CARGO_TARGET_DIR/release/kivgraph-bench accuracy --kivgraph … --languages typescript,javascript,python
//! $CARGO_TARGET_DIR/release/kivgraph-bench accuracy --kivgraph … --languages go --extra-config $'go:\n  include_tests: true'
//! $CARGO_TARGET_DIR/release/kivgraph-bench accuracy --kivgraph … --explore ID|all   # grep hits to label
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::Command;

use anyhow::{Context, bail};
use kivgraph_config::{LanguageToken, RepositoryEntry};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::client::McpClient;
use crate::{Analyzers, corpus_dir, flag, run_index, write_config};

/// One upstream project per repository: (name, directory under the corpus).
pub(crate) const PROJECTS: &[(&str, &str)] = &[
    ("x-net", "go/src/golang.org/x/net"),
    ("x-tools", "go/src/golang.org/x/tools"),
    ("mux", "go/src/github.com/gorilla/mux"),
    ("cobra", "go/src/github.com/spf13/cobra"),
    (
        "client_golang",
        "go/src/github.com/prometheus/client_golang",
    ),
    ("go-cmp", "go/src/github.com/google/go-cmp"),
    ("grpc", "go/src/google.golang.org/grpc"),
    ("effect", "ts/effect"),
    ("fp-ts", "ts/fp-ts"),
    ("io-ts", "ts/io-ts"),
    ("rxjs", "ts/rxjs"),
    ("zod", "ts/zod"),
    ("django", "python/django-5.2.8"),
    ("flask", "python/flask-3.1.2"),
    ("requests", "python/requests-2.32.5"),
    ("sqlalchemy", "python/sqlalchemy-2.0.44"),
    // The Rust crates stay one repository: crates are resolved within themselves.
    ("crates", "rust/src"),
];

const SOURCE_GLOBS: &[&str] = &[
    "*.go", "*.py", "*.rs", "*.ts", "*.tsx", "*.js", "*.mjs", "*.cjs",
];

#[derive(Deserialize)]
pub(crate) struct Question {
    pub(crate) id: String,
    class: String,
    language: String,
    pub(crate) tool: String,
    pub(crate) arguments: Value,
    /// The identifier grep looks for, and the repositories it searches.
    pub(crate) name: String,
    /// Where grep looks; every registered repository when empty.
    #[serde(default)]
    repositories: Vec<String>,
    /// `repository/path` of every file holding a reference (or an affected declaration).
    truth: Vec<String>,
    #[serde(default)]
    note: String,
}

/// The registered repositories' checkouts, by name.
pub(crate) type Checkouts = BTreeMap<String, PathBuf>;

fn project_dir(checkouts: &Checkouts, repository: &str) -> anyhow::Result<PathBuf> {
    checkouts
        .get(repository)
        .cloned()
        .with_context(|| format!("unknown repository {repository}"))
}

/// `grep -rnw NAME` over the question's repositories (`node_modules` left out, as a search
/// of one's checkouts does), as `repository/path:line:text`.
fn grep(checkouts: &Checkouts, question: &Question) -> anyhow::Result<Vec<String>> {
    let mut hits = Vec::new();
    let all: Vec<String> = checkouts.keys().cloned().collect();
    let repositories = if question.repositories.is_empty() {
        &all
    } else {
        &question.repositories
    };
    for repository in repositories {
        let dir = project_dir(checkouts, repository)?;
        let mut command = Command::new("grep");
        command
            .current_dir(&dir)
            .args(["-rnw", "--exclude-dir=node_modules", &question.name]);
        for glob in SOURCE_GLOBS {
            command.arg(format!("--include={glob}"));
        }
        command.arg(".");
        let out = String::from_utf8_lossy(&command.output()?.stdout).to_string();
        hits.extend(
            out.lines()
                .map(|line| format!("{repository}/{}", line.trim_start_matches("./"))),
        );
    }
    Ok(hits)
}

/// What a question's answer holds: its pages' text, every row, and the first page's verdict.
struct Answer {
    text: String,
    rows: Vec<Value>,
    verdict: Option<String>,
    /// The first page's `completeness` block.
    completeness: Value,
}

/// Calls the tool to the last page.
fn answer(client: &mut McpClient, tool: &str, arguments: &Value) -> anyhow::Result<Answer> {
    let mut arguments = arguments.clone();
    let mut text = String::new();
    let mut rows = Vec::new();
    let mut verdict = None;
    let mut completeness = Value::Null;
    loop {
        let page = client.call(tool, arguments.clone())?;
        if let Some(keys) = page.split_once(SEPARATED_BY_KEYS).map(|(_, keys)| keys) {
            return answer_each_key(client, tool, &arguments, &page, keys);
        }
        text.push_str(&page);
        let value: Value =
            serde_json::from_str(&page).with_context(|| format!("{tool} refused: {page}"))?;
        if verdict.is_none() {
            verdict = value["completeness"]["verdict"]
                .as_str()
                .map(str::to_string);
            completeness = value["completeness"].clone();
        }
        let results = &value["results"];
        for field in ["references", "symbols", "consumers"] {
            if let Some(list) = results[field].as_array() {
                rows.extend(list.iter().cloned());
            }
        }
        match value["next_cursor"].as_str() {
            Some(cursor) => arguments["cursor"] = json!(cursor),
            None => break,
        }
    }
    Ok(Answer {
        text,
        rows,
        verdict,
        completeness,
    })
}

/// How an `AMBIGUOUS_SYMBOL` refusal ends when only keys tell the symbols apart (one
/// name declared twice in one file: a TypeScript interface and the value of that name).
const SEPARATED_BY_KEYS: &str = "so only a stable_key separates them: ";

/// The refusal's documented fix, as an agent follows it: the question asked of each key,
/// the answers joined (the refusal's tokens counted too), the weakest verdict kept.
fn answer_each_key(
    client: &mut McpClient,
    tool: &str,
    arguments: &Value,
    refusal: &str,
    keys: &str,
) -> anyhow::Result<Answer> {
    let mut joined = Answer {
        text: refusal.to_string(),
        rows: Vec::new(),
        verdict: None,
        completeness: Value::Null,
    };
    for key in keys.split(',').map(str::trim).filter(|k| !k.is_empty()) {
        let mut narrowed = arguments.clone();
        for triple in ["repository", "path", "qualified_name"] {
            narrowed.as_object_mut().map(|o| o.remove(triple));
        }
        narrowed["stable_key"] = json!(key);
        let one = answer(client, tool, &narrowed)?;
        joined.text.push_str(&one.text);
        joined.rows.extend(one.rows);
        if joined.verdict.is_none() || one.verdict.as_deref() != Some("COMPLETE") {
            joined.verdict = one.verdict;
            joined.completeness = one.completeness;
        }
    }
    Ok(joined)
}

/// The file a row names, and the confidence it carries.
fn row_file(row: &Value) -> Option<(String, String)> {
    if row["category"] == "package" || row["category"] == "unresolved" {
        return None;
    }
    let file = format!(
        "{}/{}",
        row["repository"].as_str()?,
        row["file_path"].as_str()?
    );
    let confidence = row["confidence"]
        .as_str()
        .or_else(|| row["via_confidence"].as_str())?
        .to_string();
    Some((file, confidence))
}

pub fn accuracy_benchmark(args: &[String]) -> anyhow::Result<()> {
    let kivgraph = PathBuf::from(flag(args, "--kivgraph").context("--kivgraph BIN is required")?);
    let corpus = corpus_dir(args);
    let questions_path = flag(args, "--questions")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../accuracy/questions.json")
        });
    let questions: Vec<Question> =
        serde_json::from_str(&std::fs::read_to_string(&questions_path)?)?;
    let explore = flag(args, "--explore");
    let languages = vec![
        LanguageToken::Go,
        LanguageToken::Typescript,
        LanguageToken::Javascript,
        LanguageToken::Python,
        LanguageToken::Rust,
    ];
    let wanted: Option<Vec<String>> =
        flag(args, "--languages").map(|l| l.split(',').map(str::to_string).collect());
    let questions: Vec<Question> = questions
        .into_iter()
        .filter(|q| wanted.as_ref().is_none_or(|l| l.contains(&q.language)))
        .collect();
    // Only the repositories the questions ask about are registered.
    let asked: std::collections::BTreeSet<&str> = questions
        .iter()
        .flat_map(|q| q.repositories.iter().map(String::as_str))
        .collect();
    let mut entries = Vec::new();
    for (name, dir) in PROJECTS.iter().filter(|(name, _)| asked.contains(name)) {
        let path = corpus.join(dir);
        if !path.is_dir() {
            bail!(
                "{} is missing: run benchmarks/fetch-corpus.sh first",
                path.display()
            );
        }
        entries.push(RepositoryEntry {
            name: name.to_string(),
            path,
            languages: languages.clone(),
            manifests: vec![],
            roots: vec![],
            exclusions: vec![],
        });
    }
    let kept = flag(args, "--work").map(PathBuf::from);
    // Configuration sections added to both graphs' `config.yaml` (`--extra-config
    // $'go:\n  include_tests: true'`).
    let extra_config = flag(args, "--extra-config");
    let work = kept.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("kivgraph-accuracy-{}", std::process::id()))
    });
    let mut reports = serde_json::Map::new();
    for (label, analyzers) in [
        ("exact", Analyzers::Installed),
        ("syntax", Analyzers::SyntaxOnly),
    ] {
        let dir = work.join(label);
        std::fs::create_dir_all(&dir)?;
        let config = write_config(&dir, &entries, "on")?;
        if let Some(extra) = &extra_config {
            let mut text = std::fs::read_to_string(&config)?;
            text.push_str(extra);
            text.push('\n');
            std::fs::write(&config, text)?;
        }
        let (seconds, _) = run_index(&kivgraph, &config, analyzers)?;
        eprintln!("accuracy: {label} graph indexed in {seconds:.1} s");
        let mut client = McpClient::start(&kivgraph, &config)?;
        let checkouts: Checkouts = entries
            .iter()
            .map(|e| (e.name.clone(), e.path.clone()))
            .collect();
        let report = score(&mut client, &checkouts, &questions, explore.as_deref())?;
        reports.insert(label.to_string(), report);
        if explore.is_some() {
            break;
        }
    }
    if kept.is_none() {
        let _ = std::fs::remove_dir_all(&work);
    }
    if explore.is_none() {
        println!("{}", serde_json::to_string_pretty(&Value::Object(reports))?);
    }
    Ok(())
}

/// Every question asked of one graph, scored against its ground truth and grep + reading.
pub(crate) fn score(
    client: &mut McpClient,
    checkouts: &Checkouts,
    questions: &[Question],
    explore: Option<&str>,
) -> anyhow::Result<Value> {
    let bpe = tiktoken_rs::o200k_base()?;
    let tokens = |text: &str| bpe.encode_with_special_tokens(text).len();

    let mut rows = Vec::new();
    // Per confidence class: (answered files, right ones).
    let mut by_confidence: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let (mut truth_total, mut found_total) = (0, 0);
    let mut ratios = Vec::new();
    for question in questions {
        if explore.is_some_and(|id| id != "all" && id != question.id) {
            continue;
        }
        let mut full = question.arguments.clone();
        full["view"] = json!("full");
        // A refusal is an answer too: no rows, scored as such.
        let refused = |error: anyhow::Error| Answer {
            text: error.to_string(),
            rows: Vec::new(),
            verdict: Some("REFUSED".to_string()),
            completeness: Value::Null,
        };
        let answer_rows = answer(client, &question.tool, &full)
            .unwrap_or_else(refused)
            .rows;
        let compact = answer(client, &question.tool, &question.arguments).unwrap_or_else(refused);
        let mut files: BTreeMap<String, String> = BTreeMap::new();
        for (file, confidence) in answer_rows.iter().filter_map(row_file) {
            // A file answered under several confidences counts under its strongest.
            let entry = files.entry(file).or_insert(confidence.clone());
            if confidence < *entry {
                *entry = confidence;
            }
        }
        let truth: BTreeSet<&str> = question.truth.iter().map(String::as_str).collect();
        let hits = grep(checkouts, question)?;
        if explore.is_some() {
            println!("{} {}: {}", question.id, question.tool, question.arguments);
            for (file, confidence) in &files {
                let mark = if truth.contains(file.as_str()) {
                    "ok "
                } else {
                    "?? "
                };
                println!("  answer {mark}{file} {confidence}");
            }
            for hit in &hits {
                println!("  grep   {}", hit.chars().take(200).collect::<String>());
            }
            continue;
        }
        let mut wrong = Vec::new();
        for (file, confidence) in &files {
            let slot = by_confidence.entry(confidence.clone()).or_default();
            slot.0 += 1;
            if truth.contains(file.as_str()) {
                slot.1 += 1;
            } else {
                wrong.push(file.clone());
            }
        }
        let found: Vec<&&str> = truth.iter().filter(|t| files.contains_key(**t)).collect();
        let missed: Vec<&&str> = truth.iter().filter(|t| !files.contains_key(**t)).collect();
        truth_total += truth.len();
        found_total += found.len();
        // grep + reading: the word grep over the repositories, then every file that holds
        // the truth read whole (the least an agent must open to confirm).
        let mut grep_route: String = hits.join("\n");
        for file in &truth {
            let (repository, path) = file.split_once('/').context("repository/path")?;
            grep_route.push_str(&std::fs::read_to_string(
                project_dir(checkouts, repository)?.join(path),
            )?);
        }
        let (k, g) = (tokens(&compact.text), tokens(&grep_route));
        ratios.push(g as f64 / k as f64);
        let verdict = compact.verdict;
        // A miss under LOWER_BOUND is accounted for when the block names where it is: its
        // file among the fallback paths or the blind spots, or its repository among the
        // invisible scopes.
        let named = |file: &str| {
            let (repository, path) = file.split_once('/').unwrap_or((file, ""));
            let absolute = checkouts
                .get(repository)
                .map(|root| root.join(path).display().to_string());
            let block = &compact.completeness;
            let listed = |key: &str| block[key].as_array().cloned().unwrap_or_default();
            block["fallback"]["paths"]
                .as_array()
                .is_some_and(|paths| paths.iter().any(|p| p.as_str() == absolute.as_deref()))
                || listed("blind_spots")
                    .iter()
                    .any(|spot| spot["repository"] == repository && spot["path"] == path)
                || listed("invisible_scopes")
                    .iter()
                    .any(|scope| scope["repository"] == repository)
        };
        let unaccounted: Vec<&&str> = missed.iter().filter(|f| !named(f)).copied().collect();
        // grep alone: the files its hits are in, against the truth.
        let grep_files: BTreeSet<String> = hits
            .iter()
            .filter_map(|hit| hit.split_once(':').map(|(file, _)| file.to_string()))
            .collect();
        let grep_right = grep_files
            .iter()
            .filter(|f| truth.contains(f.as_str()))
            .count();
        rows.push(json!({
            "id": question.id, "class": question.class, "language": question.language,
            "tool": question.tool, "truth_files": truth.len(), "answered_files": files.len(),
            "found": found.len(), "missed": missed, "wrong": wrong,
            "missed_unaccounted": unaccounted,
            "grep_files": grep_files.len(), "grep_right": grep_right,
            "verdict": verdict, "kivgraph_tokens": k, "grep_and_read_tokens": g,
            "ratio": (g as f64 / k as f64 * 100.0).round() / 100.0, "note": question.note,
        }));
    }
    if explore.is_some() {
        return Ok(Value::Null);
    }
    ratios.sort_by(|a, b| a.total_cmp(b));
    let median = (ratios[(ratios.len() - 1) / 2] + ratios[ratios.len() / 2]) / 2.0;
    let precision: BTreeMap<&String, Value> = by_confidence
        .iter()
        .map(|(confidence, (answered, right))| {
            (confidence, json!({"answered_files": answered, "right": right, "precision": (*right as f64 / *answered as f64 * 1000.0).round() / 1000.0}))
        })
        .collect();
    // Recall per language and per class, and whether a COMPLETE verdict ever missed a file.
    let mut recall_by: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    let mut complete_with_misses = 0;
    for row in &rows {
        let (truth, found) = (
            row["truth_files"].as_u64().unwrap_or(0),
            row["found"].as_u64().unwrap_or(0),
        );
        for key in [&row["language"], &row["class"]] {
            let slot = recall_by
                .entry(key.as_str().unwrap_or("").to_string())
                .or_default();
            slot.0 += truth;
            slot.1 += found;
        }
        if row["verdict"] == "COMPLETE" && found < truth {
            complete_with_misses += 1;
        }
    }
    let recall_by: BTreeMap<String, Value> = recall_by
        .into_iter()
        .map(|(key, (truth, found))| (key, json!({"truth_files": truth, "found": found})))
        .collect();
    let report = json!({
        "questions": rows,
        "recall_by_language_and_class": recall_by,
        "complete_verdicts": rows.iter().filter(|r| r["verdict"] == "COMPLETE").count(),
        "complete_verdicts_that_missed_a_file": complete_with_misses,
        "precision_by_confidence": precision,
        "recall": {"truth_files": truth_total, "found": found_total, "recall": (found_total as f64 / truth_total.max(1) as f64 * 1000.0).round() / 1000.0},
        "median_tokens_ratio_grep_over_kivgraph": (median * 100.0).round() / 100.0,
    });
    Ok(report)
}
