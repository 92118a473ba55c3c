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
mod consumers;
mod cursor;
mod envelope;
mod error;
mod find_symbol;
mod get_symbol;
mod intent;
mod labelled;
mod list_repositories;
mod navigate;
mod outline;
mod published;
mod reach;
mod references;
mod schema;
mod scopes;
mod selector;
mod source;
mod status;
mod test_files;
#[cfg(test)]
mod testing;
mod traverse;

pub use args::{Limit, PageArgs, PageLimits, ResponseFormat, View};
pub use consumers::{CrossRepoConsumersArgs, find_cross_repo_consumers};
pub use cursor::QueryIdentity;
pub use envelope::{Coverage, Page};
pub use error::{ErrorCode, QueryError};
pub use find_symbol::{FindSymbolArgs, find_symbol};
pub use get_symbol::{GetSymbolArgs, get_symbol};
pub use intent::{FindByIntentArgs, find_by_intent};
pub use list_repositories::{ListRepositoriesArgs, list_repositories};
pub use navigate::{ModuleReportArgs, ReadSymbolArgs, Roots, module_report, read_symbol};
pub use outline::{FileOutlineArgs, get_file_outline};
pub use published::{Published, canonical_identity};
pub use references::{FindReferencesArgs, find_references};
pub use selector::{Selector, SelectorArgs};
pub use source::{GetSourceArgs, get_source};
pub use status::{GraphStatusArgs, graph_status};
pub use traverse::{
    BlastRadiusArgs, TraceDependenciesArgs, WalkArgs, get_blast_radius, trace_dependencies,
};
