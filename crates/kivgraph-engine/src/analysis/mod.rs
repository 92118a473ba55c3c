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
//! One file a job: a language's units (`typescript`, `python`, `rust`, `go`, and the
//! indexers plugged in by configuration, `configured`), the Rust and Go load groups
//! (`groups`), the join of an index with the declarations (`scip_join`), the symbols every
//! unit defines (`definitions`), and the layering over the syntax facts (`layer`). This
//! file holds what they share: the settings, a unit's answer, and which units cover a
//! package.

mod configured;
mod definitions;
mod go;
mod groups;
mod layer;
mod python;
mod rust;
mod scip_join;
mod scip_symbol;
mod typescript;

pub use configured::{ConfiguredIndexer, configured_units};
use configured::{configured_covers, moniker_version_mismatch};
pub use definitions::{AnalyzerDefinitions, analyzer_definitions};
pub use go::go_unit;
pub use groups::load_groups;
use groups::{group_analysis, group_contents};
pub use layer::analyzed_package_facts;
pub use python::{python_import_root, python_unit};
pub use rust::rust_unit;
use rust::unmatched_crate_use;
use scip_join::{innermost, mark_unmarked_definitions, unit_analysis};
use scip_symbol::ScipSymbol;
pub use typescript::typescript_unit;
use typescript::{module_place, module_siblings};

use std::collections::BTreeSet;

use kivgraph_analyzers::{GoAnalyzer, RustAnalyzer, Toolchain};
use kivgraph_config::GoBuildContext;
use kivgraph_facts::{EdgeKind, Language, LineSpan, Provenance, StableKey, SymbolKind};
use serde::{Deserialize, Serialize};

use crate::artifacts::ArtifactFile;
use crate::database::Db;
use crate::queries::{PackageInput, RepositoryInput, Workspace};
use crate::rust_build::RustBuild;
use crate::stored::Stored;

/// Which exact analyzers a pass may run. An absent analyzer leaves the syntax layer's
/// facts standing; a present one's version is part of every unit's identity.
#[salsa::input(persist, singleton)]
pub struct AnalyzerSettings {
    #[returns(ref)]
    pub typescript: Option<Toolchain>,
    #[returns(ref)]
    pub python: Option<Toolchain>,
    #[returns(ref)]
    pub rust: Option<RustAnalyzer>,
    #[returns(ref)]
    pub go: Option<GoAnalyzer>,
    /// Which `.go` files a Go load compiles: the files discovery selected, and the worker's.
    #[returns(ref)]
    pub go_build: GoBuildContext,
    #[returns(ref)]
    pub scip_indexers: Vec<ConfiguredIndexer>,
}

/// What one unit's analyzer said: in the graph's terms for the declarations of the files it
/// analysed, in the analyzer's symbols for the names those files use.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct UnitAnalysis {
    /// `tool version`, as the analyzer reported itself.
    pub analyzer: String,
    /// Why the analyzer gave no answer for this unit, when it did not.
    pub failure: Option<String>,
    pub definitions: Vec<Definition>,
    /// The analyzer symbols the unit defines at no declaration of the graph (a parameter
    /// of a type, an item a macro generates from nothing the source names), sorted.
    #[serde(default)]
    pub defined_outside: Vec<String>,
    /// Every non-local reference in the unit's files, by file, then position.
    pub references: Vec<UnitReference>,
    /// `(implementing, implemented)` analyzer symbols, for members the unit defines.
    pub implementations: Vec<(String, String)>,
    /// `(typed, type)` analyzer symbols, for declarations the unit defines.
    pub type_definitions: Vec<(String, String)>,
    /// `(repository, path)` of files the analyzer crashed on and was made to leave out:
    /// their uses keep the syntax layer's facts.
    pub skipped_files: Vec<(String, String)>,
    /// Per file and spelling, the occurrences the analyzer bound to something that is no
    /// declaration of the graph (a local, a parameter, a module, an unkeyed member): spelled,
    /// but owed no edge.
    pub outside: Vec<Outside>,
    /// What the analyzer said it could not load (a Cargo workspace's dependencies): its
    /// answers hold for what it loaded, and the rest is a declared blind spot.
    pub not_loaded: Vec<String>,
    /// `(package, detail)` of packages the build configuration excluded entirely.
    pub unbuildable: Vec<(String, String)>,
    /// `(package, detail)` of packages not checked because what they import could not be
    /// loaded (`module/...`: every package of a module the loader could not list).
    pub unloaded: Vec<(String, String)>,
    /// Produced by an indexer plugged in by configuration: its edges carry `SCIP_INDEXER`.
    pub configured: bool,
    /// The registered packages' module files the checker bound uses to, with what their
    /// declaration maps say (TypeScript/JavaScript).
    #[serde(default)]
    pub artifacts: Vec<ArtifactFile>,
    /// `package from repository`: dependencies the unit was loaded against a registered
    /// source for, as a developer working on both would `[patch]` them (Rust).
    #[serde(default)]
    pub patched: Vec<String>,
    /// `(repository, path)` of the unit's own files no crate of its build includes (a module
    /// behind an inactive feature or `cfg`, a file no module declares): code the configured
    /// build does not compile, so what it spells is no use (Rust).
    #[serde(default)]
    pub not_built: Vec<(String, String)>,
    /// The Rust build the unit was analysed as, to decide the `cfg`s its files spell.
    #[serde(default)]
    pub rust_build: Option<RustBuild>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Outside {
    pub repository: String,
    pub path: String,
    pub name: String,
    pub count: u32,
}

