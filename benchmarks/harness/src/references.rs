//! The reference tools on a generation of the whole corpus: warm latency of
//! `find_references`, `trace_dependencies` (depth 3) and `get_blast_radius` (depth 5), timed
//! at the client over stdio, on subjects drawn evenly from the symbols that have callers.
//!
//! ```text
//! $CARGO_TARGET_DIR/release/kivgraph-bench references --kivgraph $CARGO_TARGET_DIR/release/kivgraph
//! ```

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use kivgraph_facts::EdgeKind;
use kivgraph_snapshot::{NodeRef, Snapshot};
use kivgraph_store::GenerationStore;
use serde_json::{Value, json};

use crate::client::McpClient;
use crate::{Analyzers, corpus_dir, corpus_entries, flag, run_index, write_config};

const SUBJECTS: usize = 300;

fn percentiles(mut samples: Vec<f64>) -> Value {
    samples.sort_by(|a, b| a.total_cmp(b));
    let at = |p: f64| samples[((samples.len() as f64 - 1.0) * p).round() as usize];
    json!({"p50": at(0.5), "p95": at(0.95), "p99": at(0.99), "max": at(1.0), "samples": samples.len()})
}

pub fn references_benchmark(args: &[String]) -> anyhow::Result<()> {
    let kivgraph = PathBuf::from(flag(args, "--kivgraph").context("--kivgraph BIN is required")?);
    let corpus = corpus_dir(args);
    let entries = corpus_entries(&corpus)?;
    let work = std::env::temp_dir().join(format!("kivgraph-refs-bench-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let config = write_config(&work, &entries, "off")?;
    let (index_seconds, _) = run_index(&kivgraph, &config, Analyzers::SyntaxOnly)?;
    let store = GenerationStore::new(work.join("state"));
    let generation = store.current()?.context("no generation")?;
    let snapshot_path = store.snapshot_path(generation);
    let snapshot = Snapshot::open(&snapshot_path)?;
    // Subjects: every symbol some resolved call reaches, taken at an even stride so the
    // sample spans the corpus rather than one package.
    let called: Vec<String> = snapshot
        .symbols()
        .filter(|s| {
            snapshot.incoming(s.index).any(|e| {
                e.kind() == EdgeKind::CallsDirect && matches!(e.source(), NodeRef::Symbol(_))
            })
        })
        .map(|s| s.key().to_string())
        .collect();
    let stride = (called.len() / SUBJECTS).max(1);
    let subjects: Vec<&String> = called.iter().step_by(stride).take(SUBJECTS).collect();

    let mut client = McpClient::start(&kivgraph, &config)?;
    client.call("graph_status", json!({}))?;
    let mut timings: Vec<(&str, Vec<f64>)> = vec![
        ("find_references", Vec::new()),
        ("find_references_files_view", Vec::new()),
        ("trace_dependencies_depth_3", Vec::new()),
        ("get_blast_radius_depth_5", Vec::new()),
    ];
    let mut verdicts = std::collections::BTreeMap::<String, usize>::new();
    // The slowest `find_references` answers, to say what a tail is made of.
    let mut slowest: Vec<(f64, String, usize)> = Vec::new();
    for key in &subjects {
        let calls = [
            ("find_references", json!({"stable_key": key})),
            (
                "find_references",
                json!({"stable_key": key, "view": "files"}),
            ),
            ("trace_dependencies", json!({"stable_key": key, "depth": 3})),
            ("get_blast_radius", json!({"stable_key": key, "depth": 5})),
        ];
        for (slot, (tool, arguments)) in calls.into_iter().enumerate() {
            let started = Instant::now();
            let text = client.call(tool, arguments)?;
            timings[slot]
                .1
                .push(started.elapsed().as_secs_f64() * 1000.0);
            if slot == 0 {
                let elapsed = timings[slot].1.last().copied().unwrap_or_default();
                let subject = kivgraph_facts::StableKey::parse(key)
                    .ok()
                    .and_then(|k| snapshot.symbol_by_key(&k))
                    .map(|s| format!("{}:{}", s.file().path(), s.qualified_name()))
                    .unwrap_or_default();
                slowest.push((elapsed, subject, text.len()));
                let answer: Value = serde_json::from_str(&text)?;
                let verdict = answer["completeness"]["verdict"].as_str().unwrap_or("?");
                *verdicts.entry(verdict.to_string()).or_default() += 1;
            }
        }
    }
    drop(client);
    slowest.sort_by(|a, b| b.0.total_cmp(&a.0));
    slowest.truncate(5);
    let report = json!({
        "generation_symbols": snapshot.symbol_count(),
        "generation_edges": snapshot.edge_count(),
        "generation_unresolved": snapshot.unresolved_count(),
        "snapshot_bytes": snapshot.len_bytes(),
        "index_seconds": index_seconds,
        "symbols_with_resolved_callers": called.len(),
        "subjects": subjects.len(),
        "find_references_verdicts": verdicts,
        "find_references_slowest": slowest
            .iter()
            .map(|(ms, subject, bytes)| json!({"ms": ms, "subject": subject, "answer_bytes": bytes}))
            .collect::<Vec<_>>(),
        "latency_ms": timings.into_iter().map(|(name, samples)| (name.to_string(), percentiles(samples))).collect::<serde_json::Map<_, _>>(),
    });
    drop(snapshot);
    let _ = std::fs::remove_dir_all(&work);
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}
