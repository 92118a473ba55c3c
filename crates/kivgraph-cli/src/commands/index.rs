//! `kivgraph index --full [--json]`: one pass over every registered repository, published as
//! a new generation.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::bail;
use kivgraph_config::LanguageToken;
use kivgraph_engine::{CacheIdentity, CacheLoad, PassGraph, PassOptions, Progress, run_pass};
use kivgraph_facts::Language;
use kivgraph_store::{
    AnalyzerState, BuildOutputState, GenerationId, GitPosition, RepositoryState, read_git_position,
};
use serde_json::json;

use crate::context::ConfigArg;

#[derive(clap::Args, Debug)]
pub struct IndexArgs {
    #[command(flatten)]
    config: ConfigArg,
    /// Analyse every registered repository and publish a generation.
    #[arg(long)]
    full: bool,
    /// stdout carries only newline-delimited JSON events: `progress`, then one `result`.
    #[arg(long)]
    json: bool,
}

fn cache_word(load: &CacheLoad) -> String {
    match load {
        CacheLoad::Loaded => "loaded".into(),
        CacheLoad::Absent => "absent".into(),
        CacheLoad::Foreign => "foreign (another build; ignored)".into(),
        CacheLoad::Corrupt(reason) => format!("corrupt ({reason}; ignored)"),
        CacheLoad::NotNeeded => "unchanged (the published generation's inputs; republished)".into(),
    }
}

fn emit(line: serde_json::Value) {
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{line}");
    let _ = stdout.flush();
}

pub fn run(args: IndexArgs) -> anyhow::Result<ExitCode> {
    if !args.full {
        bail!("index requires --full: a pass analyses every registered repository");
    }
    let started = Instant::now();
    let outcome = index(&args);
    match outcome {
        Ok(report) if args.json => {
            emit(json!({"event": "result", "result": report}));
            Ok(ExitCode::SUCCESS)
        }
        Ok(report) => {
            print_report(&report, started.elapsed().as_secs_f64());
            Ok(ExitCode::SUCCESS)
        }
        Err(err) if args.json => {
            emit(
                json!({"event": "result", "result": {"passed": false, "error": format!("{err:#}")}}),
            );
            Ok(ExitCode::FAILURE)
        }
        Err(err) => Err(err),
    }
}

