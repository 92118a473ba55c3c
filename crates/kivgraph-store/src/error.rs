//! What can go wrong in the store, with the path each failure concerns.

use std::path::{Path, PathBuf};

use kivgraph_facts::FactSetError;

use crate::GenerationId;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("another process is publishing into this generation store")]
    Locked,
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("generation {0} does not exist")]
    UnknownGeneration(GenerationId),
    #[error("pointer {path} is corrupt: {content:?}")]
    CorruptPointer { path: PathBuf, content: String },
    #[error(
        "rollback has nowhere to go: there is no backup generation and no --generation was given"
    )]
    NothingToRollBack,
    #[error("generation {id} failed validation: {reason}")]
    Invalid { id: GenerationId, reason: String },
    #[error(transparent)]
    Invariants(#[from] FactSetError),
    #[error("cannot lay out the snapshot: {0}")]
    Snapshot(String),
}

pub(crate) fn io(
    action: &'static str,
    path: &Path,
) -> impl FnOnce(std::io::Error) -> StoreError + use<> {
    let path = path.to_path_buf();
    move |source| StoreError::Io {
        action,
        path,
        source,
    }
}
