//! Every tool's answers on the cross-repository corpora, recorded so that a change meant to
//! leave answers alone (a refactor) is checked byte for byte against the build before it:
//!
//! ```text
//! benchmarks/fetch-crossrepo.sh
//! kivgraph-bench answers --kivgraph OLD_BIN --work DIR_A [--languages go,rust] > before.jsonl
//! kivgraph-bench answers --kivgraph NEW_BIN --work DIR_B [--languages go,rust] > after.jsonl
//! cmp before.jsonl after.jsonl   # or diff, to see where
//! ```
//!
//! Each language's corpus is indexed as `crossrepo` indexes it; then, for every question of
//! `benchmarks/crossrepo/LANGUAGE/questions.json`, the question's own call and every tool
//! over its subject: declarations, source, outline, references, consumers, walks, the
//! navigator pair and the intent search. One JSON line per call — language, question, tool,
//! arguments, and the answer as the server wrote it (an error's text included) but for
//! `snapshot_age_ms`. Nothing volatile is asked (`graph_status` carries timings), so two
//! runs of one binary agree.

use std::path::PathBuf;

use anyhow::Context;
use serde_json::{Value, json};

use crate::accuracy::Question;
use crate::client::McpClient;
use crate::crossrepo::{LANGUAGES, benchmark_file, language_corpus, repositories};
use crate::{Analyzers, corpus_dir, flag, run_index, write_config};

pub fn answers_benchmark(args: &[String]) -> anyhow::Result<()> {
    let kivgraph = PathBuf::from(flag(args, "--kivgraph").context("--kivgraph BIN is required")?);
    let work = PathBuf::from(flag(args, "--work").context("--work DIR is required")?);
    let languages: Vec<String> = flag(args, "--languages").map_or_else(
        || LANGUAGES.iter().map(|l| l.to_string()).collect(),
        |l| l.split(',').map(str::to_string).collect(),
    );
    for language in &languages {
        let entries = repositories(&language_corpus(&corpus_dir(args), language), language)?;
        let questions: Vec<Question> = serde_json::from_str(&std::fs::read_to_string(
            benchmark_file(language, "questions.json"),
        )?)?;
        // A fresh state directory: the first generation, numbered as in any other run.
        let dir = work.join(language);
        if dir.exists() {
            std::fs::remove_dir_all(&dir)?;
        }
        std::fs::create_dir_all(&dir)?;
        let config = write_config(&dir, &entries, "on")?;
        let (seconds, _) = run_index(&kivgraph, &config, Analyzers::Installed)?;
        eprintln!("answers: {language}: indexed in {seconds:.1} s");
        let mut client = McpClient::start(&kivgraph, &config)?;
        let mut record = |question: &str, tool: &str, arguments: Value| -> anyhow::Result<()> {
            let answer = match client.call(tool, arguments.clone()) {
                Ok(text) => without_age(text),
                Err(error) => format!("error: {error}"),
            };
            println!(
                "{}",
                json!({"language": language, "question": question, "tool": tool,
                       "arguments": arguments, "answer": answer})
            );
            Ok(())
        };
        record("-", "list_repositories", json!({"limit": 500}))?;
        for question in &questions {
            record(&question.id, &question.tool, question.arguments.clone())?;
            for (tool, arguments) in subject_calls(question) {
                record(&question.id, tool, arguments)?;
            }
        }
    }
    Ok(())
}

/// The answer without `snapshot_age_ms`, the one field that says when it was asked rather
/// than what it is.
fn without_age(text: String) -> String {
    let Ok(Value::Object(mut answer)) = serde_json::from_str::<Value>(&text) else {
        return text;
    };
    match answer.shift_remove("snapshot_age_ms") {
        Some(_) => Value::Object(answer).to_string(),
        None => text,
    }
}

/// The calls every tool makes over a question's subject (its repository, path and
/// qualified name), in each view and format it has, so a refactor of how answers are written
/// is compared on every shape.
fn subject_calls(question: &Question) -> Vec<(&'static str, Value)> {
    let arguments = &question.arguments;
    let text = |key: &str| arguments[key].as_str().map(str::to_string);
    let (Some(repository), Some(path)) = (text("repository"), text("path")) else {
        return Vec::new();
    };
    let selector = match text("qualified_name") {
        Some(name) => json!({"repository": repository, "path": path, "qualified_name": name}),
        None => {
            return vec![(
                "get_file_outline",
                json!({"repository": repository, "path": path}),
            )];
        }
    };
    let with = |extra: Value| {
        let mut call = selector.clone();
        call.as_object_mut()
            .expect("the selector is an object")
            .extend(
                extra
                    .as_object()
                    .expect("extra arguments are an object")
                    .clone(),
            );
        call
    };
    vec![
        ("find_symbol", json!({"name": question.name})),
        ("get_symbol", with(json!({"response_format": "detailed"}))),
        ("get_source", json!({"symbols": [selector.clone()]})),
        (
            "get_file_outline",
            json!({"repository": repository, "path": path, "view": "full"}),
        ),
        ("find_references", with(json!({"view": "full"}))),
        ("find_references", selector.clone()),
        (
            "find_references",
            with(json!({"view": "full", "response_format": "detailed", "direction": "outgoing"})),
        ),
        ("find_references", with(json!({"view": "files"}))),
        ("find_cross_repo_consumers", selector.clone()),
        (
            "find_cross_repo_consumers",
            with(json!({"view": "full", "response_format": "detailed"})),
        ),
        ("trace_dependencies", selector.clone()),
        (
            "trace_dependencies",
            with(json!({"view": "full", "response_format": "detailed"})),
        ),
        ("get_blast_radius", selector.clone()),
        (
            "get_blast_radius",
            with(json!({"view": "full", "response_format": "detailed"})),
        ),
        (
            "find_symbol",
            json!({"name": question.name, "view": "full", "response_format": "detailed"}),
        ),
        (
            "get_file_outline",
            json!({"repository": repository, "path": path, "view": "files"}),
        ),
        (
            "find_by_intent",
            json!({"intent": format!("where is {} used", question.name), "view": "full", "response_format": "detailed"}),
        ),
        (
            "module_report",
            json!({"repository": repository, "file": path}),
        ),
        (
            "read_symbol",
            json!({"repository": repository, "file": path, "symbol": question.name}),
        ),
        (
            "find_by_intent",
            json!({"intent": format!("where is {} used", question.name)}),
        ),
    ]
}
