//! Which units' answers cover a package, and every unit of the workspace.

use std::collections::BTreeSet;

use kivgraph_facts::Language;

use super::configured::configured_units;
use super::go::go_unit;
use super::groups::load_groups;
use super::python::python_unit;
use super::recorded::RecordedUnits;
use super::rust::rust_unit;
use super::settings::AnalyzerSettings;
use super::typescript::{module_siblings, typescript_unit};
use super::unit::UnitAnalysis;
use crate::database::Db;
use crate::inputs::{PackageInput, RepositoryInput, Workspace, repository_of};
use crate::stored::Stored;

/// The units whose answers cover a package's files.
pub(super) fn units_of(db: &dyn Db, package: PackageInput) -> Vec<&UnitAnalysis> {
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

/// Every unit of the workspace: each package's TypeScript program, each
/// repository's Rust and Go load groups, its Python and its configured indexers.
pub(super) fn workspace_units(db: &dyn Db, workspace: Workspace) -> Vec<&UnitAnalysis> {
    let packages = workspace
        .repositories(db)
        .iter()
        .flat_map(|r: &RepositoryInput| r.packages(db).iter().copied());
    let mut units: Vec<&UnitAnalysis> = packages
        .filter_map(|package| typescript_unit(db, package).as_deref())
        .collect();
    for repository in workspace.repositories(db) {
        let groups = load_groups(db, *repository);
        units.extend(
            groups
                .owners(Language::Rust)
                .filter_map(|(_, owner)| rust_unit(db, owner).as_deref()),
        );
        units.extend(
            groups
                .owners(Language::Go)
                .filter_map(|(_, owner)| go_unit(db, owner).as_deref()),
        );
        units.extend(python_unit(db, *repository).as_deref());
        units.extend(
            configured_units(db, *repository)
                .iter()
                .filter_map(|unit| unit.as_deref()),
        );
    }
    units
}

/// What the unit queries answered for `repository`, read from their memos (a pass over
/// the repository ran them): what its fact set records.
pub(crate) fn recorded_units_of(db: &dyn Db, repository: RepositoryInput) -> RecordedUnits {
    let owned = |unit: Option<&Stored<UnitAnalysis>>| unit.map(|unit| (**unit).clone());
    let mut units = RecordedUnits {
        python: owned(python_unit(db, repository).as_ref()),
        configured: configured_units(db, repository)
            .iter()
            .map(|unit| owned(unit.as_ref()))
            .collect(),
        ..RecordedUnits::default()
    };
    for package in repository.packages(db) {
        if let Some(unit) = owned(typescript_unit(db, *package).as_ref()) {
            units.typescript.insert(package.key(db), unit);
        }
    }
    let groups = load_groups(db, repository);
    for (_, owner) in groups.owners(Language::Rust) {
        if let Some(unit) = owned(rust_unit(db, owner).as_ref()) {
            units.rust.insert(owner.key(db), unit);
        }
    }
    for (_, owner) in groups.owners(Language::Go) {
        if let Some(unit) = owned(go_unit(db, owner).as_ref()) {
            units.go.insert(owner.key(db), unit);
        }
    }
    units
}
