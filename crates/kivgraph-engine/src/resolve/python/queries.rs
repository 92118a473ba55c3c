//! Python's provider queries: each package's modules, and where every module and top-level
//! package of the workspace is.

use std::collections::{BTreeMap, BTreeSet};

use kivgraph_facts::{FactSet, Language};

use super::resolve;
use crate::database::Db;
use crate::inputs::PackageInput;
use crate::inputs::Workspace;
use crate::packages::package_symbols;
use crate::placement::{module_file, placed_files, workspace_files};
use crate::resolve::python::{PackageModules, PythonFile};
use crate::stored::Stored;

/// The Python files of a package, each with its dotted module name.
pub(crate) fn python_files<'db>(
    db: &'db dyn Db,
    package: PackageInput,
    declared: &'db FactSet,
) -> Vec<PythonFile<'db>> {
    package
        .files(db)
        .iter()
        .zip(placed_files(db, package, declared))
        .filter(|(_, (_, merged, _))| merged.language == Language::Python)
        .map(|(input, (file_facts, merged, first_symbol))| PythonFile {
            module: input.unit(db).module.as_str(),
            placed: module_file(file_facts, merged, first_symbol),
        })
        .collect()
}

/// A package's Python module tables: all an importer reads of it.
#[salsa::tracked(returns(clone), persist, lru = 0)]
pub fn package_modules(db: &dyn Db, package: PackageInput) -> Stored<PackageModules> {
    let declared = package_symbols(db, package);
    let files = python_files(db, package, &declared);
    Stored::new(resolve::package_modules(&files, &declared.symbols))
}

/// Which packages hold each dotted Python module, with their repositories.
#[salsa::tracked(returns(clone), persist, lru = 0)]
pub fn python_module_index(
    db: &dyn Db,
    workspace: Workspace,
) -> Stored<BTreeMap<String, Vec<(String, PackageInput)>>> {
    let mut index: BTreeMap<String, Vec<(String, PackageInput)>> = BTreeMap::new();
    for (repository, package, file) in workspace_files(db, workspace, &[Language::Python]) {
        index
            .entry(file.unit(db).module.clone())
            .or_default()
            .push((repository.clone(), package));
    }
    Stored::new(index)
}

/// The repositories holding each top-level Python package (the first segment of every
/// indexed module): the provider registry of absolute imports.
#[salsa::tracked(returns(clone), persist, lru = 0)]
pub fn python_top_levels(
    db: &dyn Db,
    workspace: Workspace,
) -> Stored<BTreeMap<String, BTreeSet<String>>> {
    let mut tops: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, holders) in python_module_index(db, workspace).iter() {
        let top = module.split('.').next().unwrap_or(module);
        let entry = tops.entry(top.to_string()).or_default();
        entry.extend(holders.iter().map(|(repository, _)| repository.clone()));
    }
    Stored::new(tops)
}

/// This module's share of [`crate::persisted::attach_restored_queries`].
pub(crate) fn attach_restored_queries(db: &mut dyn Db) {
    package_modules::set_lru_capacity(db, 0);
    python_module_index::set_lru_capacity(db, 0);
    python_top_levels::set_lru_capacity(db, 0);
}
