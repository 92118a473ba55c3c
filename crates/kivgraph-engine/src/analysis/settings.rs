//! Which exact analyzers a pass may run, with the SCIP indexers the configuration plugs in
//! and the languages each decides.

use kivgraph_analyzers::{GoAnalyzer, RustAnalyzer, ScipIndexer, Toolchain};
use kivgraph_config::GoBuildContext;
use kivgraph_facts::Language;
use serde::{Deserialize, Serialize};

use crate::database::Db;
use crate::inputs::RepositoryInput;

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

/// A SCIP indexer plugged in by configuration, with the languages it decides and where.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ConfiguredIndexer {
    pub indexer: ScipIndexer,
    pub languages: Vec<Language>,
    /// Every registered repository when empty.
    pub repositories: Vec<String>,
}

impl ConfiguredIndexer {
    pub fn covers(&self, repository: &str, language: Language) -> bool {
        self.languages.contains(&language)
            && (self.repositories.is_empty() || self.repositories.iter().any(|r| r == repository))
    }
}

/// Whether a configured indexer, not the built-in analyzer, decides `language` in
/// `repository`.
pub(super) fn configured_covers(
    db: &dyn Db,
    repository: RepositoryInput,
    language: Language,
) -> bool {
    AnalyzerSettings::try_get(db).is_some_and(|settings| {
        let name = repository.name(db);
        settings
            .scip_indexers(db)
            .iter()
            .any(|indexer| indexer.covers(name, language))
    })
}
