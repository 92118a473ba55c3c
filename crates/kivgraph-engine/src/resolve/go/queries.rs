//! Go's provider queries: which registered package provides an import path, what a
//! `replace` takes elsewhere, each package's names and method sets, and the implementations
//! decided across the workspace.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kivgraph_discovery::GoReplacement;
use kivgraph_facts::{FactSet, Language, StableKey};

use super::implements;
use super::resolve;
use crate::database::Db;
use crate::inputs::PackageInput;
use crate::inputs::{Workspace, repository_of};
use crate::packages::package_symbols;
use crate::placement::placed_files;
use crate::resolve::go::GoMethodSets;
use crate::resolve::go::{GoFile, GoPackageNames, GoProvider, is_go_standard_path};
use crate::stored::Stored;

/// What provides a Go import path to a package, as the workspace's registered packages and
/// the package's `go.mod` say.
pub(crate) fn go_provider<'db>(
    db: &'db dyn Db,
    providers: &'db BTreeMap<String, Vec<PackageInput>>,
    replaces: &'db [GoReplaced],
) -> impl Fn(&str) -> GoProvider + 'db {
    move |path: &str| {
        if is_go_standard_path(path) {
            return GoProvider::Standard;
        }
        match go_claimants(db, providers, replaces, path).as_deref() {
            Err(conflict) => GoProvider::ReplaceConflict(conflict.clone()),
            Ok([]) => GoProvider::Missing,
            Ok([only]) => GoProvider::Found(only.key(db), go_package_names(db, *only).arc()),
            Ok(several) => GoProvider::Ambiguous(several.len()),
        }
    }
}

/// A `replace` directive of the `go.mod` that governs a package, its directory made
/// absolute.
pub(crate) struct GoReplaced {
    module: String,
    with: Replacement,
}

enum Replacement {
    Directory(PathBuf),
    Module(String),
}

impl GoReplaced {
    /// Whether this directive replaces the module `path` (at some version).
    pub(crate) fn replaces_module(&self, path: &str) -> bool {
        self.module == path
    }
}

/// The `replace` directives of the `go.mod` nearest a Go package.
pub(crate) fn go_replaces(db: &dyn Db, package: PackageInput) -> Vec<GoReplaced> {
    let Some(first) = package.files(db).first() else {
        return Vec::new();
    };
    let Some(repository) = repository_of(db, package) else {
        return Vec::new();
    };
    let maps = repository.module_maps(db);
    let Some(root) = maps.go_module_root(&first.unit(db).package_path) else {
        return Vec::new();
    };
    let directory = Path::new(repository.root(db)).join(root);
    maps.go_modules[root]
        .replaces
        .iter()
        .map(|replace| GoReplaced {
            module: replace.path.clone(),
            with: match &replace.with {
                GoReplacement::Directory(target) => {
                    Replacement::Directory(lexically_normal(&directory.join(target)))
                }
                GoReplacement::Module { path, version } => {
                    Replacement::Module(format!("{path}@{version}"))
                }
            },
        })
        .collect()
}

/// The registered packages that provide an import path to an importer with these
/// `replace` directives. A replaced module is what its replacement holds: of the
/// registered claimants, only the one in the replacement directory; none, when the
/// replacement is a module from the module cache. A registered claimant the replacement
/// passes over is a conflict, never bound by its import path.
pub(crate) fn go_claimants(
    db: &dyn Db,
    providers: &BTreeMap<String, Vec<PackageInput>>,
    replaces: &[GoReplaced],
    path: &str,
) -> Result<Vec<PackageInput>, String> {
    let claimants = providers.get(path).cloned().unwrap_or_default();
    let Some(replace) = replaces.iter().find(|r| {
        path.strip_prefix(r.module.as_str())
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    }) else {
        return Ok(claimants);
    };
    if claimants.is_empty() {
        return Ok(claimants);
    }
    let directories: Vec<Option<PathBuf>> = claimants
        .iter()
        .map(|p| go_package_directory(db, *p))
        .collect();
    let with = match &replace.with {
        Replacement::Directory(directory) => {
            let within = path[replace.module.len()..].trim_start_matches('/');
            let expected = directory.join(within);
            let at: Vec<PackageInput> = claimants
                .iter()
                .zip(&directories)
                .filter(|(_, at)| at.as_deref() == Some(expected.as_path()))
                .map(|(package, _)| *package)
                .collect();
            if !at.is_empty() {
                return Ok(at);
            }
            directory.display().to_string()
        }
        Replacement::Module(module) => module.clone(),
    };
    let registered: Vec<String> = directories
        .iter()
        .flatten()
        .map(|d| d.display().to_string())
        .collect();
    Err(format!(
        "go.mod replaces {} with {with}, so the build does not use the registered {} ({})",
        replace.module,
        path,
        registered.join(", ")
    ))
}

/// Where a registered Go package's files are.
fn go_package_directory(db: &dyn Db, package: PackageInput) -> Option<PathBuf> {
    let first = package.files(db).first()?;
    let repository = repository_of(db, package)?;
    Some(lexically_normal(
        &Path::new(repository.root(db)).join(&first.unit(db).package_path),
    ))
}

