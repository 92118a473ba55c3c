//! `kivgraph snapshot [--root PATH] [--generation ID]`: a generation's hot snapshot rebuilt
//! from its canonical database — never from the fact set that originated it — proven
//! byte-identical to what was published before it replaces anything. The database is only
//! read.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::anyhow;
use kivgraph_facts::PAGE_COUNT;
use kivgraph_graphdb::GraphReader;
use kivgraph_store::GenerationId;

use crate::context::ConfigArg;

#[derive(clap::Args, Debug)]
pub struct SnapshotArgs {
    #[command(flatten)]
    config: ConfigArg,
    /// The generation store (default: beside the configured database).
    #[arg(long, value_name = "PATH")]
    root: Option<PathBuf>,
    /// The generation to rebuild (default: the active one).
    #[arg(long, value_name = "ID", add = clap_complete::engine::ArgValueCompleter::new(crate::commands::completion::generations))]
    generation: Option<String>,
}

pub fn run(args: SnapshotArgs) -> anyhow::Result<ExitCode> {
    let store = args.config.load()?.store(args.root.as_ref());
    let id = match &args.generation {
        Some(text) => GenerationId::parse(text).ok_or_else(|| {
            anyhow!("--generation {text:?} is not a generation id such as 000123")
        })?,
        None => store
            .current()?
            .ok_or_else(|| anyhow!("no generation is active: pass --generation ID"))?,
    };
    if !store.list()?.contains(&id) {
        return Err(kivgraph_store::StoreError::UnknownGeneration(id).into());
    }
    let manifest = store.manifest(id)?;
    let entry = manifest.graph.ok_or_else(|| {
        anyhow!("generation {id} carries no canonical database to rebuild its snapshot from")
    })?;
    let database = store.generation_dir(id).join(&entry.file);
    let started = std::time::Instant::now();
    let pages = GraphReader::open(&database)?.pages(PAGE_COUNT)?;
    let read = started.elapsed();
    let lock = store.lock()?;
    let rebuilt = store.rebuild_snapshot(&lock, id, &pages)?;
    println!(
        "snapshot: generation {id} rebuilt from {} ({} pages, read in {} ms, laid out in {} ms); \
         byte-identical to the published snapshot (payload {})",
        database.display(),
        rebuilt.pages,
        read.as_millis(),
        (started.elapsed() - read).as_millis(),
        &rebuilt.snapshot_payload[..16]
    );
    Ok(ExitCode::SUCCESS)
}
