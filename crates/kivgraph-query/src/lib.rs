//! Query semantics over a published snapshot: what every tool of the surface means.
//!
//! Owns: the answer machinery shared by every tool — the envelope and its `compact`/`full`
//! views, grouping, cursors, selectors, stable error codes — and each tool's semantics as a
//! function from validated arguments and a [`Published`] generation to a JSON answer.
//!
//! Must not know about: how facts are produced (engine, analyzers) or how they travel (MCP,
//! stdio). It reads the memory-mapped snapshot and the generation's manifest, nothing else.

mod args;
mod census;
mod checkout;
mod cursor;
mod envelope;
mod error;
mod freshness;
mod holder;
mod labelled;
mod packages;
mod published;
mod reach;
mod schema;
mod scopes;
mod search_gate;
mod selector;
mod staleness;
mod test_files;
#[cfg(test)]
mod testing;
mod tools;
mod traverse;

pub use args::{Limit, PageArgs, PageLimits, ResponseFormat, View};
pub use checkout::Roots;
pub use cursor::QueryIdentity;
pub use envelope::{Coverage, Page};
pub use error::{ErrorCode, QueryError};
pub use freshness::{Wait, WaitOutcome};
pub use published::{Published, canonical_identity};
pub use search_gate::{Declaration, SearchQuestion, SharedName, shared_name};
pub use selector::{Selector, SelectorArgs};
pub use staleness::{Change, StaleFile};
pub use tools::find_by_intent::{FindByIntentArgs, find_by_intent};
pub use tools::find_cross_repo_consumers::{CrossRepoConsumersArgs, find_cross_repo_consumers};
pub use tools::find_references::{FindReferencesArgs, find_references};
pub use tools::find_symbol::{FindSymbolArgs, find_symbol};
pub use tools::get_blast_radius::get_blast_radius;
pub use tools::get_file_outline::{FileOutlineArgs, get_file_outline};
pub use tools::get_source::{GetSourceArgs, get_source};
pub use tools::get_symbol::{GetSymbolArgs, get_symbol};
pub use tools::graph_status::{GraphStatusArgs, LiveProcesses, graph_status};
pub use tools::list_repositories::{ListRepositoriesArgs, list_repositories};
pub use tools::module_report::{ModuleReportArgs, module_report};
pub use tools::read_symbol::{ReadSymbolArgs, read_symbol};
pub use tools::trace_dependencies::trace_dependencies;
pub use traverse::{BlastRadiusArgs, TraceDependenciesArgs, WalkArgs};
