//! The snapshot file: one versioned binary file per generation that servers map read-only.
//!
//! Owns: the on-disk format (header, section directory, 8-byte-aligned typed sections, string
//! arena, tables and sorted indexes — the term index and the vocabulary it is written in
//! included), the writer that lays a `FactSet` out in it, and the reader that validates every
//! byte it will ever look at and then answers from the mapped pages without decoding the
//! graph.
//!
//! Must not know about: how facts were produced (engine, analyzers), generations and their
//! pointers, or query semantics. The format is described in `docs/snapshot-format.md`.

mod format;
mod reader;
mod terms;
mod writer;

pub use format::{FORMAT_VERSION, MAGIC, SectionKind, requested_name};
pub use reader::{
    EdgeView, EvidenceView, FileView, NodeRef, PackageView, RepositoryView, Snapshot,
    SnapshotError, SymbolView, UnresolvedView,
};
pub use terms::{TERM_IN_NAME, terms};
pub use writer::{WriteError, restamp_generation, write_snapshot};
