//! `kivgraph snapshot [--root PATH] [--generation ID]`: a generation's hot snapshot rebuilt
//! from its canonical database — never from the fact set that originated it — proven
//! byte-identical to what was published before it replaces anything. The database is only
//! read.

use std::process::ExitCode;

use crate::commands::generation_arg::GenerationArg;
use anyhow::anyhow;
use kivgraph_facts::PAGE_COUNT;
use kivgraph_graphdb::GraphReader;

#[derive(clap::Args, Debug)]
pub struct SnapshotArgs {
    #[command(flatten)]
    generation: GenerationArg,
}

pub fn run(args: SnapshotArgs) -> anyhow::Result<ExitCode> {
    let (store, id) = args.generation.resolve()?;
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
