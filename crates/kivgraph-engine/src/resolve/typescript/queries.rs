//! TypeScript/JavaScript's provider queries: each package's module export tables, which
//! package holds each module file, and which directories carry each `package.json` name.

use std::collections::BTreeMap;

use kivgraph_facts::{FactSet, Language};

use super::resolve;
use crate::database::Db;
use crate::inputs::PackageInput;
use crate::inputs::Workspace;
use crate::packages::package_symbols;
use crate::placement::{placed_module_files, workspace_files};
use crate::resolve::typescript::{ModuleFile, PackageExports};
use crate::stored::Stored;

/// The TypeScript/JavaScript files of a package with where their symbols sit in `declared`.
pub(crate) fn module_files<'db>(
    db: &'db dyn Db,
    package: PackageInput,
    declared: &'db FactSet,
) -> Vec<ModuleFile<'db>> {
    let languages = [Language::TypeScript, Language::JavaScript];
    placed_module_files(db, package, declared, &languages)
}

/// A package's module export tables: all an importer reads of it, so an edit inside a
/// function body stops here.
#[salsa::tracked(returns(clone), persist, lru = 0)]
pub fn package_exports(db: &dyn Db, package: PackageInput) -> Stored<PackageExports> {
    let declared = package_symbols(db, package);
    let modules = module_files(db, package, &declared);
    Stored::new(resolve::package_exports(&modules, &declared.symbols))
}

/// Which package holds each TypeScript/JavaScript file, by (repository, path): where a
/// relative specifier can land.
#[salsa::tracked(returns(clone), persist, lru = 0)]
pub fn module_index(
    db: &dyn Db,
    workspace: Workspace,
) -> Stored<BTreeMap<(String, String), PackageInput>> {
    let modules = [Language::TypeScript, Language::JavaScript];
    let index = workspace_files(db, workspace, &modules)
        .map(|(_, package, file)| {
            (
                (file.repository(db).clone(), file.path(db).clone()),
                package,
            )
        })
        .collect();
    Stored::new(index)
}

/// Which registered directories carry each `package.json` name, with their repositories:
/// the providers of package specifiers. Two claimants make a name ambiguous.
#[salsa::tracked(returns(clone), persist, lru = 0)]
pub fn npm_providers(
    db: &dyn Db,
    workspace: Workspace,
) -> Stored<BTreeMap<String, Vec<(String, String)>>> {
    let modules = [Language::TypeScript, Language::JavaScript];
    let mut providers: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for (repository, _, file) in workspace_files(db, workspace, &modules) {
        let unit = file.unit(db);
        // `.` is a file under no package.json: nothing can name it.
        if unit.package == "." {
            continue;
        }
        let claim = (repository.clone(), unit.package_path.clone());
        let claimants = providers.entry(unit.package.clone()).or_default();
        if !claimants.contains(&claim) {
            claimants.push(claim);
        }
    }
    Stored::new(providers)
}

/// This module's share of [`crate::persisted::attach_restored_queries`].
pub(crate) fn attach_restored_queries(db: &mut dyn Db) {
    package_exports::set_lru_capacity(db, 0);
    module_index::set_lru_capacity(db, 0);
    npm_providers::set_lru_capacity(db, 0);
}
