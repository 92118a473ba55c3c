//! What goes wrong opening a snapshot (every check names the table, the row and why) and
//! laying one out.

use std::path::PathBuf;

use kivgraph_facts::StableKey;

use crate::format::FORMAT_VERSION;

#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error("cannot read snapshot {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("snapshot is {0} bytes, shorter than its header")]
    TooSmall(usize),
    #[error("not a kivgraph snapshot (bad magic)")]
    BadMagic,
    #[error("snapshot format version {0} is not supported by this build (reads {FORMAT_VERSION})")]
    UnsupportedVersion(u32),
    #[error(
        "snapshot is truncated or padded: header says {expected} payload bytes, file has {actual}"
    )]
    Truncated { expected: u64, actual: u64 },
    #[error("snapshot payload digest does not match its header: the file is corrupt")]
    DigestMismatch,
    #[error("snapshot section directory is invalid: {0}")]
    Directory(String),
    #[error("snapshot {table} record {index} is invalid: {reason}")]
    Record {
        table: &'static str,
        index: usize,
        reason: String,
    },
    #[error("snapshot root is invalid: {0}")]
    Root(String),
}

#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("edge {kind} points at {key}, which no table declares")]
    DanglingEdge { kind: &'static str, key: StableKey },
    #[error("symbol {0} is declared in a file the fact set does not hold")]
    OrphanSymbol(StableKey),
    #[error("the fact set is too large for 32-bit offsets ({0})")]
    TooLarge(&'static str),
}
