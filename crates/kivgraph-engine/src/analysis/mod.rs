//! Exact analyzers as analysis units of the engine, and how their answers layer over the
//! syntax layer's.
//!
//! Units: a TypeScript/JavaScript package directory is one unit, checked by the TypeScript
//! compiler (through `scip-typescript`) as one program; a repository's Python is one unit,
//! checked by pyright (through `scip-python`) in a project where every registered
//! repository is importable; a repository's Rust is one unit, each of its Cargo workspaces
//! loaded by rust-analyzer (its `scip` command); a SCIP indexer the configuration plugs in
//! (`scip.indexers`) is one unit per repository, and decides the languages it covers there
//! in place of their built-in analyzer. Each unit is a tracked, persisted query, so the fact cache covers
//! analyzer output exactly as it covers syntax facts: its identity includes the analyzer's
//! exact version (an input), its inputs are the fingerprints of the files the analyzer read,
//! and an unchanged unit is served from the cache without starting Node.
//!
//! The analyzer decides the target; the syntax layer decides the class of use (call, type
//! use, import…) at that position. Where the analyzer bound a site to a declaration of the
//! graph, its exact edges replace the syntax layer's edges and holes at that site;
//! everywhere else the syntax facts stand with their own confidence.
//!
//! One file a job, no file reaching back to this one: what a unit answers (`unit`), which
//! analyzers run (`settings`), a language's units (`typescript`, `python`, `rust`, `go`, and
//! the indexers plugged in by configuration, `configured`), the Rust and Go load groups
//! (`groups`), where a use of a registered package's artifact lands
//! (`artifact_placement`), answers recorded where a fact set was indexed (`recorded`), the join of an index with the declarations (`scip_join`, reading symbols
//! with `scip_symbol`), the units covering a package (`units`), the symbols every unit
//! defines (`definitions`), uses resolved into a registered package that nothing answers
//! (`mismatch`), and the layering over the syntax facts (`layer`).

mod artifact_placement;
mod configured;
mod definitions;
mod go;
mod groups;
mod layer;
mod mismatch;
mod python;
mod recorded;
mod rust;
mod scip_join;
mod scip_symbol;
mod settings;
mod typescript;
mod unit;
mod units;

pub use configured::configured_units;
pub use definitions::{AnalyzerDefinitions, analyzer_definitions};
pub use go::go_unit;
pub use groups::load_groups;
pub use layer::{analyzed_package_facts, package_summary};
pub use python::{python_import_root, python_unit};
pub use recorded::{Recorded, RecordedUnits};
pub use rust::rust_unit;
pub use settings::{AnalyzerSettings, ConfiguredIndexer};
pub use typescript::typescript_unit;
pub use unit::{Definition, UnitAnalysis, UnitReference, analyzed_relations};
pub(crate) use units::recorded_units_of;

use crate::database::Db;

/// This module's share of [`crate::persisted::attach_restored_queries`].
pub(crate) fn attach_restored_queries(db: &mut dyn Db) {
    crate::artifacts::attach_restored_queries(db);
    configured::attach_restored_queries(db);
    definitions::attach_restored_queries(db);
    go::attach_restored_queries(db);
    groups::attach_restored_queries(db);
    layer::attach_restored_queries(db);
    python::attach_restored_queries(db);
    rust::attach_restored_queries(db);
    typescript::attach_restored_queries(db);
}
