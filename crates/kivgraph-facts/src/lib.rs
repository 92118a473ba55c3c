//! The vocabulary and the fact model of Kivgraph.
//!
//! Owns: the frozen, append-only codes (edge kinds, confidences, provenances, symbol kinds,
//! languages), the stable-key algorithm, and the plain data types every other layer exchanges
//! (repositories, packages, files, symbols, evidence, edges, unresolved references).
//!
//! Must not know about: parsing, salsa, storage formats or the MCP surface. Everything here is
//! plain data with `serde` derives so that any layer can persist or compare it.

mod graph_counts;
mod key;
mod model;
mod pages;
mod vocabulary;

pub use graph_counts::{GRAPH_SCHEMA_VERSION, GraphCounts, GraphUpdate};
pub use key::{
    KeyHasher, KeyMap, StableKey, StableKeyError, StableKeyIdentity, decode_base32, encode_base32,
    evidence_key, file_key,
};
pub use model::{
    Edge, Evidence, FactSet, FactSetError, FileFact, Fingerprint, INVARIANTS, InvariantViolation,
    LineSpan, Mention, PackageFact, ParseIssue, RepositoryFact, SymbolFact, UnresolvedReference,
};
pub use pages::{FactPage, OWN_PAGE_BYTES, PAGE_COUNT, Placement, page_of};
pub use vocabulary::{Confidence, EdgeKind, Language, Provenance, Reason, SymbolKind, UnknownCode};

/// The namespace of providers built from the machine rather than the registry (the Rust
/// standard library, `rust:1.95.0`): reserved, so the name alone tells a derived repository
/// from a registered one.
pub const DERIVED_NAMESPACE: &str = "rust:";

/// Whether a repository is a derived provider.
pub fn is_derived(repository: &str) -> bool {
    repository.starts_with(DERIVED_NAMESPACE)
}
