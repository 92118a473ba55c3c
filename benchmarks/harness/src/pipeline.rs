//! Fact sets from anywhere, measured: the corpus indexed by one `index --full`, against the
//! same corpus recorded repository by repository (`index --facts-only`, as separate batch
//! jobs would) and merged by `rebuild --facts` on a configuration with no repository. The
//! digests of the two generations must be equal.
//!
//! ```text
//! kivgraph-bench pipeline --kivgraph BIN [--corpus DIR] [--analyzers]
//! ```
//! Without `--analyzers` every pass is the syntax layer alone (as the `index` benchmark);
//! with it, the installed exact analyzers run where each repository is recorded.

use std::path::Path;

use anyhow::{Context, bail};
use serde_json::{Value, json};

use crate::{
    Analyzers, children_max_rss_kib, corpus_dir, corpus_entries, flag, run_json, write_config,
};

fn manifest(result: &Value) -> anyhow::Result<Value> {
    let directory = result["generation_path"]
        .as_str()
        .context("no generation_path")?;
    let text = std::fs::read_to_string(Path::new(directory).join("manifest.json"))?;
    Ok(serde_json::from_str(&text)?)
}

pub fn pipeline_benchmark(args: &[String]) -> anyhow::Result<()> {
    let kivgraph = flag(args, "--kivgraph").context("--kivgraph BIN is required")?;
    let kivgraph = Path::new(&kivgraph);
    let analyzers = if args.iter().any(|a| a == "--analyzers") {
        Analyzers::Installed
    } else {
        Analyzers::SyntaxOnly
    };
    let entries = corpus_entries(&corpus_dir(args))?;
    let work = std::env::temp_dir().join(format!("kivgraph-pipeline-bench-{}", std::process::id()));
    let (indexer, merger, facts) = (
        work.join("indexer"),
        work.join("merger"),
        work.join("facts"),
    );
    for dir in [&indexer, &merger, &facts] {
        std::fs::create_dir_all(dir)?;
    }
    let config = write_config(&indexer, &entries, "off")?;
    let merge_config = write_config(&merger, &[], "off")?;

    let (full_seconds, full) =
        run_json(kivgraph, &["index", "--full", "--json"], &config, analyzers)?;
    let full_rss_kib = children_max_rss_kib();
    let mut recorded = Vec::new();
    for entry in &entries {
        let out = facts.join(format!("{}.kgfacts", entry.name));
        let out_text = out.to_string_lossy().to_string();
        let (seconds, result) = run_json(
            kivgraph,
            &[
                "index",
                "--facts-only",
                "--repository",
                &entry.name,
                "--out",
                &out_text,
                "--json",
            ],
            &config,
            analyzers,
        )?;
        recorded.push(json!({
            "repository": entry.name,
            "seconds": seconds,
            "bytes": result["bytes"],
            "files": result["files"],
            "units": result["units"],
        }));
        eprintln!("pipeline: recorded {} in {seconds:.2} s", entry.name);
    }
    let mut rebuild_args = vec!["rebuild", "--json", "--facts"];
    let paths: Vec<String> = recorded
        .iter()
        .map(|r| {
            facts
                .join(format!(
                    "{}.kgfacts",
                    r["repository"].as_str().unwrap_or("?")
                ))
                .to_string_lossy()
                .to_string()
        })
        .collect();
    rebuild_args.extend(paths.iter().map(String::as_str));
    // The merge runs no analyzer whatever is installed: it is given none.
    let (merge_seconds, merged) = run_json(
        kivgraph,
        &rebuild_args,
        &merge_config,
        Analyzers::SyntaxOnly,
    )?;
    let peak_rss_kib = children_max_rss_kib();
    let (full_manifest, merged_manifest) = (manifest(&full)?, manifest(&merged)?);
    let equal = full_manifest["digests"] == merged_manifest["digests"];
    if !equal {
        bail!(
            "the merged generation differs: {} against {}",
            merged_manifest["digests"],
            full_manifest["digests"]
        );
    }
    let seconds = |r: &Value| r["seconds"].as_f64().unwrap_or(0.0);
    let recorded_sum: f64 = recorded.iter().map(seconds).sum();
    let recorded_max = recorded.iter().map(seconds).fold(0.0, f64::max);
    let fact_set_bytes: u64 = recorded.iter().filter_map(|r| r["bytes"].as_u64()).sum();
    let report = json!({
        "analyzers": analyzers == Analyzers::Installed,
        "counts": full["counts"],
        "index_full_seconds": full_seconds,
        "index_full_peak_rss_mib": full_rss_kib / 1024,
        "recorded": recorded,
        "recorded_seconds_sum": recorded_sum,
        "recorded_seconds_longest": recorded_max,
        "fact_set_bytes": fact_set_bytes,
        "rebuild_seconds": merge_seconds,
        "rebuild_phases_ms": merged["phases_ms"],
        "peak_rss_mib_any_step": peak_rss_kib / 1024,
        "digests_equal": equal,
        "digests": merged_manifest["digests"],
        "split_in_parallel_seconds": recorded_max + merge_seconds,
    });
    println!("{}", serde_json::to_string_pretty(&report)?);
    std::fs::remove_dir_all(&work).ok();
    Ok(())
}