impl UnitAnalysis {
    /// The provenance of the edges this unit decides in a file of `language`.
    fn provenance(&self, language: Language) -> Provenance {
        if self.configured {
            Provenance::ScipIndexer
        } else {
            provenance_of(language)
        }
    }

    /// The uses the unit found in one file.
    fn references_in(&self, repository: &str, path: &str) -> &[UnitReference] {
        in_file(&self.references, repository, path)
    }

    /// The spellings the unit bound outside the graph in one file.
    fn outside_in(&self, repository: &str, path: &str) -> &[Outside] {
        in_file(&self.outside, repository, path)
    }
}

/// A row a unit keeps sorted by the file it was observed in.
trait InFile {
    fn file(&self) -> (&str, &str);
}

impl InFile for UnitReference {
    fn file(&self) -> (&str, &str) {
        (&self.repository, &self.path)
    }
}

impl InFile for Outside {
    fn file(&self) -> (&str, &str) {
        (&self.repository, &self.path)
    }
}

/// The run of `rows` (sorted by file) that belongs to one file.
fn in_file<'a, T: InFile>(rows: &'a [T], repository: &str, path: &str) -> &'a [T] {
    let start = rows.partition_point(|row| row.file() < (repository, path));
    let end = rows.partition_point(|row| row.file() <= (repository, path));
    &rows[start..end]
}

/// An analyzer symbol and the declaration of the graph it names.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Definition {
    pub symbol: String,
    pub key: StableKey,
    pub kind: SymbolKind,
    pub repository: String,
    pub path: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct UnitReference {
    pub repository: String,
    pub path: String,
    pub span: LineSpan,
    /// The name as the source spells it at that position.
    pub text: String,
    pub symbol: String,
}

/// The reference relations an exact analyzer decides for `language` where it analysed
/// every unit: each site is an exact edge, a use of something outside the graph, or still
/// the syntax layer's edge or declared hole.
pub fn analyzed_relations(language: Language) -> &'static [EdgeKind] {
    match language {
        Language::TypeScript | Language::JavaScript | Language::Python => &[
            EdgeKind::ImportsSymbol,
            EdgeKind::Exports,
            EdgeKind::Reexports,
            EdgeKind::CallsDirect,
            EdgeKind::PassesAsCallback,
            EdgeKind::AssignsFunction,
            EdgeKind::ReturnsFunction,
            EdgeKind::References,
            EdgeKind::TypeUses,
            EdgeKind::Extends,
            EdgeKind::Implements,
            EdgeKind::Overrides,
        ],
        // An `impl Trait for Type` header stays the syntax layer's (rule R5): the analyzer
        // names the trait there, not which declaration implements it.
        Language::Rust => &[
            EdgeKind::ImportsSymbol,
            EdgeKind::CallsDirect,
            EdgeKind::References,
            EdgeKind::TypeUses,
        ],
        // Imports name packages, not declarations; interface satisfaction stays the
        // syntax layer's (rules G-I).
        Language::Go => &[
            EdgeKind::CallsDirect,
            EdgeKind::PassesAsCallback,
            EdgeKind::AssignsFunction,
            EdgeKind::ReturnsFunction,
            EdgeKind::References,
            EdgeKind::TypeUses,
            EdgeKind::Embeds,
        ],
    }
}

