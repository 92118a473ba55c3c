//! `query_graph` on the corpus: the canonical database's size, and ten typical Cypher
//! questions timed beside the fixed tool that answers the same question, where one does, in
//! one warm server (the stdio round trip included).

use std::time::Instant;

use anyhow::Context;
use kivgraph_store::GenerationStore;
use serde_json::{Value, json};

use crate::client::McpClient;
use crate::{Analyzers, corpus_dir, corpus_entries, flag, percentile, run_index, write_config};

/// Calls per question and arm.
const ROUNDS: usize = 20;

/// A question: what it asks, `query_graph`'s arguments, and the fixed tool's call that answers
/// the same question, where one does.
type Question<'a> = (&'a str, Value, Option<(&'a str, Value)>);

pub fn cypher_benchmark(args: &[String]) -> anyhow::Result<()> {
    let kivgraph = std::path::PathBuf::from(flag(args, "--kivgraph").context("--kivgraph BIN")?);
    let corpus = corpus_dir(args);
    let work = std::env::temp_dir().join(format!("kivgraph-cypher-bench-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let config = write_config(&work, &corpus_entries(&corpus)?, "off")?;
    let (seconds, _) = run_index(&kivgraph, &config, Analyzers::SyntaxOnly)?;
    let store = GenerationStore::new(work.join("state"));
    let generation = store.current()?.context("no generation")?;
    let manifest = store.manifest(generation)?;
    let database = manifest.graph.clone().context("no canonical database")?;

    let mut client = McpClient::start(&kivgraph, &config)?;
    let subject = |client: &mut McpClient, name: &str, path: &str| -> anyhow::Result<Value> {
        let found: Value = serde_json::from_str(&client.call(
            "find_symbol",
            json!({"name": name, "path_prefix": path, "view": "full"}),
        )?)?;
        Ok(found["results"][0].clone())
    };
    let function = subject(&mut client, "NewServer", "google.golang.org/grpc/server.go")?;
    let key = function["stable_key"]
        .as_str()
        .context("NewServer's key")?
        .to_string();
    let (repository, path) = (
        function["repository"]
            .as_str()
            .context("repository")?
            .to_string(),
        function["file_path"].as_str().context("path")?.to_string(),
    );
    // Each question: the Cypher, and the fixed tool's call for the same question (if any).
    let questions: Vec<Question> = vec![
        (
            "where a name is declared",
            json!({"query": "MATCH (s:Symbol {name: $n}) RETURN s.repository, s.file_path, s.start_line", "parameters": {"n": "NewServer"}}),
            Some(("find_symbol", json!({"name": "NewServer"}))),
        ),
        (
            "callers of a function",
            json!({"query": "MATCH (c)-[e:CALLS_DIRECT]->(s:Symbol {id: $k_id}) RETURN c.repository, c.file_path, c.start_line, e.confidence", "parameters": {"k": key}}),
            Some(("find_references", json!({"stable_key": key}))),
        ),
        (
            "what a function calls",
            json!({"query": "MATCH (s:Symbol {id: $k_id})-[:CALLS_DIRECT]->(t:Symbol) RETURN t.repository, t.qualified_name", "parameters": {"k": key}}),
            Some((
                "find_references",
                json!({"stable_key": key, "direction": "outgoing"}),
            )),
        ),
        (
            "who is affected within two hops",
            json!({"query": "MATCH (c:Symbol)-[:CALLS_DIRECT|REFERENCES*1..2]->(s:Symbol {id: $k_id}) RETURN DISTINCT c.repository, c.qualified_name", "parameters": {"k": key}}),
            Some(("get_blast_radius", json!({"stable_key": key, "depth": 2}))),
        ),
        (
            "a file's declarations",
            json!({"query": "MATCH (s:Symbol) WHERE s.repository = $r AND s.file_path = $p RETURN s.name, s.kind, s.start_line ORDER BY s.start_line", "parameters": {"r": repository, "p": path}}),
            Some((
                "get_file_outline",
                json!({"repository": repository, "path": path}),
            )),
        ),
        (
            "packages depending on a package",
            json!({"query": "MATCH (p:Package)-[:PACKAGE_DEPENDS_ON]->(q:Package) WHERE q.name ENDS WITH ' google.golang.org/grpc' RETURN DISTINCT p.repository, p.name"}),
            None,
        ),
        (
            "the largest fan-in",
            json!({"query": "MATCH (s:Symbol)<-[r:CALLS_DIRECT]-() RETURN s.repository, s.qualified_name, count(r) AS callers ORDER BY callers DESC LIMIT 10"}),
            None,
        ),
        (
            "unresolved references by reason",
            json!({"query": "MATCH (u:Unresolved) RETURN u.reason, count(*) AS n ORDER BY n DESC"}),
            Some(("graph_status", json!({}))),
        ),
        (
            "the repositories",
            json!({"query": "MATCH (r:Repository) RETURN r.name, r.languages"}),
            Some(("list_repositories", json!({}))),
        ),
        (
            "exported symbols nobody references",
            json!({"query": "MATCH (s:Symbol {repository: 'debian-go', exported: true, kind: 'func'}) WHERE NOT EXISTS { MATCH (s)<-[:CALLS_DIRECT|REFERENCES]-() } RETURN count(s)"}),
            None,
        ),
    ];
    let mut rows = Vec::new();
    for (question, cypher, fixed) in &questions {
        let time = |client: &mut McpClient, tool: &str, arguments: &Value| {
            let mut samples = Vec::with_capacity(ROUNDS);
            let mut answer = String::new();
            for _ in 0..ROUNDS {
                let started = Instant::now();
                answer = client.call(tool, arguments.clone())?;
                samples.push(started.elapsed().as_secs_f64() * 1000.0);
            }
            anyhow::Ok((samples, answer))
        };
        let (mut cypher_ms, answer) = time(&mut client, "query_graph", cypher)?;
        let answer: Value =
            serde_json::from_str(&answer).with_context(|| format!("{question}: {answer}"))?;
        let mut row = json!({
            "question": question,
            "cypher_rows": answer["returned"],
            "cypher_ms": {"p50": percentile(&mut cypher_ms, 0.5), "p95": percentile(&mut cypher_ms, 0.95)},
        });
        if let Some((tool, arguments)) = fixed {
            let (mut fixed_ms, _) = time(&mut client, tool, arguments)?;
            row["fixed_tool"] = json!(tool);
            row["fixed_ms"] = json!({"p50": percentile(&mut fixed_ms, 0.5), "p95": percentile(&mut fixed_ms, 0.95)});
        }
        rows.push(row);
    }
    drop(client);
    let _ = std::fs::remove_dir_all(&work);
    let symbols = manifest.counts.symbols.max(1);
    let report = json!({
        "cold_index_s": seconds,
        "symbols": manifest.counts.symbols,
        "edges": manifest.counts.edges,
        "database_bytes": database.bytes,
        "database_bytes_per_symbol": database.bytes / symbols as u64,
        "questions": rows,
    });
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}
