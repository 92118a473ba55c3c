//! The generation store: immutable, validated, published generations.
//!
//! Owns: the layout under the state directory (`generations/NNNNNN/` holding the snapshot's
//! root `snapshot.kgs` and its `pages/`, each page's facts under `facts/`, and
//! `manifest.json`, and the canonical database a plugged-in engine writes beside them
//! (`graph.rs`); a page the generation shares with the one before is a hard link to the
//! same file), the `CURRENT` and `BACKUP` pointers (temporary file,
//! rename, fsync), the non-blocking publish lock, the validation a candidate must pass before
//! it becomes `CURRENT`, rollback and clean; and where a repository's checkout stands
//! (read from `.git` without running git), which manifests record and servers compare; and
//! the running watcher's status (`watch.json`), the event log (`events.jsonl`), the daemon's
//! endpoint and token (`daemon.json`) and the records of the running processes (`run/`), which servers report and
//! `stop` reads.
//!
//! Must not know about: how facts are produced (the engine), or how they are queried. The
//! serving side uses only [`GenerationStore::current`] and [`GenerationStore::snapshot_path`].

mod canonical_graph;
mod daemon;
mod decoded;
mod error;
mod events;
mod flush;
mod generation;
mod git;
mod graph;
mod kept;
mod layout;
mod manifest;
mod pages;
mod prepared;
mod processes;
mod rebuild;
mod store;
mod time;
mod watcher;

pub use canonical_graph::CanonicalGraph;
pub use daemon::{DAEMON_FILE, DaemonRecord};
pub use error::StoreError;
pub use events::{Event, EventKind, EventLog, argument_shape};
pub use flush::{FLUSH_DIRECTORY, FlushRequest};
pub use generation::GenerationId;
pub use git::{GitPosition, read_git_position};
pub use graph::file_digest;
pub use manifest::{
    AnalyzerState, BuildOutputState, Counts, Digests, GraphEntry, Manifest, PageEntry,
    RepositoryState,
};
pub use prepared::PreparedDatabase;
pub use processes::{ProcessGuard, ProcessRecord, RUN_DIRECTORY, resident_bytes, start_ticks};
pub use rebuild::Rebuilt;
pub use store::{CleanReport, GenerationStore, PublishLock, Published, SinglePage};
pub use time::{rfc3339_utc, unix_ms};
pub use watcher::{RECENT_BATCHES, WATCHER_FILE, WatchedBatch, WatchedRepository, WatcherStatus};
