//! Rust's provider queries: each crate's names, the registered library crates by name and
//! version, and the crates a package's files reach.

use std::collections::BTreeMap;

use kivgraph_facts::{FactSet, Language};

use super::resolve;
use crate::database::Db;
use crate::inputs::PackageInput;
use crate::inputs::Workspace;
use crate::packages::package_symbols;
use crate::placement::{module_file, placed_files};
use crate::resolve::rust::{CrateNames, Extern, RUST_STANDARD, RustFile, version_accepts};
use crate::stored::Stored;

pub(crate) fn rust_files<'db>(
    db: &'db dyn Db,
    package: PackageInput,
    declared: &'db FactSet,
) -> Vec<RustFile<'db>> {
    package
        .files(db)
        .iter()
        .zip(placed_files(db, package, declared))
        .filter(|(_, (_, merged, _))| merged.language == Language::Rust)
        .map(|(input, (file_facts, merged, first_symbol))| RustFile {
            module: input.unit(db).module.as_str(),
            placed: module_file(file_facts, merged, first_symbol),
        })
        .collect()
}

/// What another crate's paths read of a Rust crate (rule R4): its items and its modules'
/// `use` bindings. Unchanged by edits inside function bodies.
#[salsa::tracked(returns(clone), persist, lru = 0)]
pub fn rust_crate_names(db: &dyn Db, package: PackageInput) -> Stored<CrateNames> {
    let declared = package_symbols(db, package);
    let rusts = rust_files(db, package, &declared);
    Stored::new(resolve::crate_names(&rusts, &declared.symbols))
}

/// Registered library crates by the name code spells them, each with its version.
pub type RustProviders = BTreeMap<String, Vec<(PackageInput, Option<String>)>>;

/// The registered library crates, by the name code spells them (`-` read as `_`), each with
/// its version.
#[salsa::tracked(returns(clone), persist, lru = 0)]
pub fn rust_providers(db: &dyn Db, workspace: Workspace) -> Stored<RustProviders> {
    let mut providers = RustProviders::new();
    for repository in workspace.repositories(db) {
        let maps = repository.module_maps(db);
        for package in repository.packages(db) {
            let Some(first) = package.files(db).first() else {
                continue;
            };
            let unit = first.unit(db);
            // A binary, test or example target (`name#bin:x`) is no dependency of anyone.
            if first.language(db) != Language::Rust
                || unit.package.contains('#')
                || unit.package.starts_with("_/")
            {
                continue;
            }
            let version = maps
                .crate_manifest(&unit.package_path)
                .and_then(|m| m.version.clone());
            // A crate named `name@version` beside a homonym is still `name` to its users.
            let name = unit.package.split('@').next().unwrap_or(&unit.package);
            providers
                .entry(name.replace('-', "_"))
                .or_default()
                .push((*package, version));
        }
    }
    Stored::new(providers)
}

/// What the first segment of a path names for a crate, when the crate does not declare it:
/// a dependency of its `Cargo.toml` (or, for a binary, test or example target, its own
/// library), provided by the registered crate its version requirement accepts.
pub(crate) fn rust_externs<'db>(
    db: &'db dyn Db,
    package: PackageInput,
) -> impl Fn(&str) -> Extern + 'db {
    let first = package.files(db).first();
    let maps = first.and_then(|file| {
        let name = file.repository(db);
        Workspace::get(db)
            .repositories(db)
            .iter()
            .find(|r| r.name(db) == name)
            .map(|r| r.module_maps(db))
    });
    let unit = first.map(|f| f.unit(db));
    let manifest = maps
        .zip(unit)
        .and_then(|(maps, unit)| maps.crate_manifest(&unit.package_path));
    let own = unit.filter(|u| u.package.contains('#')).and_then(|u| {
        let name = u.package.split(['#', '@']).next()?;
        Some(name.replace('-', "_"))
    });
    let providers = rust_providers(db, Workspace::get(db));
    move |name: &str| {
        // `core = { package = "rustc-std-workspace-core" }` only builds the crate into the
        // standard library: `core::` is still the standard library's.
        if RUST_STANDARD.contains(&name) {
            return Extern::Standard;
        }
        let dependency = manifest.and_then(|m| m.dependencies.get(name));
        let (package_name, requirement) = match dependency {
            Some(dependency) => (dependency.package.clone(), dependency.requirement.clone()),
            None if own.as_deref() == Some(name) => (
                name.to_string(),
                manifest
                    .and_then(|m| m.version.as_ref())
                    .map(|v| format!("={v}")),
            ),
            None => return Extern::NotDependency,
        };
        let candidates = providers
            .get(&package_name.replace('-', "_"))
            .map(Vec::as_slice)
            .unwrap_or_default();
        let accepted: Vec<&(PackageInput, Option<String>)> = candidates
            .iter()
            .filter(|(_, version)| version_accepts(requirement.as_deref(), version.as_deref()))
            .collect();
        match (candidates, accepted.as_slice()) {
            ([], _) => Extern::Missing(package_name),
            (_, [(only, _)]) => Extern::Found(rust_crate_names(db, *only).arc()),
            (several, _) => Extern::Ambiguous(package_name, several.len()),
        }
    }
}

/// This module's share of [`crate::persisted::attach_restored_queries`].
pub(crate) fn attach_restored_queries(db: &mut dyn Db) {
    rust_crate_names::set_lru_capacity(db, 0);
    rust_providers::set_lru_capacity(db, 0);
}
