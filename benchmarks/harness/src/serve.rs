//! The MCP server on a generation of the Go, Python and TypeScript corpora: handshake, first
//! answer, warm latencies, and the token benchmark.

use std::time::Instant;

use anyhow::Context;
use kivgraph_snapshot::Snapshot;
use kivgraph_store::GenerationStore;
use serde_json::{Value, json};

use crate::client::McpClient;
use crate::{Analyzers, corpus_workspace, percentile, run_index, tokens};

pub fn serve_benchmark(args: &[String]) -> anyhow::Result<()> {
    let (kivgraph, corpus, work, config) = corpus_workspace(args, "serve", "off")?;
    run_index(&kivgraph, &config, Analyzers::SyntaxOnly)?;
    let store = GenerationStore::new(work.join("state"));
    let generation = store.current()?.context("no generation")?;
    let symbol_count = Snapshot::open(&store.snapshot_path(generation))?.symbol_count();

    // Cold: a fresh process each time, to the handshake and to the first answer.
    let mut handshakes = Vec::new();
    let mut first_answers = Vec::new();
    for _ in 0..15 {
        let started = Instant::now();
        let mut client = McpClient::start(&kivgraph, &config)?;
        handshakes.push(client.handshake.as_secs_f64() * 1000.0);
        client.call("find_symbol", json!({"name": "NewServer"}))?;
        first_answers.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    // Warm: one process, many calls, timed at the client (the stdio round trip included).
    let mut client = McpClient::start(&kivgraph, &config)?;
    let full: Value = serde_json::from_str(
        &client.call("find_symbol", json!({"name": "NewRouter", "view": "full"}))?,
    )?;
    let key = full["results"][0]["stable_key"]
        .as_str()
        .context("a stable key")?
        .to_string();
    // graph_status counts the whole snapshot on its first call in a process, then answers
    // from that count.
    let mut first_status = Vec::new();
    for _ in 0..5 {
        let mut fresh = McpClient::start(&kivgraph, &config)?;
        let started = Instant::now();
        fresh.call("graph_status", json!({}))?;
        first_status.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    let mut status = Vec::new();
    for _ in 0..100 {
        let started = Instant::now();
        client.call("graph_status", json!({}))?;
        status.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    let mut find = Vec::new();
    let mut get = Vec::new();
    for i in 0..1000 {
        let name = ["NewServer", "Session", "filter", "Subject", "ExecuteC"][i % 5];
        let started = Instant::now();
        client.call("find_symbol", json!({"name": name}))?;
        find.push(started.elapsed().as_secs_f64() * 1000.0);
        let started = Instant::now();
        client.call("get_symbol", json!({"stable_key": key}))?;
        get.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    let tokens = tokens::run(&mut client, &corpus)?;
    drop(client);
    let _ = std::fs::remove_dir_all(&work);
    let report = json!({
        "generation_symbols": symbol_count,
        "handshake_ms": {"median": percentile(&mut handshakes, 0.5), "max": percentile(&mut handshakes, 1.0)},
        "first_find_symbol_ms": {"median": percentile(&mut first_answers, 0.5), "max": percentile(&mut first_answers, 1.0)},
        "warm_find_symbol_ms": {"p50": percentile(&mut find, 0.5), "p99": percentile(&mut find, 0.99)},
        "warm_get_symbol_ms": {"p50": percentile(&mut get, 0.5), "p99": percentile(&mut get, 0.99)},
        "first_graph_status_ms": {"median": percentile(&mut first_status, 0.5), "max": percentile(&mut first_status, 1.0)},
        "warm_graph_status_ms": {"p50": percentile(&mut status, 0.5), "p99": percentile(&mut status, 0.99)},
        "tokens": tokens,
    });
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}
