//! One file per tool of the surface: its arguments (`…Args`, whose schema the MCP layer
//! generates) and its semantics, from validated arguments and a published generation to an
//! answer. What several tools share lives beside this directory (the envelope, selectors,
//! bounds, the walk).

pub(crate) mod find_by_intent;
pub(crate) mod find_cross_repo_consumers;
pub(crate) mod find_references;
pub(crate) mod find_symbol;
pub(crate) mod get_blast_radius;
pub(crate) mod get_file_outline;
pub(crate) mod get_source;
pub(crate) mod get_symbol;
pub(crate) mod graph_status;
pub(crate) mod list_repositories;
pub(crate) mod module_report;
pub(crate) mod read_symbol;
pub(crate) mod trace_dependencies;

#[cfg(test)]
mod tests;