fn index(args: &IndexArgs) -> anyhow::Result<serde_json::Value> {
    let started = Instant::now();
    let loaded = args.config.load()?;
    if loaded.registry.repositories.is_empty() {
        bail!("no repository is registered: run \"kivgraph init --repository NAME=PATH\" first");
    }
    let store = loaded.store(None);
    // Taken before any work: the loser of a race is told at once.
    let lock = store.lock()?;
    let analyzers = crate::analyzers::locate(&loaded.config).into_options(
        &loaded
            .registry
            .repositories
            .iter()
            .flat_map(|entry| kivgraph_discovery::enabled_languages(&entry.languages))
            .collect(),
    );
    let standard_library = loaded
        .registry
        .repositories
        .iter()
        .any(|entry| entry.languages.contains(&LanguageToken::Rust))
        .then(|| crate::analyzers::standard_library(&loaded.config, analyzers.rust.as_ref()))
        .flatten();
    let mut entries = loaded.registry.repositories.clone();
    match &standard_library {
        Some(Ok(derived)) => entries.push(derived.clone()),
        Some(Err(why)) => tracing::warn!(why, "the standard library is not indexed"),
        None => {}
    }
    let options = PassOptions {
        published_generation: store.current()?.map(|id| id.0),
        fact_cache: loaded.config.config.indexing.fact_cache,
        cache_directory: loaded.config.fact_cache_path.clone(),
        identity: CacheIdentity::of_this_build(),
        analyzers,
    };
    let terminal = !args.json && std::io::stderr().is_terminal();
    let last_line = Mutex::new(String::new());
    let progress = |event: Progress| {
        if args.json {
            emit(json!({"event": "progress", "progress": {
                "phase": event.phase, "repository": event.repository, "completed": event.completed, "total": event.total,
            }}));
            return;
        }
        let line = match &event.repository {
            Some(repository) => format!(
                "index: {} {repository} {}/{}",
                event.phase, event.completed, event.total
            ),
            None => format!("index: {}", event.phase),
        };
        let mut last = last_line.lock().expect("progress lock");
        if *last != line {
            if terminal {
                eprint!("\r\x1b[2K{line}");
            } else {
                eprintln!("{line}");
            }
            *last = line;
        }
    };
    let outcome = run_pass(&entries, &options, &progress)?;
    if terminal {
        eprintln!();
    }
    progress(Progress {
        phase: "publish",
        repository: None,
        completed: 0,
        total: 1,
    });
    let states = outcome
        .repositories
        .iter()
        .map(|report| {
            let entry = entries.iter().find(|e| e.name == report.name);
            // A derived provider has no commit: nothing clones it, nothing moves it.
            let git = if kivgraph_facts::is_derived(&report.name) {
                GitPosition::default()
            } else {
                read_git_position(std::path::Path::new(&report.root))
            };
            let analyzers: Vec<AnalyzerState> = report
                .analyzers
                .iter()
                .map(|run| AnalyzerState {
                    language: run.language.as_str().to_string(),
                    analyzer: run.analyzer.clone(),
                    units: run.units,
                    failures: run.failures.clone(),
                    absent: run.absent.clone(),
                    patched: run.patched.clone(),
                    not_built: run.not_built.clone(),
                })
                .collect();
            let exact = |language: Language| {
                let served = language.analyzed_as();
                analyzers
                    .iter()
                    .any(|a| a.language == served.as_str() && a.is_complete())
            };
            RepositoryState {
                name: report.name.clone(),
                path: report.root.clone(),
                languages: entry
                    .map(|e| e.languages.iter().map(|l| l.as_str().to_string()).collect())
                    .unwrap_or_default(),
                indexed_commit: git.commit.clone(),
                indexed_branch: git.branch.clone(),
                indexed_dirty: git
                    .commit
                    .as_ref()
                    .and_then(|_| working_tree_dirty(&report.root)),
                git_unavailable: git.unavailable.clone(),
                resolved_relations: entry
                    .map(|e| {
                        e.languages
                            .iter()
                            .filter_map(|token| {
                                let language = Language::parse(token.as_str()).ok()?;
                                let relations = if exact(language) {
                                    kivgraph_engine::analyzed_relations(language)
                                } else {
                                    kivgraph_engine::resolved_relations(language)
                                };
                                let relations =
                                    relations.iter().map(|k| k.as_str().to_string()).collect();
                                Some((language.as_str().to_string(), relations))
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
                analyzers,
                build_output: report
                    .build_output
                    .iter()
                    .map(|b| BuildOutputState {
                        path: b.path.clone(),
                        reason: b.reason.as_str().to_string(),
                        detail: b.detail.clone(),
                        files: b.files,
                    })
                    .collect(),
            }
        })
        .collect();
    let published = match &outcome.graph {
        PassGraph::Computed(facts) => store.publish(&lock, facts, states)?,
        PassGraph::Unchanged { generation } => {
            store.republish(&lock, GenerationId(*generation), states)?
        }
    };
    outcome.record_published(&options, published.id.0)?;
    let phases: serde_json::Map<String, serde_json::Value> = outcome
        .timings
        .phases
        .iter()
        .chain(published.timings.iter())
        .map(|(phase, duration)| (phase.to_string(), json!(duration.as_millis() as u64)))
        .collect();
    let counts = &published.manifest.counts;
    let repositories: Vec<_> = outcome
        .repositories
        .iter()
        .map(|r| {
            json!({
                "name": r.name,
                "files": r.files,
                "symbols": r.symbols,
                "parse_failures": r.parse_failures.iter().map(|(path, issues)| json!({"path": path, "issues": issues})).collect::<Vec<_>>(),
                "skipped": r.skipped.iter().map(|(path, why)| json!({"path": path, "reason": why})).collect::<Vec<_>>(),
                "build_output": r.build_output.iter().map(|b| json!({"path": b.path, "reason": b.reason.as_str(), "detail": b.detail, "files": b.files})).collect::<Vec<_>>(),
                "unavailable": r.unavailable,
                "analyzers": r.analyzers.iter().map(|a| json!({
                    "language": a.language.as_str(),
                    "analyzer": a.analyzer,
                    "units": a.units,
                    "failures": a.failures,
                    "absent": a.absent,
                    "patched": a.patched,
                    "not_built": a.not_built,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let result = json!({
        "passed": true,
        "generation_id": published.id.to_string(),
        "previous_generation_id": published.previous.map(|p| p.to_string()),
        "generation_path": published.directory,
        "counts": counts,
        "index": {
            "files_total": outcome.files_total,
            "files_analyzed": outcome.files_analyzed,
            "fact_cache": loaded.config.config.indexing.fact_cache.as_str(),
            "fact_cache_state": cache_word(&outcome.cache),
            "fact_cache_bytes": outcome.cache_bytes,
            "duration_ms": started.elapsed().as_millis() as u64,
            "phases_ms": phases,
        },
        "repositories": repositories,
        "standard_library": standard_library.map(|found| match found {
            Ok(entry) => json!({"repository": entry.name, "path": entry.path}),
            Err(why) => json!({"absent": why}),
        }),
    });
    // The computed graph takes a noticeable fraction of a second to free; the report does
    // not wait for it.
    std::thread::spawn(move || drop(outcome));
    Ok(result)
}

fn print_report(report: &serde_json::Value, seconds: f64) {
    let counts = &report["counts"];
    println!(
        "index: published generation {} (previous: {})",
        report["generation_id"].as_str().unwrap_or("?"),
        report["previous_generation_id"].as_str().unwrap_or("none")
    );
    println!(
        "  repositories {} · packages {} · files {} · symbols {} · edges {} · unresolved {}",
        counts["repositories"],
        counts["packages"],
        counts["files"],
        counts["symbols"],
        counts["edges"],
        counts["unresolved"]
    );
    for repository in report["repositories"].as_array().into_iter().flatten() {
        let name = repository["name"].as_str().unwrap_or("?");
        if let Some(reason) = repository["unavailable"].as_str() {
            println!("  {name}: not indexed: {reason}");
            continue;
        }
        let failures = repository["parse_failures"]
            .as_array()
            .map(Vec::len)
            .unwrap_or(0);
        let skipped = repository["skipped"].as_array().map(Vec::len).unwrap_or(0);
        println!(
            "  {name}: {} files, {} symbols, {failures} with parse errors, {skipped} entries skipped",
            repository["files"], repository["symbols"]
        );
        for output in repository["build_output"].as_array().into_iter().flatten() {
            let path = output["path"].as_str().unwrap_or("?");
            println!(
                "    build output, not indexed: {path}/ ({} files, {}: {})",
                output["files"],
                output["reason"].as_str().unwrap_or("?"),
                output["detail"].as_str().unwrap_or("?")
            );
        }
        for failure in repository["parse_failures"]
            .as_array()
            .into_iter()
            .flatten()
            .take(5)
        {
            println!(
                "    parse errors: {} ({} issues)",
                failure["path"].as_str().unwrap_or("?"),
                failure["issues"]
            );
        }
    }
    let library = &report["standard_library"];
    if let Some(name) = library["repository"].as_str() {
        println!("  standard library: {name} (derived; read tools withhold it unless asked)");
    } else if let Some(why) = library["absent"].as_str() {
        println!("  standard library: not indexed ({why})");
    }
    let index = &report["index"];
    println!(
        "  fact cache: {} ({}); {} of {} files analysed",
        index["fact_cache"].as_str().unwrap_or("?"),
        index["fact_cache_state"].as_str().unwrap_or("?"),
        index["files_analyzed"],
        index["files_total"]
    );
    println!("  {}", report["generation_path"].as_str().unwrap_or(""));
    println!("  took {seconds:.2} s");
}

/// Whether tracked files differ from `HEAD`, asked of git at index time (never on a query
/// path); `None` when git cannot answer.
fn working_tree_dirty(root: &str) -> Option<bool> {
    let out = std::process::Command::new("git")
        .args(["-C", root, "status", "--porcelain", "--untracked-files=no"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    out.status.success().then_some(!out.stdout.is_empty())
}
