//! `kivgraph index --full [--json]`: one pass over every registered repository, published as
//! a new generation; `kivgraph index --facts-only --repository NAME --out PATH`: one
//! repository recorded as a fact set, published nowhere (`rebuild --facts` merges it).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::bail;
use serde_json::json;

use crate::context::ConfigArg;
use crate::pass::{OnUnchanged, PassResult, Toolchains, index_and_publish, record_repository};
use crate::progress::{PassProgress, conclude};
use crate::publication::counts_line;

#[derive(clap::Args, Debug)]
pub struct IndexArgs {
    #[command(flatten)]
    config: ConfigArg,
    /// Analyse every registered repository and publish a generation.
    #[arg(long, conflicts_with = "facts_only")]
    full: bool,
    /// Record one repository (`--repository`) as a fact set (`--out`) and publish nothing:
    /// `kivgraph rebuild --facts` merges fact sets recorded anywhere.
    #[arg(long, requires_all = ["repository", "out"])]
    facts_only: bool,
    /// The registered repository `--facts-only` records.
    #[arg(long, value_name = "NAME", requires = "facts_only")]
    repository: Option<String>,
    /// Where `--facts-only` writes the fact set.
    #[arg(long, value_name = "PATH", requires = "facts_only")]
    out: Option<PathBuf>,
    /// stdout carries only newline-delimited JSON events: `progress`, then one `result`.
    #[arg(long)]
    json: bool,
}

pub fn run(args: IndexArgs) -> anyhow::Result<ExitCode> {
    if !args.full && !args.facts_only {
        bail!(
            "index requires --full (a pass analyses every registered repository) or --facts-only --repository NAME --out PATH"
        );
    }
    let started = Instant::now();
    let outcome = if args.facts_only {
        record(&args)
    } else {
        index(&args)
    };
    conclude(outcome, args.json, |report| {
        let seconds = started.elapsed().as_secs_f64();
        if args.facts_only {
            print_recorded(report, seconds)
        } else {
            print_report(report, seconds)
        }
    })
}

fn index(args: &IndexArgs) -> anyhow::Result<serde_json::Value> {
    let loaded = args.config.load()?;
    let progress = PassProgress::new("index", args.json);
    let result = index_and_publish(
        &loaded,
        &Toolchains::default(),
        &|event| progress.report(event),
        OnUnchanged::Republish,
        None,
    );
    progress.finish();
    match result? {
        PassResult::Published { report, .. } => Ok(report),
        PassResult::Unchanged(generation) => {
            bail!("generation {generation} was kept, though index --full republishes")
        }
    }
}

/// `--facts-only`: records the repository and writes its fact set.
fn record(args: &IndexArgs) -> anyhow::Result<serde_json::Value> {
    let (Some(name), Some(out)) = (&args.repository, &args.out) else {
        bail!("--facts-only needs --repository NAME and --out PATH");
    };
    let loaded = args.config.load()?;
    let progress = PassProgress::new("index", args.json);
    let recorded = record_repository(&loaded, name, &|event| progress.report(event));
    progress.finish();
    let fact_set = recorded?;
    let bytes = fact_set.write(out)?;
    let repository = &fact_set.repository;
    Ok(json!({
        "passed": true,
        "fact_set": out,
        "bytes": bytes,
        "repository": repository.entry.name,
        "files": repository.files.iter().flatten().count(),
        "units": repository.units.len(),
        "commit": fact_set.checkout.git.commit,
        "workspace": repository.workspace,
    }))
}

fn print_recorded(report: &serde_json::Value, seconds: f64) {
    println!(
        "index: recorded {} as a fact set: {} ({} bytes), nothing published",
        report["repository"].as_str().unwrap_or("?"),
        report["fact_set"].as_str().unwrap_or("?"),
        report["bytes"]
    );
    println!(
        "  {} files, {} analyzer units answered",
        report["files"], report["units"]
    );
    println!("  merge it with: kivgraph rebuild --facts PATH...");
    println!("  took {seconds:.2} s");
}

fn print_report(report: &serde_json::Value, seconds: f64) {
    println!(
        "index: published generation {} (previous: {})",
        report["generation_id"].as_str().unwrap_or("?"),
        report["previous_generation_id"].as_str().unwrap_or("none")
    );
    println!("  {}", counts_line(&report["counts"]));
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
