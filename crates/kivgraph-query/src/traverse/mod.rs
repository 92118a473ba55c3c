//! `trace_dependencies` and `get_blast_radius`: the same bounded breadth-first walk over the
//! snapshot's adjacency, outward over outgoing edges or backwards over incoming ones.
//!
//! One file a job: the arguments and their bounds (`args`), the walk (`walk`), the answer's
//! rows (`rows`), and each tool (`trace`, `blast`).

mod args;
mod blast;
mod rows;
mod trace;
mod walk;

pub use args::{BlastRadiusArgs, TraceDependenciesArgs, WalkArgs};
pub use blast::get_blast_radius;
pub use trace::trace_dependencies;