/// `a/./b/../c` as `a/c`, without asking the file system (a replacement directory need not
/// exist).
fn lexically_normal(path: &Path) -> PathBuf {
    let mut normal = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                normal.pop();
            }
            other => normal.push(other),
        }
    }
    normal
}

/// A Go package's interfaces and method-carrying types with resolved signatures: what
/// interface satisfaction compares. Unchanged by edits inside function bodies.
#[salsa::tracked(returns(clone), persist, lru = 0)]
pub fn go_method_sets(db: &dyn Db, package: PackageInput) -> Stored<GoMethodSets> {
    let declared = package_symbols(db, package);
    let files = go_files(db, package, &declared);
    let Some(first) = files.first() else {
        return Stored::default();
    };
    let import_path = package_import_path(&first.file.package, &declared);
    let own = go_package_names(db, package);
    let providers = go_providers(db, Workspace::get(db));
    let replaces = go_replaces(db, package);
    Stored::new(implements::go_method_sets(
        &files,
        &declared.symbols,
        &own,
        &import_path,
        &go_provider(db, &providers, &replaces),
    ))
}

/// Discovery names a Go package `MODULE IMPORT_PATH`.
fn package_import_path(package: &StableKey, declared: &FactSet) -> String {
    declared
        .packages
        .iter()
        .find(|p| p.key == *package)
        .map(|p| {
            p.name
                .rsplit_once(' ')
                .map_or(p.name.as_str(), |(_, path)| path)
        })
        .unwrap_or_default()
        .to_string()
}

/// Every implicit interface satisfaction of the workspace's Go code, by implementing
/// package (rule G13).
#[salsa::tracked(returns(clone), persist, lru = 0)]
pub fn go_implementations(
    db: &dyn Db,
    workspace: Workspace,
) -> Stored<BTreeMap<StableKey, Stored<FactSet>>> {
    let providers = go_providers(db, workspace);
    let mut packages: Vec<PackageInput> = providers.values().flatten().copied().collect();
    packages.sort_by_key(|p| p.key(db));
    packages.dedup();
    let sets: Vec<Stored<GoMethodSets>> = packages.iter().map(|p| go_method_sets(db, *p)).collect();
    let sets: Vec<&GoMethodSets> = sets.iter().map(|set| &**set).collect();
    Stored::new(
        implements::go_implementations(&sets)
            .into_iter()
            .map(|(package, facts)| (package, Stored::new(facts)))
            .collect(),
    )
}

/// One package's share of [`go_implementations`]: its importers' facts depend on this
/// alone, so a change elsewhere that leaves it equal re-resolves nothing here.
#[salsa::tracked(returns(clone), persist, lru = 0)]
pub fn go_package_implementations(db: &dyn Db, package: PackageInput) -> Option<Stored<FactSet>> {
    go_implementations(db, Workspace::get(db))
        .get(&package.key(db))
        .cloned()
}

/// The Go files of a package with where their symbols sit in `declared`, in merge order.
pub(crate) fn go_files<'db>(
    db: &'db dyn Db,
    package: PackageInput,
    declared: &'db FactSet,
) -> Vec<GoFile<'db>> {
    placed_files(db, package, declared)
        .filter(|(_, merged, _)| merged.language == Language::Go)
        .map(|(file_facts, merged, first_symbol)| GoFile {
            file: merged,
            first_symbol,
            symbol_count: file_facts.symbols.len(),
            package_clause: file_facts.package_clause.as_deref().unwrap_or(""),
            sites: &file_facts.go_sites,
        })
        .collect()
}

/// A Go package's package-level names: what an importer, or the package's own bare calls,
/// can reach. Unchanged by edits inside function bodies, so salsa stops there.
#[salsa::tracked(returns(clone), persist, lru = 0)]
pub fn go_package_names(db: &dyn Db, package: PackageInput) -> Stored<GoPackageNames> {
    let declared = package_symbols(db, package);
    let files = go_files(db, package, &declared);
    Stored::new(resolve::go_package_names(&files, &declared.symbols))
}

/// Which registered packages provide each Go import path. Two claimants make the path
/// ambiguous; none is chosen.
#[salsa::tracked(returns(clone), persist, lru = 0)]
pub fn go_providers(
    db: &dyn Db,
    workspace: Workspace,
) -> Stored<BTreeMap<String, Vec<PackageInput>>> {
    let mut providers: BTreeMap<String, Vec<PackageInput>> = BTreeMap::new();
    for repository in workspace.repositories(db) {
        for package in repository.packages(db) {
            let Some(first) = package.files(db).first() else {
                continue;
            };
            if first.language(db) == Language::Go {
                // Discovery names a Go package `MODULE IMPORT_PATH`.
                let name = &first.unit(db).package;
                let import_path = name
                    .rsplit_once(' ')
                    .map_or(name.as_str(), |(_, path)| path);
                providers
                    .entry(import_path.to_string())
                    .or_default()
                    .push(*package);
            }
        }
    }
    Stored::new(providers)
}

/// This module's share of [`crate::persisted::attach_restored_queries`].
pub(crate) fn attach_restored_queries(db: &mut dyn Db) {
    go_method_sets::set_lru_capacity(db, 0);
    go_implementations::set_lru_capacity(db, 0);
    go_package_implementations::set_lru_capacity(db, 0);
    go_package_names::set_lru_capacity(db, 0);
    go_providers::set_lru_capacity(db, 0);
}
