//! What a pass is asked to do: its options, the analyzers it may run, the progress it
//! reports and the errors that stop it.

use std::path::PathBuf;

use kivgraph_config::{FactCacheMode, GoBuildContext};
use kivgraph_facts::Language;

use kivgraph_analyzers::{GoAnalyzer, RustAnalyzer, Toolchain};

use crate::analysis::ConfiguredIndexer;
use crate::cache::CacheIdentity;

/// A progress event: a phase, optionally per repository, with a count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Progress {
    pub phase: &'static str,
    pub repository: Option<String>,
    pub completed: usize,
    pub total: usize,
}

impl Progress {
    /// The phase a pass enters once it knows its inputs differ from those of the published
    /// generation: it computes a new graph, which will be published. A caller may start work
    /// the publication needs on it (the store copies the previous database).
    pub const COMPUTE: &'static str = "compute";
}

#[derive(Debug, Clone)]
pub struct PassOptions {
    pub fact_cache: FactCacheMode,
    pub cache_directory: PathBuf,
    pub identity: CacheIdentity,
    pub analyzers: AnalyzerOptions,
    /// The generation the store serves, if any. With the fact cache `on`, a pass whose
    /// inputs are exactly those that generation was computed from answers with it instead
    /// of recomputing it (`PassGraph::Unchanged`).
    pub published_generation: Option<u64>,
}

/// The exact analyzers a pass runs, as the caller located them. `None` is an absence the
/// pass reports, never a failure: the syntax layer's facts stand.
#[derive(Debug, Clone, Default)]
pub struct AnalyzerOptions {
    pub typescript: Option<Toolchain>,
    pub python: Option<Toolchain>,
    pub rust: Option<RustAnalyzer>,
    pub go: Option<GoAnalyzer>,
    /// Which `.go` files the configured Go build compiles: discovery leaves out the others,
    /// and the worker loads under it. It holds whether or not the worker is installed.
    pub go_build: GoBuildContext,
    /// SCIP indexers the configuration plugs in, each deciding its languages where it runs.
    pub scip_indexers: Vec<ConfiguredIndexer>,
    /// Scratch space for analyzer project files and indexes, under the state directory.
    pub scratch: PathBuf,
    /// How many TypeScript/JavaScript and Python analyzer processes run at once
    /// (`typescript.maximum_workers`).
    pub maximum_workers: usize,
    /// How many Cargo workspaces and Go modules load at once.
    pub loads_at_once: LoadsAtOnce,
    /// Why each absent analyzer is absent, by the language it serves.
    pub absent: Vec<(Language, String)>,
    /// The repositories whose analyzers this pass leaves to the next, sorted: a watcher
    /// publishes a save's syntax layer first, and the analyzers' layer in the generation
    /// after (their reports say `deferred`).
    pub deferred_repositories: Vec<String>,
}

/// How many Rust and Go loads run at once, each with its own budget: each load holds a
/// whole crate graph or type universe in memory (`rust.maximum_workspaces`,
/// `go.maximum_loads`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadsAtOnce {
    pub rust_workspaces: usize,
    pub go_modules: usize,
}

impl Default for LoadsAtOnce {
    fn default() -> Self {
        LoadsAtOnce {
            rust_workspaces: 1,
            go_modules: 1,
        }
    }
}
