//! `find_by_intent` quality: plain-language questions whose answers are known and whose
//! wording never spells the answer's identifier, against `grep -rliw` on the same words.
//! Session tokens are the answer plus reading the first file it lists, on both routes.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::Context;
use serde_json::{Value, json};

use crate::client::McpClient;
use crate::{Analyzers, corpus_dir, corpus_entries, flag, run_index, write_config};

struct Question {
    intent: &'static str,
    keywords: &'static [&'static str],
    repo: &'static str,
    /// Repository-relative path of the file that answers it.
    answer: &'static str,
}

const QUESTIONS: &[Question] = &[
    Question {
        intent: "how the command line tool runs the selected subcommand",
        keywords: &["execute", "cmd"],
        repo: "debian-go",
        answer: "github.com/spf13/cobra/command.go",
    },
    Question {
        intent: "register a url path handler function on the router",
        keywords: &["handle", "func"],
        repo: "debian-go",
        answer: "github.com/gorilla/mux/mux.go",
    },
    Question {
        intent: "report the differences between two values",
        keywords: &["diff"],
        repo: "debian-go",
        answer: "github.com/google/go-cmp/cmp/compare.go",
    },
    Question {
        intent: "a metric that counts events partitioned by labels",
        keywords: &["counter", "vec"],
        repo: "debian-go",
        answer: "github.com/prometheus/client_golang/prometheus/counter.go",
    },
    Question {
        intent: "open a client connection to a remote rpc server",
        keywords: &["dial", "conn"],
        repo: "debian-go",
        answer: "google.golang.org/grpc/clientconn.go",
    },
    Question {
        intent: "build a node tree from an html document",
        keywords: &["parse", "html"],
        repo: "debian-go",
        answer: "golang.org/x/net/html/parse.go",
    },
    Question {
        intent: "load go packages with their dependencies and syntax",
        keywords: &["load", "packages"],
        repo: "debian-go",
        answer: "golang.org/x/tools/go/packages/packages.go",
    },
    Question {
        intent: "emit a shell completion script for bash",
        keywords: &["bash", "completion"],
        repo: "debian-go",
        answer: "github.com/spf13/cobra/bash_completions.go",
    },
    Question {
        intent: "send a simple http get call to a url",
        keywords: &["get", "api"],
        repo: "pypi",
        answer: "requests-2.32.5/src/requests/api.py",
    },
    Question {
        intent: "combine per session defaults with one outgoing call's options",
        keywords: &["prepare", "merge", "setting"],
        repo: "pypi",
        answer: "requests-2.32.5/src/requests/sessions.py",
    },
    Question {
        intent: "send the browser to a different location",
        keywords: &["redirect", "response"],
        repo: "pypi",
        answer: "django-5.2.8/django/http/response.py",
    },
    Question {
        intent: "connect to a database from a connection string",
        keywords: &["create", "engine"],
        repo: "pypi",
        answer: "sqlalchemy-2.0.44/lib/sqlalchemy/engine/create.py",
    },
    Question {
        intent: "map a url rule to a view function in a web app",
        keywords: &["route", "rule"],
        repo: "pypi",
        answer: "flask-3.1.2/src/flask/sansio/scaffold.py",
    },
    Question {
        intent: "store user passwords safely with a salt",
        keywords: &["hasher", "password"],
        repo: "pypi",
        answer: "django-5.2.8/django/contrib/auth/hashers.py",
    },
    Question {
        intent: "check that an email address is well formed",
        keywords: &["email", "validator"],
        repo: "pypi",
        answer: "django-5.2.8/django/core/validators.py",
    },
    Question {
        intent: "split a long list of objects into numbered pages",
        keywords: &["paginator", "page"],
        repo: "pypi",
        answer: "django-5.2.8/django/core/paginator.py",
    },
    Question {
        intent: "transform each value emitted by an observable with a projection",
        keywords: &["map", "project"],
        repo: "npm",
        answer: "rxjs/src/internal/operators/map.ts",
    },
    Question {
        intent: "wait for several observables to complete and emit their last values together",
        keywords: &["fork", "join"],
        repo: "npm",
        answer: "rxjs/src/internal/observable/forkJoin.ts",
    },
    Question {
        intent: "emit a value only after a quiet period has passed",
        keywords: &["debounce", "time"],
        repo: "npm",
        answer: "rxjs/src/internal/operators/debounceTime.ts",
    },
    Question {
        intent: "resubscribe to the source after an error a number of times",
        keywords: &["retry", "count"],
        repo: "npm",
        answer: "rxjs/src/internal/operators/retry.ts",
    },
    Question {
        intent: "schema that validates string values",
        keywords: &["zod", "string"],
        repo: "npm",
        answer: "zod/src/v3/types.ts",
    },
    Question {
        intent: "run a future concurrently in the background on the executor",
        keywords: &["spawn", "task"],
        repo: "crates",
        answer: "tokio-1.48.0/src/task/spawn.rs",
    },
    Question {
        intent: "turn a regular expression pattern into an abstract syntax tree",
        keywords: &["parse", "ast"],
        repo: "crates",
        answer: "regex-syntax-0.8.12/src/ast/parse.rs",
    },
    Question {
        intent: "write a value out as a json string",
        keywords: &["serialize", "to", "string"],
        repo: "crates",
        answer: "serde_json-1.0.145/src/ser.rs",
    },
];

