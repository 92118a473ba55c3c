//! `manifest.json`: what a generation holds and the digests that prove its files belong
//! together.

use serde::{Deserialize, Serialize};

use crate::GenerationId;
use kivgraph_facts::GraphCounts;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Counts {
    pub repositories: usize,
    pub packages: usize,
    pub files: usize,
    pub symbols: usize,
    pub edges: usize,
    pub unresolved: usize,
    pub evidence: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Digests {
    /// BLAKE3-256 over the pages' facts digests in page order, hex.
    pub facts: String,
    /// BLAKE3-256 of the snapshot root's payload (which names every page by its digest),
    /// hex.
    pub snapshot_payload: String,
}

/// One page of the generation: what it was built from, and its two files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageEntry {
    pub number: u32,
    /// What the pass built the page from (`FactPage::identity`), hex; a later pass built
    /// from the same links the page instead of laying it out again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<String>,
    /// BLAKE3-256 of the page's payload, hex: its file is `pages/<number>-<digest>.kgp`.
    pub snapshot: String,
    /// BLAKE3-256 of the page's facts, hex: their file is `facts/<number>-<digest>.bin`.
    pub facts: String,
    pub counts: Counts,
}

/// Where a repository's checkout was when it was indexed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct RepositoryState {
    pub name: String,
    pub path: String,
    pub languages: Vec<String>,
    pub indexed_commit: Option<String>,
    pub indexed_branch: Option<String>,
    /// Whether the tree had uncommitted changes to tracked files; absent when unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indexed_dirty: Option<bool>,
    /// Why the commit could not be read, when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub git_unavailable: Option<String>,
    /// Per language, the reference relations the pass resolved (every site an edge or an
    /// unresolved row); a relation not listed was not extracted, so answers about it are
    /// floors.
    #[serde(default)]
    pub resolved_relations: std::collections::BTreeMap<String, Vec<String>>,
    /// Per language with an exact analyzer, which one produced the repository's edges.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub analyzers: Vec<AnalyzerState>,
    /// What discovery treated as the repository's own build output and left out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub build_output: Vec<BuildOutputState>,
    /// When the pass began reading the repository's files (milliseconds since the Unix
    /// epoch): a file modified on disk since then may differ from what the graph holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files_read_at_unix_ms: Option<u64>,
}

/// A directory (or file) of build output left out of the graph: no declaration of the
/// repository, no place a use is looked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct BuildOutputState {
    pub path: String,
    /// `COMPILER_OUTPUT`, `SOURCE_MAPPED`, `MINIFIED` or `MIRRORS_SOURCES`.
    pub reason: String,
    pub detail: String,
    pub files: usize,
}

/// What an exact analyzer did for one repository's files of one language.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct AnalyzerState {
    pub language: String,
    /// `name version`; absent when the analyzer was not installed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analyzer: Option<String>,
    pub units: usize,
    /// `unit: why` per unit the analyzer failed on: those files kept syntax facts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<String>,
    /// Why the analyzer was absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub absent: Option<String>,
    /// `unit: package from repository` per dependency a unit was loaded against a
    /// registered source for (a `[patch]` over its lockfile's release).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub patched: Vec<String>,
    /// `unit: how many files, e.g. one` per unit whose build leaves some of its own files
    /// out: in the graph as declarations, their uses are not the build's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_built: Vec<String>,
    /// The analyzer has not run on this generation's files yet: a watcher published the
    /// repository's syntax layer at once, and the analyzer's layer follows in a later
    /// generation.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deferred: bool,
}

impl AnalyzerState {
    /// Every unit of the language in the repository was analysed exactly.
    pub fn is_complete(&self) -> bool {
        self.analyzer.is_some() && self.failures.is_empty() && self.units > 0 && !self.deferred
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub generation_id: GenerationId,
    pub format: u32,
    pub kivgraph_version: String,
    pub built_at: String,
    /// The same instant in milliseconds since the Unix epoch, for ages.
    pub built_at_unix_ms: u64,
    pub counts: Counts,
    pub digests: Digests,
    pub repositories: Vec<RepositoryState>,
    /// By ascending page number.
    pub pages: Vec<PageEntry>,
    /// The canonical database, when the publisher wrote one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph: Option<GraphEntry>,
}

pub const MANIFEST_FORMAT: u32 = 2;

/// The manifest's record of a generation's database.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphEntry {
    /// Its file inside the generation.
    pub file: String,
    /// BLAKE3-256 of the file, hex.
    pub digest: String,
    pub bytes: u64,
    /// The size of the whole write this database was updated from (its own where it was
    /// written whole): see `GROWTH_LIMIT_HALVES` in `graph.rs`. Absent from older manifests (0).
    #[serde(default)]
    pub whole_bytes: u64,
    #[serde(flatten)]
    pub counts: GraphCounts,
}
