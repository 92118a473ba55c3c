//! Exact analyzers: running a SCIP indexer on one analysis unit and decoding what it says.
//!
//! Owns: locating each analyzer (`scip-typescript`, `scip-python`, `rust-analyzer`, our go/types worker,
//! and any SCIP indexer the configuration plugs in) and
//! its exact version, running it hermetically — its project file and output in a scratch
//! directory, never a byte written inside an indexed repository —
//! and decoding its SCIP index into plain occurrences: a document's path, a position, the
//! symbol string the analyzer resolved there, whether it is the definition.
//!
//! Must not know about: stable keys, packages, the fact model's edges, salsa or storage.
//! Which declaration an occurrence names, and what class of use it is, is decided by the
//! engine, which joins these occurrences with the syntax layer's declarations and sites.

mod configured;
mod go;
mod mirror;
mod patched;
mod runner;
mod rust;
mod scip_index;

pub use configured::{OUTPUT_PLACEHOLDER, ROOT_PLACEHOLDER, ScipIndexer};
pub use go::{GoAnalyzer, GoSettings, GoUnit};
pub use runner::{
    Analyzer, AnalyzerError, Configured, PythonUnit, Toolchain, TypescriptUnit, nearest_tsconfig,
};
pub use rust::{NotResolvedOffline, RustAnalyzer, RustSettings, RustUnit, cargo_resolves_offline};
pub use scip_index::{ColumnEncoding, LineIndex, Occurrence, ScipDocument, ScipIndex, decode};