const PAGE: usize = 10;
const STOPWORDS: &[&str] = &[
    "the", "and", "for", "with", "from", "into", "that", "how", "its", "their", "one", "out",
    "after", "each", "only", "has", "been", "this", "all",
];

/// The words an agent would grep: the question's content words (and keywords).
fn grep_words(question: &Question, with_keywords: bool) -> Vec<String> {
    let mut words: Vec<String> = question
        .intent
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.len() > 2 && !STOPWORDS.contains(&w.as_str()))
        .collect();
    if with_keywords {
        words.extend(question.keywords.iter().map(|k| k.to_lowercase()));
    }
    words.dedup();
    words
}

/// Files holding every word (`grep -rliw`, intersected), sorted as grep's listing would be read.
fn grep_files(roots: &[(String, PathBuf)], words: &[String]) -> anyhow::Result<Vec<String>> {
    let mut result: Option<BTreeSet<String>> = None;
    for word in words {
        let mut found = BTreeSet::new();
        for (name, root) in roots {
            let out = Command::new("grep")
                .args([
                    "-rliw",
                    "--include=*.go",
                    "--include=*.py",
                    "--include=*.ts",
                    "--include=*.rs",
                    word,
                ])
                .arg(root)
                .output()?;
            for line in String::from_utf8_lossy(&out.stdout).lines() {
                if let Ok(relative) = Path::new(line).strip_prefix(root) {
                    found.insert(format!("{name}:{}", relative.display()));
                }
            }
        }
        result = Some(match result {
            None => found,
            Some(previous) => previous.intersection(&found).cloned().collect(),
        });
    }
    Ok(result.unwrap_or_default().into_iter().collect())
}

