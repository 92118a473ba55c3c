//! The incremental engine: a compiler-style, query-memoized pipeline from source files to the
//! merged fact set.
//!
//! Owns: the salsa database (source files as inputs keyed by repository and path, fingerprinted
//! with BLAKE3), the tracked queries (per-file facts, per-repository merge, workspace merge),
//! the fact cache (salsa's memoization persisted between processes, each value kept encoded
//! until a query reads it, `off`/`on`/`verify`), and
//! the pass driver that discovers, reads, analyses in parallel and merges in unit order, and
//! the syntax-level resolution that binds reference sites where the language decides it.
//!
//! Must not know about: generations, snapshot formats or serving. It hands a canonical
//! `FactSet` to whoever publishes it.

mod analysis;
mod artifacts;
mod cache;
mod database;
mod files;
mod inputs;
mod keys;
mod merge;
mod module_lookup;
mod npm_versions;
mod packages;
mod pages;
mod pass;

mod persisted;
mod placement;
mod resolve;
mod rust_build;
mod stored;
mod values;

pub use analysis::{
    AnalyzerDefinitions, AnalyzerSettings, ConfiguredIndexer, Definition, RecordedUnits,
    UnitAnalysis, UnitReference, analyzed_package_facts, analyzed_relations, analyzer_definitions,
    configured_units, go_unit, python_import_root, python_unit, rust_unit, typescript_unit,
};
pub use cache::{CacheIdentity, CacheLoad};
pub use database::{EngineDatabase, ExecutionLog};
pub use files::{FileFacts, LocalSymbol, file_facts};
pub use inputs::{FileInput, PackageInput, RepositoryInput, Workspace};
pub use keys::evidence_key;
pub use merge::{PackageFacts, RepositoryFacts, WorkspaceFacts, repository_facts, workspace_facts};
pub use packages::package_facts;
pub use pages::EnginePage;
pub use pass::{
    AnalyzerOptions, AnalyzerRun, Engine, EngineError, LoadedRepository, LoadsAtOnce, PassGraph,
    PassOptions, PassOutcome, Progress, RecordError, RecordedAnalyzers, RecordedRepository,
    RepositoryReport, Reread, WarmEngine, load_repository, record_identity, run_pass,
    run_pass_from_records,
};
pub use resolve::go::{Call, GoImport, GoPackageNames, GoSites};
pub use resolve::resolved_relations;
pub use resolve::typescript::{ModuleSite, PackageExports};
