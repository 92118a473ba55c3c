//! The walk `trace_dependencies` and `get_blast_radius` share: the same bounded
//! breadth-first walk over the snapshot's adjacency, outward over outgoing edges or
//! backwards over incoming ones.
//!
//! One file a job: the arguments and their bounds (`args`), the walk (`walk`), the answer's
//! rows (`rows`); each tool is its file in `crate::tools`.

pub(crate) mod args;
pub(crate) mod rows;
pub(crate) mod walk;

pub use args::{BlastRadiusArgs, TraceDependenciesArgs, WalkArgs};
