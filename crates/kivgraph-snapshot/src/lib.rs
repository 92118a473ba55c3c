//! The snapshot: per generation, a root file naming the pages servers map read-only.
//!
//! Owns: the on-disk format (the root; pages with their header, section directory,
//! 8-byte-aligned typed sections, string arena, tables and sorted indexes — the term index
//! and the vocabulary it is written in included — and the nodes other pages hold), the
//! writer that lays one page's `FactSet` out and the root over pages, and the reader that
//! validates every byte it will ever look at and then answers from the mapped pages as one
//! graph, without decoding it.
//!
//! Must not know about: how facts were produced (engine, analyzers), generations and their
//! pointers, or query semantics. The format is described in `docs/snapshot-format.md`.

mod bytes;
mod error;
mod fields;
mod format;
mod page;
mod reader;
mod snapshot;
mod tables;
mod terms;
mod views;
mod writer;

pub use error::{SnapshotError, WriteError};
pub use format::{FORMAT_VERSION, MAGIC, SectionKind, requested_name};
pub use snapshot::{NodeRef, PAGES_DIRECTORY, Snapshot, ValidatedRoot};
pub use tables::external::{ExternalNode, ExternalTable, Externals};
pub use terms::{TERM_IN_NAME, terms};
pub use views::{
    EdgeView, EvidenceView, FileView, PackageView, RepositoryView, SymbolView, UnresolvedView,
};
pub use writer::{PageFile, page_file_name, write_page, write_root};
