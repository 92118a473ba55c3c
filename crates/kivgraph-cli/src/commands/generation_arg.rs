//! `--root PATH` and `--generation ID`, shared by the commands that read one published
//! generation (`graph query`, `snapshot`), and the `--generation` value every command parses.

use std::path::PathBuf;

use kivgraph_store::{GenerationId, GenerationStore, StoreError};

use crate::context::ConfigArg;

// `--root PATH` and `--generation ID`: one published generation, the active one by default.
// (A plain comment: clap would take a doc comment of a flattened group as the description
// of every command it joins.)
#[derive(clap::Args, Debug)]
pub struct GenerationArg {
    #[command(flatten)]
    pub config: ConfigArg,
    /// The generation store (default: beside the configured database).
    #[arg(long, value_name = "PATH")]
    root: Option<PathBuf>,
    /// The generation (default: the active one).
    #[arg(long, value_name = "ID", add = clap_complete::engine::ArgValueCompleter::new(crate::commands::completion::generations))]
    generation: Option<String>,
}

impl GenerationArg {
    /// The store and the generation named; one that does not exist is refused.
    pub fn resolve(&self) -> anyhow::Result<(GenerationStore, GenerationId)> {
        let store = self.config.load()?.store(self.root.as_ref());
        let id = match &self.generation {
            Some(text) => {
                let id = parse_generation(text)?;
                if !store.list()?.contains(&id) {
                    return Err(StoreError::UnknownGeneration(id).into());
                }
                id
            }
            None => store.current()?.ok_or_else(|| {
                anyhow::anyhow!(
                    "no generation is active: run kivgraph index --full, or pass --generation"
                )
            })?,
        };
        Ok((store, id))
    }
}

/// A `--generation` value.
pub fn parse_generation(text: &str) -> anyhow::Result<GenerationId> {
    GenerationId::parse(text).ok_or_else(|| {
        anyhow::anyhow!("--generation {text:?} is not a generation id such as 000123")
    })
}
