//! Token benchmark: declaration questions answered by kivgraph's tools against the route an
//! agent takes without it — a declaration-shaped grep, then reading the files it names.
//! Both routes must contain the same ground truth; tokens are counted with `o200k_base`.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Context;
use serde_json::{Value, json};

use crate::client::McpClient;

/// How the grep route answers a question.
enum Route {
    /// `grep -rnE` a declaration-shaped pattern for NAME over the whole corpus.
    Grep(&'static str),
    /// Grep, then read every file the question needs whole (an agent's Read).
    GrepThenRead(&'static [&'static str], &'static [&'static str]),
    /// Read the files (or every source file under the directories) whole.
    Read(&'static [&'static str]),
}

struct Question {
    id: &'static str,
    class: &'static str,
    tool: &'static str,
    arguments: fn() -> Value,
    route: Route,
    truth: &'static [&'static str],
}

const GO: &str = "debian-go";
const PY: &str = "pypi";
const TS: &str = "npm";

fn select(repository: &str, path: &str, qualified_name: &str) -> Value {
    json!({"repository": repository, "path": path, "qualified_name": qualified_name})
}

const QUESTIONS: &[Question] = &[
    Question {
        id: "L1",
        class: "locate, unique",
        tool: "find_symbol",
        arguments: || json!({"name": "NewRouter"}),
        route: Route::Grep("NewRouter"),
        truth: &["gorilla/mux/mux.go:25"],
    },
    Question {
        id: "L2",
        class: "locate, unique",
        tool: "find_symbol",
        arguments: || json!({"name": "ExecuteC"}),
        route: Route::Grep("ExecuteC"),
        truth: &["cobra/command.go:981"],
    },
    Question {
        id: "L3",
        class: "locate, unique",
        tool: "find_symbol",
        arguments: || json!({"name": "AddCommand"}),
        route: Route::Grep("AddCommand"),
        truth: &["cobra/command.go:1232"],
    },
    Question {
        id: "L4",
        class: "locate, unique",
        tool: "find_symbol",
        arguments: || json!({"name": "prepare_request"}),
        route: Route::Grep("prepare_request"),
        truth: &["requests/sessions.py:457"],
    },
    Question {
        id: "L5",
        class: "locate, unique",
        tool: "find_symbol",
        arguments: || json!({"name": "HttpResponseRedirect"}),
        route: Route::Grep("HttpResponseRedirect"),
        truth: &["django/http/response.py:660"],
    },
    Question {
        id: "L6",
        class: "locate, unique",
        tool: "find_symbol",
        arguments: || json!({"name": "Flask"}),
        route: Route::Grep("Flask"),
        truth: &["flask/app.py:81"],
    },
    Question {
        id: "L7",
        class: "locate, unique",
        tool: "find_symbol",
        arguments: || json!({"name": "Subject", "kind": "class"}),
        route: Route::Grep("Subject"),
        truth: &["internal/Subject.ts:17"],
    },
    Question {
        id: "L8",
        class: "locate, unique",
        tool: "find_symbol",
        arguments: || json!({"name": "mergeMap", "path_prefix": "rxjs/src/"}),
        route: Route::Grep("mergeMap"),
        truth: &["operators/mergeMap.ts:"],
    },
    Question {
        id: "H1",
        class: "locate, homonym",
        tool: "find_symbol",
        arguments: || json!({"name": "NewServer"}),
        route: Route::Grep("NewServer"),
        truth: &["grpc/server.go:507", "health/server.go:46"],
    },
    Question {
        id: "H2",
        class: "locate, homonym",
        tool: "find_symbol",
        arguments: || json!({"name": "Diff"}),
        route: Route::Grep("Diff"),
        truth: &["cmp/compare.go:113", "stack/process.go:58"],
    },
    Question {
        id: "H3",
        class: "locate, homonym",
        tool: "find_symbol",
        arguments: || json!({"name": "filter", "limit": 500}),
        route: Route::Grep("filter"),
        truth: &["orm/query.py:187", "sql/selectable.py:5405"],
    },
    Question {
        id: "H4",
        class: "locate, homonym",
        tool: "find_symbol",
        arguments: || json!({"name": "NewCounterVec"}),
        route: Route::Grep("NewCounterVec"),
        truth: &["prometheus/counter.go:176", "promauto/auto.go:175"],
    },
    Question {
        id: "H5",
        class: "locate, homonym",
        tool: "find_symbol",
        arguments: || json!({"name": "Dial"}),
        route: Route::Grep("Dial"),
        truth: &["grpc/clientconn.go:103", "websocket/client.go:55"],
    },
    Question {
        id: "H6",
        class: "locate, homonym",
        tool: "find_symbol",
        arguments: || json!({"name": "Session", "kind": "class"}),
        route: Route::Grep("Session"),
        truth: &["requests/sessions.py:356", "orm/session.py:1453"],
    },
    Question {
        id: "H7",
        class: "locate, homonym",
        tool: "find_symbol",
        arguments: || json!({"name": "Parse", "limit": 500}),
        route: Route::Grep("Parse"),
        truth: &["html/parse.go:2343", "expect/extract.go:34"],
    },
    Question {
        id: "H8",
        class: "locate, homonym",
        tool: "find_symbol",
        arguments: || json!({"name": "get", "limit": 500}),
        route: Route::Grep("get"),
        truth: &["requests/api.py:62"],
    },
    Question {
        id: "O1",
        class: "outline, large file",
        tool: "get_file_outline",
        arguments: || json!({"repository": GO, "path": "github.com/spf13/cobra/command.go"}),
        route: Route::Read(&["go/src/github.com/spf13/cobra/command.go"]),
        truth: &["ExecuteC", "AddCommand"],
    },
    Question {
        id: "O2",
        class: "outline, large file",
        tool: "get_file_outline",
        arguments: || json!({"repository": PY, "path": "django-5.2.8/django/db/models/query.py"}),
        route: Route::Read(&["python/django-5.2.8/django/db/models/query.py"]),
        truth: &["QuerySet", "filter", "RawQuerySet"],
    },
    Question {
        id: "O3",
        class: "outline, large file",
        tool: "get_file_outline",
        arguments: || json!({"repository": TS, "path": "rxjs/src/internal/Observable.ts"}),
        route: Route::Read(&["ts/rxjs/src/internal/Observable.ts"]),
        truth: &["Observable", "subscribe", "pipe"],
    },
    Question {
        id: "O4",
        class: "outline, small file",
        tool: "get_file_outline",
        arguments: || json!({"repository": PY, "path": "requests-2.32.5/src/requests/api.py"}),
        route: Route::Read(&["python/requests-2.32.5/src/requests/api.py"]),
        truth: &["get", "post", "request"],
    },
    Question {
        id: "P1",
        class: "outline, package",
        tool: "get_file_outline",
        arguments: || json!({"repository": GO, "path": "github.com/gorilla/mux"}),
        route: Route::Read(&["go/src/github.com/gorilla/mux"]),
        truth: &["NewRouter", "HandleFunc"],
    },
    Question {
        id: "P2",
        class: "outline, package",
        tool: "get_file_outline",
        arguments: || json!({"repository": PY, "path": "requests-2.32.5/src/requests"}),
        route: Route::Read(&["python/requests-2.32.5/src/requests"]),
        truth: &["Session", "prepare_request", "HTTPAdapter"],
    },
    Question {
        id: "P3",
        class: "outline, package",
        tool: "get_file_outline",
        arguments: || json!({"repository": GO, "path": "github.com/google/go-cmp/cmp"}),
        route: Route::Read(&["go/src/github.com/google/go-cmp/cmp"]),
        truth: &["Diff", "Equal"],
    },
    Question {
        id: "F1",
        class: "fetch bodies, one file",
        tool: "get_source",
        arguments: || json!({"symbols": [select(GO, "github.com/gorilla/mux/mux.go", "NewRouter"), select(GO, "github.com/gorilla/mux/mux.go", "Router.HandleFunc")]}),
        route: Route::GrepThenRead(
            &["NewRouter", "HandleFunc"],
            &["go/src/github.com/gorilla/mux/mux.go"],
        ),
        truth: &[
            "func NewRouter() *Router {",
            "func (r *Router) HandleFunc(path string",
        ],
    },
    Question {
        id: "F2",
        class: "fetch bodies, one file",
        tool: "get_source",
        arguments: || json!({"symbols": [select(GO, "github.com/spf13/cobra/command.go", "Command.ExecuteC"), select(GO, "github.com/spf13/cobra/command.go", "Command.AddCommand")]}),
        route: Route::GrepThenRead(
            &["ExecuteC", "AddCommand"],
            &["go/src/github.com/spf13/cobra/command.go"],
        ),
        truth: &[
            "func (c *Command) ExecuteC() (cmd *Command, err error) {",
            "func (c *Command) AddCommand(cmds ...*Command) {",
        ],
    },
    Question {
        id: "F3",
        class: "fetch bodies, across files",
        tool: "get_source",
        arguments: || {
            json!({"symbols": [
                select(PY, "requests-2.32.5/src/requests/sessions.py", "Session.prepare_request"),
                select(PY, "requests-2.32.5/src/requests/api.py", "get"),
                select(PY, "django-5.2.8/django/http/response.py", "HttpResponseRedirect"),
            ]})
        },
        route: Route::GrepThenRead(
            &["prepare_request", "get", "HttpResponseRedirect"],
            &[
                "python/requests-2.32.5/src/requests/sessions.py",
                "python/requests-2.32.5/src/requests/api.py",
                "python/django-5.2.8/django/http/response.py",
            ],
        ),
        truth: &[
            "def prepare_request(self, request):",
            "def get(url, params=None, **kwargs):",
            "class HttpResponseRedirect(HttpResponseRedirectBase):",
        ],
    },
    Question {
        id: "F4",
        class: "fetch bodies, across repositories",
        tool: "get_source",
        arguments: || {
            json!({"symbols": [
                select(GO, "github.com/gorilla/mux/mux.go", "NewRouter"),
                select(TS, "rxjs/src/internal/Subject.ts", "Subject"),
                select(PY, "requests-2.32.5/src/requests/api.py", "get"),
            ]})
        },
        route: Route::GrepThenRead(
            &["NewRouter", "Subject", "get"],
            &[
                "go/src/github.com/gorilla/mux/mux.go",
                "ts/rxjs/src/internal/Subject.ts",
                "python/requests-2.32.5/src/requests/api.py",
            ],
        ),
        truth: &[
            "func NewRouter() *Router {",
            "export class Subject<T> extends Observable<T>",
            "def get(url, params=None, **kwargs):",
        ],
    },
];

