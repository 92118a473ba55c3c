//! TypeScript/JavaScript units: a package directory checked as one program by the
//! TypeScript compiler (through `scip-typescript`), with the registered packages it imports.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use kivgraph_analyzers::{TypescriptUnit, nearest_tsconfig};
use kivgraph_discovery::installed_package;
use kivgraph_facts::{Fingerprint, Language, SymbolFact};

use super::recorded::recorded_for_package;
use super::scip_join::unit_analysis;
use super::settings::{AnalyzerSettings, configured_covers};
use super::unit::{UnitAnalysis, failed, is_module_language};
use crate::artifacts::{artifacts_read, npm_manifests};
use crate::database::Db;
use crate::inputs::{PackageInput, RepositoryInput, Workspace, repository_of};
use crate::packages::package_symbols;
use crate::placement::site_files;
use crate::resolve::typescript::{NpmProvider, npm_provider};
use crate::resolve::typescript::{module_index, npm_providers};
use crate::stored::Stored;

/// A TypeScript/JavaScript package checked as one program. `None` when the package is not
/// one, or when no TypeScript analyzer is installed.
#[salsa::tracked(returns(ref), persist, lru = 0)]
pub fn typescript_unit(db: &dyn Db, package: PackageInput) -> Option<Stored<UnitAnalysis>> {
    if let Some(recorded) = recorded_for_package(db, package) {
        return recorded
            .typescript
            .get(&package.key(db))
            .cloned()
            .map(Stored::new);
    }
    analyse_typescript(db, package).map(Stored::new)
}

fn analyse_typescript(db: &dyn Db, package: PackageInput) -> Option<UnitAnalysis> {
    let settings = AnalyzerSettings::try_get(db)?;
    let toolchain = settings.typescript(db).as_ref()?;
    let repository = repository_of(db, package)?;
    if configured_covers(db, repository, Language::TypeScript)
        && configured_covers(db, repository, Language::JavaScript)
    {
        return None;
    }
    let siblings = module_siblings(db, package);
    if siblings.first() != Some(&package) {
        return None;
    }
    let files: Vec<_> = siblings
        .iter()
        .flat_map(|sibling| sibling.files(db))
        .filter(|f| is_module_language(f.language(db)))
        .collect();
    let first = files.first()?;
    let repository_name = first.repository(db).clone();
    let workspace = Workspace::get(db);
    let repository = workspace
        .repositories(db)
        .iter()
        .find(|r| *r.name(db) == repository_name)?;
    let root = PathBuf::from(repository.root(db));
    let directory = &first.unit(db).package_path;
    let paths: Vec<String> = files.iter().map(|f| f.path(db).clone()).collect();
    // What is installed for the unit decides what its checker reads: the unit re-runs when
    // the install records change.
    let _installed = npm_manifests(db, *repository)
        .get(directory)
        .and_then(|m| m.installed);
    let unit_directory = root.join(directory);
    // A registered package installed for the unit is read as installed (its version, its
    // artifacts, then taken to the registered source); one that is not is reached in its
    // registered directory, as a link to it would be.
    let mapped: Vec<(String, PathBuf)> =
        registered_packages(db, workspace, (&repository_name, directory))
            .into_iter()
            .filter(|(name, _)| installed_package(&unit_directory, name).is_none())
            .collect();
    let unit = TypescriptUnit {
        repository_root: &root,
        files: &paths,
        base_tsconfig: nearest_tsconfig(&root, directory),
        paths: &mapped,
    };
    let analyzer = toolchain.identity();
    let index = match toolchain.index_typescript(&unit, &db.analyzer_scratch()) {
        Ok(index) => index,
        Err(error) => return Some(failed(analyzer, error)),
    };
    // The unit depends on every registered file the checker read, not only its own: a
    // provider's edit changes what the consumer's names denote. The checker reports the
    // files under the repository it read; registered packages it reached by name are the
    // ones the unit's imports name.
    for sibling in &siblings {
        read_imported_packages(db, workspace, *sibling);
    }
    let modules = module_index(db, workspace);
    for document in &index.documents {
        let at = (repository_name.clone(), document.relative_path.clone());
        if let Some(provider) = modules.get(&at) {
            for file in provider.files(db) {
                if *file.path(db) == document.relative_path {
                    file.fingerprint(db);
                }
            }
        }
    }
    let symbols: Vec<SymbolFact> = siblings
        .iter()
        .flat_map(|sibling| package_symbols(db, *sibling).symbols.clone())
        .collect();
    let own: BTreeMap<(String, String), Fingerprint> = files
        .iter()
        .map(|f| {
            (
                (repository_name.clone(), f.path(db).clone()),
                f.fingerprint(db),
            )
        })
        .collect();
    let locate = |path: &str| Some((repository_name.clone(), path.to_string()));
    let mut analysis = unit_analysis(db, analyzer, &index, &own, &locate, &symbols);
    analysis.artifacts = artifacts_read(
        &index,
        &npm_providers(db, workspace),
        &unit_directory,
        &mapped,
    );
    Some(analysis)
}

