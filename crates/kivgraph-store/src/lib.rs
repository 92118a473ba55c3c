//! The generation store: immutable, validated, published generations.
//!
//! Owns: the layout under the state directory (`generations/NNNNNN/` holding `facts.bin`,
//! `snapshot.kgs` and `manifest.json`), the `CURRENT` and `BACKUP` pointers (temporary file,
//! rename, fsync), the non-blocking publish lock, the validation a candidate must pass before
//! it becomes `CURRENT`, rollback and clean.
//!
//! Must not know about: how facts are produced (the engine), or how they are queried. The
//! serving side uses only [`GenerationStore::current`] and [`GenerationStore::snapshot_path`].

mod generation;
mod manifest;
mod store;
mod time;

pub use generation::GenerationId;
pub use manifest::{Counts, Digests, Manifest, RepositoryState};
pub use store::{CleanReport, GenerationStore, PublishLock, Published, StoreError};
pub use time::rfc3339_utc;
