//! A unit's answer: what one analyzer run said, in the graph's terms for the declarations
//! of the files it analysed and in the analyzer's symbols for the names those files use;
//! and which relations an analyzer decides for a language.

use kivgraph_facts::{EdgeKind, Language, LineSpan, Provenance, StableKey, SymbolKind};
use serde::{Deserialize, Serialize};

use crate::artifacts::ArtifactFile;
use crate::rust_build::RustBuild;

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
    pub(super) fn provenance(&self, language: Language) -> Provenance {
        if self.configured {
            Provenance::ScipIndexer
        } else {
            provenance_of(language)
        }
    }

    /// The uses the unit found in one file.
    pub(super) fn references_in(&self, repository: &str, path: &str) -> &[UnitReference] {
        in_file(&self.references, repository, path)
    }

    /// The spellings the unit bound outside the graph in one file.
    pub(super) fn outside_in(&self, repository: &str, path: &str) -> &[Outside] {
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

pub(super) fn is_module_language(language: Language) -> bool {
    matches!(language, Language::TypeScript | Language::JavaScript)
}

pub(super) fn failed(analyzer: String, error: kivgraph_analyzers::AnalyzerError) -> UnitAnalysis {
    tracing::warn!(%error, "analyzer failed; the syntax layer's facts stand for its unit");
    UnitAnalysis {
        analyzer,
        failure: Some(error.to_string()),
        ..UnitAnalysis::default()
    }
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