const SOURCE_GLOBS: &[&str] = &["*.go", "*.py", "*.ts", "*.tsx", "*.js", "*.mjs", "*.cjs"];

/// How an agent greps for a name: the bare word, as most do, or a declaration-shaped pattern,
/// the best case for grep.
#[derive(Clone, Copy)]
enum Grep {
    Word,
    Declaration,
}

fn grep(corpus: &Path, name: &str, style: Grep) -> anyhow::Result<String> {
    let mut command = Command::new("grep");
    command.current_dir(corpus);
    match style {
        Grep::Word => command.args(["-rnw", name]),
        Grep::Declaration => {
            let pattern = format!(
                r"(^|[[:space:]])(func( \([^)]*\))?|type|def|class|function|const|interface|let|var) {name}\b"
            );
            command.args(["-rnE".to_string(), pattern])
        }
    };
    for glob in SOURCE_GLOBS {
        command.arg(format!("--include={glob}"));
    }
    command.args(["go/src", "python", "ts"]);
    Ok(String::from_utf8_lossy(&command.output()?.stdout).to_string())
}

fn read_all(corpus: &Path, paths: &[&str]) -> anyhow::Result<String> {
    let mut out = String::new();
    for path in paths {
        let full = corpus.join(path);
        let mut files: Vec<PathBuf> = if full.is_dir() {
            std::fs::read_dir(&full)?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.is_file()
                        && SOURCE_GLOBS
                            .iter()
                            .any(|g| p.to_string_lossy().ends_with(&g[1..]))
                })
                .collect()
        } else {
            vec![full]
        };
        files.sort();
        for file in files {
            out.push_str(
                &std::fs::read_to_string(&file).with_context(|| file.display().to_string())?,
            );
        }
    }
    Ok(out)
}