fn is_module_language(language: Language) -> bool {
    matches!(language, Language::TypeScript | Language::JavaScript)
}

fn failed(analyzer: String, error: kivgraph_analyzers::AnalyzerError) -> UnitAnalysis {
    tracing::warn!(%error, "analyzer failed; the syntax layer's facts stand for its unit");
    UnitAnalysis {
        analyzer,
        failure: Some(error.to_string()),
        ..UnitAnalysis::default()
    }
}

/// The units whose answers cover a package's files.
fn units_of(db: &dyn Db, package: PackageInput) -> Vec<&UnitAnalysis> {
    let mut units: Vec<&UnitAnalysis> = Vec::new();
    let Some(repository) = repository_of(db, package) else {
        return units;
    };
    if let Some(owner) = module_siblings(db, package).first()
        && let Some(unit) = typescript_unit(db, *owner)
    {
        units.push(unit);
    }
    let languages: BTreeSet<Language> = package.files(db).iter().map(|f| f.language(db)).collect();
    if languages.contains(&Language::Python)
        && let Some(unit) = python_unit(db, repository).as_deref()
    {
        units.push(unit);
    }
    let groups = load_groups(db, repository);
    if let Some((_, members)) = groups.of(package, Language::Rust)
        && let Some(unit) = rust_unit(db, members[0]).as_deref()
    {
        units.push(unit);
    }
    if let Some((_, members)) = groups.of(package, Language::Go)
        && let Some(unit) = go_unit(db, members[0]).as_deref()
    {
        units.push(unit);
    }
    if let Some(settings) = AnalyzerSettings::try_get(db) {
        let name = repository.name(db);
        let indexers = settings.scip_indexers(db);
        for (indexer, unit) in indexers.iter().zip(configured_units(db, repository)) {
            if languages.iter().any(|l| indexer.covers(name, *l))
                && let Some(unit) = unit.as_deref()
            {
                units.push(unit);
            }
        }
    }
    units.retain(|unit| unit.failure.is_none());
    units
}

/// The registered repository a package belongs to.
pub(crate) fn repository_of(db: &dyn Db, package: PackageInput) -> Option<RepositoryInput> {
    let name = package.files(db).first()?.repository(db);
    Workspace::get(db)
        .repositories(db)
        .iter()
        .find(|r| r.name(db) == name)
        .copied()
}

/// This module's share of [`crate::queries::attach_restored_queries`].
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
    package_summary::set_lru_capacity(db, 0);
}

/// The provenance of an analyzer's edges.
fn provenance_of(language: Language) -> Provenance {
    match language {
        Language::Python => Provenance::PythonIndexerUse,
        Language::Rust => Provenance::RustAnalyzerUse,
        Language::Go => Provenance::GoTypesUse,
        _ => Provenance::TypescriptChecker,
    }
}

/// What a repository's report says of one of its packages, kept apart from the package's
/// facts so that a report reads no package's facts the pass did not change.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PackageSummary {
    pub files: usize,
    pub symbols: usize,
    /// Files tree-sitter had to recover, with their issue count.
    pub parse_failures: Vec<(String, usize)>,
}

#[salsa::tracked(returns(clone), persist, lru = 0)]
pub fn package_summary(db: &dyn Db, package: PackageInput) -> Stored<PackageSummary> {
    let facts = analyzed_package_facts(db, package);
    Stored::new(PackageSummary {
        files: facts.files.len(),
        symbols: facts.symbols.len(),
        parse_failures: facts
            .files
            .iter()
            .filter(|f| !f.parse_issues.is_empty())
            .map(|f| (f.path.clone(), f.parse_issues.len()))
            .collect(),
    })
}
