//! What one statement costs to checkpoint in a published canonical database: the floor under
//! a warm edit's database lap. Each statement runs on a fresh copy of the database (so none
//! sees another's writes, and written back first, as a pass's copy is), then `CHECKPOINT`;
//! both are timed, `ROUNDS` times each.
//!
//! ```text
//! kivgraph-bench checkpoint --database STATE/generations/ID/graph.lbdb
//! ```

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use lbug::Connection;
use serde_json::{Value, json};

use crate::{flag, percentile};

/// Copies per statement.
const ROUNDS: usize = 5;

/// What a warm edit asks of the database, one row at a time, smallest first.
const STATEMENTS: &[(&str, &str)] = &[
    ("nothing", "RETURN 1"),
    (
        "SET an integer column of one symbol",
        "MATCH (s:Symbol) WITH s LIMIT 1 SET s.start_line = s.start_line + 1",
    ),
    (
        "SET a text column of one symbol",
        "MATCH (s:Symbol) WITH s LIMIT 1 SET s.name = s.name + '_'",
    ),
    (
        "CREATE one symbol",
        "CREATE (:Symbol {id: -1, key: 'checkpoint-benchmark', name: 'checkpoint_benchmark'})",
    ),
    (
        "CREATE one CALLS_DIRECT edge",
        "MATCH (a:Symbol), (b:Symbol) WITH a, b LIMIT 1 CREATE (a)-[:CALLS_DIRECT]->(b)",
    ),
    (
        "DELETE one CALLS_DIRECT edge",
        "MATCH ()-[e:CALLS_DIRECT]->() WITH e LIMIT 1 DELETE e",
    ),
    (
        "DELETE one DEFINES edge",
        "MATCH ()-[e:DEFINES]->() WITH e LIMIT 1 DELETE e",
    ),
    (
        "DETACH DELETE one evidence node",
        "MATCH (v:Evidence) WITH v LIMIT 1 DETACH DELETE v",
    ),
    (
        "DETACH DELETE one symbol",
        "MATCH (s:Symbol) WITH s LIMIT 1 DETACH DELETE s",
    ),
    (
        "DELETE one symbol's edges, as an update does first",
        "MATCH (t:Symbol) WITH min(t.id) AS m MATCH ()-[e]->(s:Symbol {id: m}) DELETE e; \
         MATCH (t:Symbol) WITH min(t.id) AS m MATCH (s:Symbol {id: m})-[e]->() DELETE e",
    ),
    (
        "DELETE one symbol's edges, then the symbol, as an update does",
        "MATCH (t:Symbol) WITH min(t.id) AS m MATCH ()-[e]->(s:Symbol {id: m}) DELETE e; \
         MATCH (t:Symbol) WITH min(t.id) AS m MATCH (s:Symbol {id: m})-[e]->() DELETE e; \
         MATCH (t:Symbol) WITH min(t.id) AS m MATCH (s:Symbol {id: m}) DELETE s",
    ),
];

pub fn checkpoint_benchmark(args: &[String]) -> anyhow::Result<()> {
    let database = PathBuf::from(flag(args, "--database").context("--database PATH")?);
    let scratch = tempfile::tempdir_in(database.parent().context("database's directory")?)?;
    let mut rows = Vec::new();
    for (what, statement) in STATEMENTS {
        let (mut run, mut checkpoint) = (Vec::new(), Vec::new());
        for round in 0..ROUNDS {
            let copy = scratch.path().join(format!("copy-{round}.lbdb"));
            std::fs::copy(&database, &copy)?;
            // On disk before it opens, as the pass's copy is written back while it computes:
            // what the checkpoint then syncs is the statement's own pages.
            std::fs::File::open(&copy)?.sync_data()?;
            let (statement_ms, checkpoint_ms) = timed(&copy, statement)?;
            run.push(statement_ms);
            checkpoint.push(checkpoint_ms);
            std::fs::remove_file(&copy)?;
            let _ = std::fs::remove_file(copy.with_extension("lbdb.wal"));
        }
        let median = percentile(&mut checkpoint, 0.5);
        eprintln!("{what}: checkpoint p50 {median:.0} ms");
        rows.push(json!({
            "statement": what,
            "cypher": statement,
            "statement_ms_p50": percentile(&mut run, 0.5),
            "checkpoint_ms_p50": median,
            "checkpoint_ms_min": checkpoint[0],
            "checkpoint_ms_max": checkpoint[ROUNDS - 1],
        }));
    }
    let report: Value = json!({
        "database": database,
        "database_bytes": std::fs::metadata(&database)?.len(),
        "rounds": ROUNDS,
        "statements": rows,
    });
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}

/// Runs `statement` (statements separated by `; `, in turn) then `CHECKPOINT` on the
/// database at `path`, opened as a warm update opens it; returns both times in milliseconds.
fn timed(path: &Path, statement: &str) -> anyhow::Result<(f64, f64)> {
    let database = kivgraph_graphdb::open_for_writing(path)?;
    let connection = Connection::new(&database).map_err(|e| anyhow::anyhow!("connect: {e}"))?;
    let start = Instant::now();
    for statement in statement.split("; ") {
        connection
            .query(statement)
            .map_err(|e| anyhow::anyhow!("{statement}: {e}"))?;
    }
    let ran = start.elapsed().as_secs_f64() * 1e3;
    let start = Instant::now();
    connection
        .query("CHECKPOINT")
        .map_err(|e| anyhow::anyhow!("CHECKPOINT: {e}"))?;
    Ok((ran, start.elapsed().as_secs_f64() * 1e3))
}