/// Where a package's module files sit: their repository, their `package.json` directory and
/// their language.
pub(super) fn module_place(
    db: &dyn Db,
    package: PackageInput,
) -> Option<(String, String, Language)> {
    let file = package
        .files(db)
        .iter()
        .find(|f| is_module_language(f.language(db)))?;
    Some((
        file.repository(db).clone(),
        file.unit(db).package_path.clone(),
        file.language(db),
    ))
}

/// The packages of one `package.json` directory that one program checks: its TypeScript
/// and its JavaScript package, TypeScript first. The first owns the unit.
pub(super) fn module_siblings(db: &dyn Db, package: PackageInput) -> Vec<PackageInput> {
    let Some((repository, directory, _)) = module_place(db, package) else {
        return Vec::new();
    };
    let Some(input) = Workspace::get(db)
        .repositories(db)
        .iter()
        .find(|r| *r.name(db) == repository)
    else {
        return vec![package];
    };
    module_directories(db, *input)
        .get(&directory)
        .cloned()
        .unwrap_or_default()
}

/// A repository's module packages by `package.json` directory, TypeScript first. One query
/// per repository, so that a package's memo depends on this table and not on every file of
/// its repository (which, persisted per package, made the fact cache grow with the square
/// of the repository).
#[salsa::tracked(returns(clone), persist, lru = 0)]
pub(super) fn module_directories(
    db: &dyn Db,
    repository: RepositoryInput,
) -> Stored<BTreeMap<String, Vec<PackageInput>>> {
    let mut directories: BTreeMap<String, Vec<(bool, PackageInput)>> = BTreeMap::new();
    for package in repository.packages(db) {
        if let Some((_, directory, language)) = module_place(db, *package) {
            directories
                .entry(directory)
                .or_default()
                .push((language != Language::TypeScript, *package));
        }
    }
    Stored::new(
        directories
            .into_iter()
            .map(|(directory, mut siblings)| {
                siblings.sort_by_key(|(javascript, _)| *javascript);
                (directory, siblings.into_iter().map(|(_, p)| p).collect())
            })
            .collect(),
    )
}

/// Reads the fingerprints of every file of the registered packages a package's imports name,
/// so that the package's unit re-runs when one of them changes.
fn read_imported_packages(db: &dyn Db, workspace: Workspace, package: PackageInput) {
    let providers = npm_providers(db, workspace);
    let mut imported: BTreeSet<(String, String)> = BTreeSet::new();
    let declared = package_symbols(db, package);
    for file in site_files(db, package, &declared) {
        for site in file.sites {
            let Some(specifier) = site.specifier.as_deref() else {
                continue;
            };
            if let NpmProvider::Found {
                repository, root, ..
            } = npm_provider(specifier, &providers)
            {
                imported.insert((repository, root));
            }
        }
    }
    for repository in workspace.repositories(db) {
        for provider in repository.packages(db) {
            for file in provider.files(db) {
                let at = (
                    file.repository(db).clone(),
                    file.unit(db).package_path.clone(),
                );
                if imported.contains(&at) {
                    file.fingerprint(db);
                }
            }
        }
    }
}

/// Every `package.json` name exactly one registered directory carries, with that directory:
/// the checker finds a registered provider by its name as an installed dependency would. A
/// name two directories claim is left out: which one an import means is not decided here.
/// So is the unit's own package (`own`: repository and directory): a self-reference
/// resolves through its own `exports`, conditions included.
fn registered_packages(
    db: &dyn Db,
    workspace: Workspace,
    own: (&str, &str),
) -> Vec<(String, PathBuf)> {
    let providers = npm_providers(db, workspace);
    let roots: BTreeMap<&str, &str> = workspace
        .repositories(db)
        .iter()
        .map(|r| (r.name(db).as_str(), r.root(db).as_str()))
        .collect();
    providers
        .iter()
        .filter_map(|(name, claimants)| match claimants.as_slice() {
            [(repository, directory)] if (repository.as_str(), directory.as_str()) != own => {
                let root = roots.get(repository.as_str())?;
                Some((name.clone(), Path::new(root).join(directory)))
            }
            _ => None,
        })
        .collect()
}

/// This module's share of [`crate::persisted::attach_restored_queries`].
pub(super) fn attach_restored_queries(db: &mut dyn Db) {
    typescript_unit::set_lru_capacity(db, 0);
    module_directories::set_lru_capacity(db, 0);
}
