//! `kivgraph index --full [--json]`: one pass over every registered repository, published as
//! a new generation.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::bail;
use kivgraph_engine::Progress;
use serde_json::json;

use crate::context::ConfigArg;
use crate::pass::{OnUnchanged, PassResult, Toolchains, index_and_publish};
use crate::progress::Bars;

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
    let loaded = args.config.load()?;
    let terminal = !args.json && std::io::stderr().is_terminal();
    let bars = Bars::default();
    let last_line = Mutex::new(String::new());
    let progress = |event: Progress| {
        if args.json {
            emit(json!({"event": "progress", "progress": {
                "phase": event.phase, "repository": event.repository, "completed": event.completed, "total": event.total,
            }}));
            return;
        }
        if terminal {
            bars.show(&event);
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
            eprintln!("{line}");
            *last = line;
        }
    };
    let result = index_and_publish(
        &loaded,
        &Toolchains::default(),
        &progress,
        OnUnchanged::Republish,
        None,
    );
    bars.finish();
    match result? {
        PassResult::Published { report, .. } => Ok(report),
        PassResult::Unchanged(generation) => {
            bail!("generation {generation} was kept, though index --full republishes")
        }
    }
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
