//! SCIP indexers the configuration plugs in (`scip.indexers`): one unit per repository,
//! deciding the languages it covers there, and the versions its monikers name.

use std::collections::BTreeMap;
use std::path::Path;

use kivgraph_facts::{Fingerprint, SymbolFact};

use super::recorded::recorded_units;
use super::scip_join::unit_analysis;
use super::settings::{AnalyzerSettings, ConfiguredIndexer};
use super::unit::{UnitAnalysis, failed};
use crate::database::Db;
use crate::inputs::RepositoryInput;
use crate::packages::package_symbols;
use crate::stored::Stored;

/// The configured indexers' units of one repository, by the configuration's order: `None`
/// where an indexer covers none of the repository's languages.
#[salsa::tracked(returns(ref), persist, lru = 0)]
pub fn configured_units(
    db: &dyn Db,
    repository: RepositoryInput,
) -> Vec<Option<Stored<UnitAnalysis>>> {
    if let Some(recorded) = recorded_units(db, repository.name(db)) {
        return recorded
            .configured
            .iter()
            .map(|unit| unit.clone().map(Stored::new))
            .collect();
    }
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

/// This module's share of [`crate::persisted::attach_restored_queries`].
pub(super) fn attach_restored_queries(db: &mut dyn Db) {
    configured_units::set_lru_capacity(db, 0);
}