/// Runs every question; returns per-question rows and the median ratio.
pub fn run(client: &mut McpClient, corpus: &Path) -> anyhow::Result<Value> {
    let bpe = tiktoken_rs::o200k_base()?;
    let tokens = |text: &str| bpe.encode_with_special_tokens(text).len();
    let mut rows = Vec::new();
    let mut word_ratios = Vec::new();
    let mut declaration_ratios = Vec::new();
    for question in QUESTIONS {
        // kivgraph: the tool call, paging to the end when the answer is truncated.
        let mut arguments = (question.arguments)();
        let mut answer = String::new();
        let mut calls = 0;
        loop {
            let text = client.call(question.tool, arguments.clone())?;
            calls += 1;
            answer.push_str(&text);
            let cursor = serde_json::from_str::<Value>(&text).ok().and_then(|v| {
                v.get("next_cursor")
                    .and_then(|c| c.as_str().map(str::to_string))
            });
            match cursor {
                Some(cursor) => arguments["cursor"] = json!(cursor),
                None => break,
            }
        }
        let grep_route = |style: Grep| -> anyhow::Result<String> {
            Ok(match &question.route {
                Route::Grep(name) => grep(corpus, name, style)?,
                Route::GrepThenRead(names, files) => {
                    let mut out = String::new();
                    for name in *names {
                        out.push_str(&grep(corpus, name, style)?);
                    }
                    out.push_str(&read_all(corpus, files)?);
                    out
                }
                Route::Read(paths) => read_all(corpus, paths)?,
            })
        };
        let (word, declaration) = (grep_route(Grep::Word)?, grep_route(Grep::Declaration)?);
        let correct = |text: &str| question.truth.iter().all(|t| text.contains(t));
        let k = tokens(&answer);
        let (w, d) = (tokens(&word), tokens(&declaration));
        let round = |x: f64| (x * 100.0).round() / 100.0;
        word_ratios.push(w as f64 / k as f64);
        declaration_ratios.push(d as f64 / k as f64);
        rows.push(json!({
            "id": question.id, "class": question.class, "tool": question.tool, "calls": calls,
            "kivgraph_tokens": k, "kivgraph_correct": correct(&answer),
            "grep_word_tokens": w, "grep_word_correct": correct(&word), "ratio_word": round(w as f64 / k as f64),
            "grep_declaration_tokens": d, "grep_declaration_correct": correct(&declaration), "ratio_declaration": round(d as f64 / k as f64),
        }));
    }
    let median = |ratios: &mut Vec<f64>| {
        ratios.sort_by(|a, b| a.total_cmp(b));
        (ratios[(ratios.len() - 1) / 2] + ratios[ratios.len() / 2]) / 2.0
    };
    let wins = |ratios: &[f64]| ratios.iter().filter(|r| **r < 1.0).count();
    Ok(json!({
        "questions": rows,
        "median_ratio_word_grep": (median(&mut word_ratios) * 100.0).round() / 100.0,
        "median_ratio_declaration_grep": (median(&mut declaration_ratios) * 100.0).round() / 100.0,
        "grep_wins_word": wins(&word_ratios),
        "grep_wins_declaration": wins(&declaration_ratios),
    }))
}