pub fn intent_benchmark(args: &[String]) -> anyhow::Result<()> {
    let kivgraph = PathBuf::from(flag(args, "--kivgraph").context("--kivgraph BIN is required")?);
    let corpus = corpus_dir(args);
    let entries = corpus_entries(&corpus)?;
    let roots: Vec<(String, PathBuf)> = entries
        .iter()
        .map(|e| (e.name.clone(), e.path.clone()))
        .collect();
    let work = std::env::temp_dir().join(format!("kivgraph-intent-bench-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let config = write_config(&work, &entries, "off")?;
    run_index(&kivgraph, &config, Analyzers::SyntaxOnly)?;
    let mut client = McpClient::start(&kivgraph, &config)?;
    let started = Instant::now();
    client.call("find_by_intent", json!({"intent": "warm up", "limit": 1}))?;
    let first_query_ms = started.elapsed().as_secs_f64() * 1000.0;
    let bpe = tiktoken_rs::o200k_base()?;
    let tokens = |text: &str| bpe.encode_with_special_tokens(text).len();

    let mut rows = Vec::new();
    let mut totals = json!({});
    for config_name in ["phrase", "keywords", "repo"] {
        let (mut k_hits, mut g_hits, mut k_tokens, mut g_tokens, mut k_session, mut g_session) =
            (0, 0, 0, 0, 0, 0);
        let mut k_report_session = 0;
        for question in QUESTIONS {
            let mut arguments = json!({"intent": question.intent, "view": "files", "limit": PAGE});
            if config_name == "keywords" {
                arguments["keywords"] = json!(question.keywords);
            }
            if config_name == "repo" {
                arguments["repo"] = json!(question.repo);
            }
            let text = client.call("find_by_intent", arguments)?;
            let answer: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
            let files: Vec<String> = answer["results"]["files"]
                .as_array()
                .map(|f| {
                    f.iter()
                        .map(|f| {
                            format!(
                                "{}:{}",
                                f["repo"].as_str().unwrap_or(""),
                                f["file"].as_str().unwrap_or("")
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            let wanted = format!("{}:{}", question.repo, question.answer);
            let kivgraph_hit = files.contains(&wanted);
            let grep_roots: Vec<(String, PathBuf)> = if config_name == "repo" {
                roots
                    .iter()
                    .filter(|(n, _)| n == question.repo)
                    .cloned()
                    .collect()
            } else {
                roots.clone()
            };
            let listing = grep_files(
                &grep_roots,
                &grep_words(question, config_name == "keywords"),
            )?;
            let grep_hit = listing.iter().take(PAGE).any(|f| *f == wanted);
            let grep_text = listing.join("\n");
            // A session opens the first file its answer lists, to see whether it is the one.
            let read_first = |file: Option<&String>| -> usize {
                file.and_then(|f| f.split_once(':'))
                    .and_then(|(repo, path)| {
                        roots
                            .iter()
                            .find(|(n, _)| n == repo)
                            .map(|(_, root)| root.join(path))
                    })
                    .and_then(|path| std::fs::read_to_string(path).ok())
                    .map(|text| tokens(&text))
                    .unwrap_or(0)
            };
            // The navigator's way to look at it: its compact report (outline, summary, what
            // to read first) instead of the whole file.
            let report_first = match files.first().and_then(|f| f.split_once(':')) {
                Some((repo, path)) => {
                    let report = client.call(
                        "module_report",
                        json!({"file": path, "repository": repo, "view": "compact"}),
                    )?;
                    tokens(&report)
                }
                None => 0,
            };
            let (ka, ga) = (tokens(&text), tokens(&grep_text));
            let (ks, gs) = (
                ka + read_first(files.first()),
                ga + read_first(listing.first()),
            );
            k_hits += usize::from(kivgraph_hit);
            g_hits += usize::from(grep_hit);
            k_tokens += ka;
            g_tokens += ga;
            k_session += ks;
            g_session += gs;
            k_report_session += ka + report_first;
            rows.push(json!({"config": config_name, "intent": question.intent, "answer": wanted, "kivgraph_hit": kivgraph_hit, "grep_hit": grep_hit, "kivgraph_answer_tokens": ka, "grep_answer_tokens": ga, "kivgraph_session_tokens": ks, "kivgraph_report_session_tokens": ka + report_first, "grep_session_tokens": gs, "grep_files": listing.len()}));
        }
        totals[config_name] = json!({
            "questions": QUESTIONS.len(), "kivgraph_first_page": k_hits, "grep_first_page": g_hits,
            "kivgraph_answer_tokens": k_tokens, "grep_answer_tokens": g_tokens,
            "kivgraph_session_tokens": k_session, "grep_session_tokens": g_session,
            "kivgraph_report_session_tokens": k_report_session,
        });
    }
    drop(client);
    let _ = std::fs::remove_dir_all(&work);
    println!(
        "{}",
        serde_json::to_string_pretty(
            &json!({"first_query_ms": first_query_ms, "totals": totals, "questions": rows})
        )?
    );
    Ok(())
}
