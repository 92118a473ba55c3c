//! `graph status`, `graph query`, `rollback` and `clean`: the generation store from the
//! command line.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::anyhow;
use kivgraph_store::GenerationId;

use crate::commands::generation_arg::{GenerationArg, parse_generation};
use crate::context::ConfigArg;

#[derive(clap::Args, Debug)]
pub struct GraphArgs {
    #[command(subcommand)]
    command: GraphCommand,
}

#[derive(clap::Subcommand, Debug)]
enum GraphCommand {
    /// Report the active, next and backup generations.
    Status {
        #[command(flatten)]
        config: ConfigArg,
        /// The generation store (default: beside the configured database).
        #[arg(long, value_name = "PATH")]
        root: Option<PathBuf>,
    },
    /// Ask the active generation's canonical database a read-only Cypher question.
    Query(GraphQueryArgs),
    /// Describe the canonical database's tables, columns and relationships.
    Schema,
}

#[derive(clap::Args, Debug)]
struct GraphQueryArgs {
    #[command(flatten)]
    generation: GenerationArg,
    /// A value for `$NAME` in the query, as JSON (a bare word is text): repeatable.
    #[arg(long = "param", value_name = "NAME=VALUE")]
    parameters: Vec<String>,
    /// Rows to print at most.
    #[arg(long, default_value_t = 100)]
    limit: usize,
    /// Milliseconds before the query is stopped.
    #[arg(long, default_value_t = 30_000)]
    timeout_ms: u64,
    /// Print the answer as JSON.
    #[arg(long)]
    json: bool,
    /// One reading Cypher statement; `kivgraph graph schema` describes the tables.
    query: String,
}

#[derive(clap::Args, Debug)]
pub struct RollbackArgs {
    #[command(flatten)]
    config: ConfigArg,
    #[arg(long, value_name = "PATH")]
    root: Option<PathBuf>,
    /// The generation to return to (default: the registered backup).
    #[arg(long, value_name = "ID", add = clap_complete::engine::ArgValueCompleter::new(crate::commands::completion::generations))]
    generation: Option<String>,
}

#[derive(clap::Args, Debug)]
pub struct CleanArgs {
    #[command(flatten)]
    config: ConfigArg,
    /// Keep exactly the published generation.
    #[arg(long)]
    keep_active: bool,
    /// Remove; without it, list what would be removed and touch nothing.
    #[arg(long)]
    yes: bool,
}

pub fn run_graph(args: GraphArgs) -> anyhow::Result<ExitCode> {
    let (config, root) = match args.command {
        GraphCommand::Status { config, root } => (config, root),
        GraphCommand::Query(query) => return run_query(query),
        GraphCommand::Schema => {
            print!(
                "schema version {}\n{}",
                kivgraph_graphdb::SCHEMA_VERSION,
                kivgraph_graphdb::describe()
            );
            return Ok(ExitCode::SUCCESS);
        }
    };
    let store = config.load()?.store(root.as_ref());
    let describe = |id: Option<GenerationId>| match id {
        Some(id) => format!("{id} ({})", store.generation_dir(id).display()),
        None => "none".to_string(),
    };
    let current = store.current()?;
    let backup = store.backup()?;
    println!("graph.root: {}", store.root().display());
    println!("graph.active: {}", describe(current));
    println!("graph.next: {}", store.next_id()?);
    println!("graph.backup: {}", describe(backup));
    let generations = store.list()?;
    println!("graph.generations: {}", generations.len());
    for id in generations {
        let role = match (Some(id) == current, Some(id) == backup) {
            (true, _) => "  active",
            (_, true) => "  backup",
            _ => "",
        };
        match store.manifest(id) {
            Ok(manifest) => println!(
                "  {id}  built {}  files {}  symbols {}  edges {}{role}",
                manifest.built_at,
                manifest.counts.files,
                manifest.counts.symbols,
                manifest.counts.edges
            ),
            Err(err) => println!("  {id}  unreadable: {err}{role}"),
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn run_query(args: GraphQueryArgs) -> anyhow::Result<ExitCode> {
    let (store, id) = args.generation.resolve()?;
    let manifest = store.manifest(id)?;
    let entry = manifest.graph.ok_or_else(|| {
        anyhow!("generation {id} carries no canonical database: run kivgraph index --full")
    })?;
    let mut parameters = serde_json::Map::new();
    for parameter in &args.parameters {
        let (name, value) = parameter
            .split_once('=')
            .ok_or_else(|| anyhow!("--param {parameter:?} is not NAME=VALUE"))?;
        let value = serde_json::from_str(value)
            .unwrap_or_else(|_| serde_json::Value::String(value.to_string()));
        parameters.insert(name.trim_start_matches('$').to_string(), value);
    }
    let reader = kivgraph_graphdb::GraphReader::open(&store.generation_dir(id).join(&entry.file))?;
    let limits = kivgraph_graphdb::QueryLimits {
        rows: args.limit,
        time: std::time::Duration::from_millis(args.timeout_ms),
    };
    let answer = reader.query(&args.query, &parameters, limits)?;
    if args.json {
        let mut out = serde_json::to_value(&answer)?;
        out["generation"] = serde_json::json!(id.to_string());
        println!("{out}");
    } else {
        println!("{}", answer.columns.join("\t"));
        for row in &answer.rows {
            let cells: Vec<String> = row
                .iter()
                .map(|cell| match cell {
                    serde_json::Value::String(text) => text.clone(),
                    other => other.to_string(),
                })
                .collect();
            println!("{}", cells.join("\t"));
        }
        if answer.truncated {
            eprintln!(
                "graph query: more than {} rows matched; raise --limit or narrow the query",
                args.limit
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn run_rollback(args: RollbackArgs) -> anyhow::Result<ExitCode> {
    let store = args.config.load()?.store(args.root.as_ref());
    let target = match &args.generation {
        Some(text) => Some(parse_generation(text)?),
        None => None,
    };
    let lock = store.lock()?;
    let (from, to) = store.rollback(&lock, target)?;
    let from = from
        .map(|id| id.to_string())
        .unwrap_or_else(|| "none".into());
    println!("rollback: CURRENT {from} → {to} (verified digests, snapshot and invariants)");
    Ok(ExitCode::SUCCESS)
}

pub fn run_clean(args: CleanArgs) -> anyhow::Result<ExitCode> {
    let store = args.config.load()?.store(None);
    let lock = store.lock()?;
    let report = store.clean(&lock, args.keep_active, args.yes)?;
    let verb = if report.applied {
        "removed"
    } else {
        "would remove"
    };
    if report.generations.is_empty() {
        println!("clean: no generation to remove");
    }
    for id in &report.generations {
        println!(
            "clean: {verb} generation {id} ({})",
            store.generation_dir(*id).display()
        );
    }
    if report.removed_backup_pointer {
        println!("clean: {verb} the backup pointer: rollback will have nothing to restore");
    }
    if let Some(kept) = report.kept {
        println!("clean: kept the active generation {kept}");
    }
    if !report.applied {
        println!("clean: nothing changed; pass --yes to remove (there is no undo)");
    } else if report.kept.is_none() && !report.generations.is_empty() {
        println!("clean: restart any running serve or ui before the next index --full");
    }
    Ok(ExitCode::SUCCESS)
}
