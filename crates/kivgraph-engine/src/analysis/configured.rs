//! SCIP indexers the configuration plugs in (`scip.indexers`): one unit per repository,
//! deciding the languages it covers there, and the versions its monikers name.

use std::collections::BTreeMap;
use std::path::Path;

use kivgraph_analyzers::ScipIndexer;
use kivgraph_facts::{Fingerprint, Language, SymbolFact, UnresolvedReference};
use serde::{Deserialize, Serialize};

use super::{
    AnalyzerDefinitions, AnalyzerSettings, ScipSymbol, UnitAnalysis, UnitReference, failed,
    unit_analysis,
};
use crate::database::Db;
use crate::queries::{RepositoryInput, package_symbols};
use crate::stored::Stored;

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

/// The configured indexers' units of one repository, by the configuration's order: `None`
/// where an indexer covers none of the repository's languages.
#[salsa::tracked(returns(ref), persist, lru = 0)]
pub fn configured_units(
    db: &dyn Db,
    repository: RepositoryInput,
) -> Vec<Option<Stored<UnitAnalysis>>> {
    let Some(settings) = AnalyzerSettings::try_get(db) else {
        return Vec::new();
    };
    settings
        .scip_indexers(db)
        .iter()
        .map(|indexer| analyse_configured(db, repository, indexer).map(Stored::new))
        .collect()
}

fn analyse_configured(
    db: &dyn Db,
    repository: RepositoryInput,
    configured: &ConfiguredIndexer,
) -> Option<UnitAnalysis> {
    let name = repository.name(db);
    // The unit depends on the files of the languages it decides, and on their declarations.
    let mut own: BTreeMap<(String, String), Fingerprint> = BTreeMap::new();
    let mut symbols: Vec<SymbolFact> = Vec::new();
    for package in repository.packages(db) {
        let mut covered = false;
        for file in package.files(db) {
            if configured.covers(name, file.language(db)) {
                covered = true;
                own.insert((name.clone(), file.path(db).clone()), file.fingerprint(db));
            }
        }
        if covered {
            symbols.extend(
                package_symbols(db, *package)
                    .symbols
                    .iter()
                    .filter(|s| configured.covers(name, s.language))
                    .cloned(),
            );
        }
    }
    if own.is_empty() {
        return None;
    }
    let analyzer = configured.indexer.identity();
    let index = match configured
        .indexer
        .index_repository(Path::new(repository.root(db)), &db.analyzer_scratch())
    {
        Ok(index) => index,
        Err(error) => return Some(failed(analyzer, error)),
    };
    // Documents are paths from the root the indexer ran in: the repository's own.
    let locate = |path: &str| Some((name.clone(), path.trim_start_matches("./").to_string()));
    Some(UnitAnalysis {
        configured: true,
        ..unit_analysis(db, analyzer, &index, &own, &locate, &symbols)
    })
}

/// A use a configured indexer resolved into a package the graph defines the symbol of, but
/// at another version: declared `PACKAGE_VERSION_MISMATCH`, never bound to the registered
/// copy.
pub(super) fn moniker_version_mismatch(
    definitions: &AnalyzerDefinitions,
    reference: &UnitReference,
    language: Language,
) -> Option<UnresolvedReference> {
    let symbol = ScipSymbol::parse(&reference.symbol)?;
    let versions = definitions.configured_versions.get(&symbol.unversioned())?;
    let (package, version) = (symbol.package, symbol.version);
    Some(UnresolvedReference {
        repository: reference.repository.clone(),
        language,
        reason: "PACKAGE_VERSION_MISMATCH".to_string(),
        file_path: Some(reference.path.clone()),
        span: Some(reference.span),
        requested_symbol: Some(reference.text.clone()),
        requested_package: Some(format!("{package} {version}")),
        detail: format!(
            "the indexer resolved this use into {package} {version}; the graph defines it at {}",
            versions.iter().cloned().collect::<Vec<_>>().join(", ")
        ),
    })
}

/// This module's share of [`crate::queries::attach_restored_queries`].
pub(super) fn attach_restored_queries(db: &mut dyn Db) {
    configured_units::set_lru_capacity(db, 0);
}
