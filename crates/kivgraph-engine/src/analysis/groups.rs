//! Load groups: the Rust and Go packages one analyzer load reads together (a Cargo
//! workspace, a Go module), each owned by its first package.

use std::collections::BTreeMap;

use kivgraph_analyzers::ScipIndex;
use kivgraph_facts::{Fingerprint, Language, SymbolFact};
use serde::{Deserialize, Serialize};

use super::scip_join::unit_analysis;
use super::unit::{UnitAnalysis, failed};
use crate::database::Db;
use crate::inputs::{PackageInput, RepositoryInput};
use crate::packages::package_symbols;
use crate::stored::Stored;

/// A repository's packages grouped the way an analyzer loads them: Rust packages by Cargo
/// workspace root, Go packages by module directory. The first package of a group, in
/// repository order, owns the group's unit.
#[derive(Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoadGroups {
    /// `(language, root)` → the group's packages.
    pub groups: BTreeMap<(Language, String), Vec<PackageInput>>,
}

impl LoadGroups {
    /// The root and packages of the group `package` belongs to for `language`.
    pub(super) fn of(
        &self,
        package: PackageInput,
        language: Language,
    ) -> Option<(&str, &[PackageInput])> {
        self.groups
            .iter()
            .find(|((l, _), members)| *l == language && members.contains(&package))
            .map(|((_, root), members)| (root.as_str(), members.as_slice()))
    }

    /// The owner of each group of `language`, with the group's root.
    pub fn owners(&self, language: Language) -> impl Iterator<Item = (&str, PackageInput)> {
        self.groups
            .iter()
            .filter(move |((l, _), _)| *l == language)
            .filter_map(|((_, root), members)| Some((root.as_str(), *members.first()?)))
    }

    /// The packages of the group `owner` owns, when it owns one.
    pub fn owned_by(
        &self,
        owner: PackageInput,
        language: Language,
    ) -> Option<(&str, &[PackageInput])> {
        self.of(owner, language)
            .filter(|(_, members)| members.first() == Some(&owner))
    }
}

#[salsa::tracked(returns(clone), persist, lru = 0)]
pub fn load_groups(db: &dyn Db, repository: RepositoryInput) -> Stored<LoadGroups> {
    let maps = repository.module_maps(db);
    let mut groups = LoadGroups::default();
    for package in repository.packages(db) {
        for language in [Language::Rust, Language::Go] {
            let Some(first) = package
                .files(db)
                .iter()
                .find(|f| f.language(db) == language)
            else {
                continue;
            };
            let directory = &first.unit(db).package_path;
            let root = match language {
                Language::Rust => maps.cargo_workspace_root(directory),
                _ => maps.go_module_root(directory),
            };
            if let Some(root) = root {
                groups
                    .groups
                    .entry((language, root.to_string()))
                    .or_default()
                    .push(*package);
            }
        }
    }
    Stored::new(groups)
}

/// The files of `language` and the declarations of a group's packages.
pub(super) fn group_contents(
    db: &dyn Db,
    members: &[PackageInput],
    language: Language,
) -> (BTreeMap<(String, String), Fingerprint>, Vec<SymbolFact>) {
    let mut own = BTreeMap::new();
    let mut symbols = Vec::new();
    for package in members {
        for file in package.files(db) {
            if file.language(db) == language {
                own.insert(
                    (file.repository(db).clone(), file.path(db).clone()),
                    file.fingerprint(db),
                );
            }
        }
        symbols.extend(package_symbols(db, *package).symbols.iter().cloned());
    }
    (own, symbols)
}

/// A Rust or Go unit's answer: the analyzer's index joined with the group's declarations,
/// or why there is none.
pub(super) fn group_analysis(
    db: &dyn Db,
    repository: RepositoryInput,
    identity: String,
    index: Result<ScipIndex, kivgraph_analyzers::AnalyzerError>,
    own: &BTreeMap<(String, String), Fingerprint>,
    symbols: &[SymbolFact],
) -> UnitAnalysis {
    let index = match index {
        Ok(index) => index,
        Err(error) => return failed(identity, error),
    };
    let name = repository.name(db);
    let locate = |path: &str| Some((name.clone(), path.to_string()));
    unit_analysis(db, identity, &index, own, &locate, symbols)
}

/// This module's share of [`crate::persisted::attach_restored_queries`].
pub(super) fn attach_restored_queries(db: &mut dyn Db) {
    load_groups::set_lru_capacity(db, 0);
}
