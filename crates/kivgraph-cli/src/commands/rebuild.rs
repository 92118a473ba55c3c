//! `kivgraph rebuild --facts PATH... [--root PATH] [--json]`: one generation published from
//! fact sets recorded anywhere (`index --facts-only`), merged and resolved across each other
//! on this machine, with no checkout, toolchain or analyzer needed here.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::bail;
use kivgraph_config::{LoadedConfig, RepositoryEntry};
use kivgraph_engine::{AnalyzerOptions, PassGraph, RecordedRepository, run_pass_from_records};
use serde_json::json;

use crate::context::{ConfigArg, store_of};
use crate::fact_set::FactSetFile;
use crate::pass::pass_options;
use crate::progress::{PassProgress, conclude};
use crate::publication::{
    Checkout, counts_line, phases_report, record_pass_event, repositories_report, repository_states,
};

#[derive(clap::Args, Debug)]
pub struct RebuildArgs {
    #[command(flatten)]
    config: ConfigArg,
    /// Fact sets written by `kivgraph index --facts-only`, one repository each.
    #[arg(long, value_name = "PATH", num_args = 1.., required = true)]
    facts: Vec<PathBuf>,
    /// The generation store to publish into (default: the configured one).
    #[arg(long, value_name = "PATH")]
    root: Option<PathBuf>,
    /// stdout carries only newline-delimited JSON events: `progress`, then one `result`.
    #[arg(long)]
    json: bool,
}

pub fn run(args: RebuildArgs) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    // A machine that only merges needs no configuration: the defaults place its state.
    let (config, _) = args.config.load_or_default()?;
    let outcome = rebuild(&args, &config);
    let (state, generation) = match &outcome {
        Ok(report) => (
            "published",
            report["generation_id"].as_str().map(String::from),
        ),
        Err(_) => ("failed", None),
    };
    record_pass_event(
        &config.event_log_path,
        "rebuild",
        "rebuild --facts",
        state,
        generation,
        started,
    );
    conclude(outcome, args.json, |report| {
        print_report(report, started.elapsed().as_secs_f64())
    })
}

fn rebuild(args: &RebuildArgs, config: &LoadedConfig) -> anyhow::Result<serde_json::Value> {
    let fact_sets = args
        .facts
        .iter()
        .map(|path| FactSetFile::read(path))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let store = store_of(config, args.root.as_ref());
    let lock = store.lock()?;
    let names: Vec<&str> = fact_sets
        .iter()
        .map(|f| f.repository.entry.name.as_str())
        .collect();
    let merged: Vec<_> = args
        .facts
        .iter()
        .zip(&fact_sets)
        .map(|(path, fact_set)| {
            let repository = &fact_set.repository;
            json!({
                "path": path,
                "repository": repository.entry.name,
                "units": repository.units.len(),
                "commit": fact_set.checkout.git.commit,
                // Repositories its analyzers saw that this merge lacks: uses they bound
                // there reach no declaration of this graph.
                "missing_from_merge": repository.missing_from(&names),
            })
        })
        .collect();
    let (entries, checkouts): (Vec<RepositoryEntry>, Vec<Checkout>) = fact_sets
        .iter()
        .map(|f| (f.repository.entry.clone(), f.checkout.clone()))
        .unzip();
    // The records are handed over, not copied: their texts and answers are most of a merge.
    let records: Vec<RecordedRepository> = fact_sets.into_iter().map(|f| f.repository).collect();
    let options = pass_options(
        config,
        AnalyzerOptions {
            scratch: config.paths.state_dir.join("analyzer-scratch"),
            ..AnalyzerOptions::default()
        },
    );
    let progress = PassProgress::new("rebuild", args.json);
    let outcome = run_pass_from_records(records, &options, &|event| progress.report(event));
    progress.finish();
    let outcome = outcome?;
    let PassGraph::Computed(pages) = &outcome.graph else {
        bail!("a merge of fact sets always computes its graph");
    };
    let states = repository_states(&entries, &outcome, |report| {
        entries
            .iter()
            .zip(&checkouts)
            .find(|(entry, _)| entry.name == report.name)
            .map(|(_, checkout)| checkout.clone())
            .unwrap_or_default()
    });
    let published = store.publish(&lock, pages, states)?;
    Ok(json!({
        "passed": true,
        "generation_id": published.id.to_string(),
        "previous_generation_id": published.previous.map(|p| p.to_string()),
        "generation_path": published.directory,
        "counts": published.manifest.counts,
        "digests": published.manifest.digests,
        "fact_sets": merged,
        "repositories": repositories_report(&outcome),
        "phases_ms": phases_report(&outcome, &published),
    }))
}

fn print_report(report: &serde_json::Value, seconds: f64) {
    println!(
        "rebuild: published generation {} (previous: {}) from {} fact sets",
        report["generation_id"].as_str().unwrap_or("?"),
        report["previous_generation_id"].as_str().unwrap_or("none"),
        report["fact_sets"].as_array().map_or(0, Vec::len)
    );
    println!("  {}", counts_line(&report["counts"]));
    for fact_set in report["fact_sets"].as_array().into_iter().flatten() {
        let name = fact_set["repository"].as_str().unwrap_or("?");
        println!(
            "  {name}: {} analyzer units recorded ({})",
            fact_set["units"],
            fact_set["path"].as_str().unwrap_or("?")
        );
        let missing: Vec<&str> = fact_set["missing_from_merge"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| m.as_str())
            .collect();
        if !missing.is_empty() {
            println!(
                "    recorded beside {}, which this merge lacks: uses its analyzers bound there reach nothing here",
                missing.join(", ")
            );
        }
    }
    println!("  {}", report["generation_path"].as_str().unwrap_or(""));
    println!("  took {seconds:.2} s");
}
