//! Rust units: each Cargo workspace loaded by rust-analyzer (its `scip` command), against
//! registered sources patched in where a developer working on both would `[patch]` them,
//! and the files and uses the configured build leaves out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use kivgraph_analyzers::{RustSettings, RustUnit};
use kivgraph_facts::{Language, SymbolKind};

use super::groups::{group_analysis, group_contents, load_groups};
use super::recorded::recorded_for_package;
use super::scip_join::mark_unmarked_definitions;
use super::settings::{AnalyzerSettings, configured_covers};
use super::unit::UnitAnalysis;
use crate::database::Db;
use crate::files::file_facts;
use crate::inputs::{FileInput, PackageInput, Workspace, repository_of};
use crate::resolve::rust::rust_providers;
use crate::resolve::rust::version_accepts;
use crate::rust_build::RustBuild;
use crate::stored::Stored;

/// One Cargo workspace of a repository checked by rust-analyzer (`rust-analyzer scip`),
/// owned by its first package. `None` for any other package, and when rust-analyzer is not
/// installed. The unit depends on the workspace's `.rs` files, the repository's manifests
/// and lockfiles, and the files of the registered crates its manifests depend on (a path
/// dependency on another repository is loaded with it).
#[salsa::tracked(returns(ref), persist, lru = 0)]
pub fn rust_unit(db: &dyn Db, package: PackageInput) -> Option<Stored<UnitAnalysis>> {
    if let Some(recorded) = recorded_for_package(db, package) {
        return recorded
            .rust
            .get(&package.key(db))
            .cloned()
            .map(Stored::new);
    }
    analyse_rust(db, package).map(Stored::new)
}

fn analyse_rust(db: &dyn Db, package: PackageInput) -> Option<UnitAnalysis> {
    let settings = AnalyzerSettings::try_get(db)?;
    let analyzer = settings.rust(db).as_ref()?;
    let repository = repository_of(db, package)?;
    if configured_covers(db, repository, Language::Rust) {
        return None;
    }
    let groups = load_groups(db, repository);
    let (root, members) = groups.owned_by(package, Language::Rust)?;
    let (own, symbols) = group_contents(db, members, Language::Rust);
    read_registered_dependencies(db, members);
    let patched = rust_patches(db, package);
    for (_, _, provider) in patched.iter() {
        for file in provider.files(db) {
            file.fingerprint(db);
        }
    }
    let patches: Vec<(String, PathBuf)> = patched
        .iter()
        .map(|(name, directory, _)| (name.clone(), PathBuf::from(directory)))
        .collect();
    let checkout = PathBuf::from(repository.root(db));
    let unit = RustUnit {
        repository_root: &checkout,
        workspace_root: root,
        patches: &patches,
    };
    // The standard library is read as it is shipped: its build scripts, proc macros and
    // `cfg(test)` would have the analyzer build the library itself (ten minutes, not one).
    let shipped;
    let settings = if kivgraph_facts::is_derived(repository.name(db)) {
        shipped = RustSettings {
            build_scripts: false,
            proc_macros: false,
            include_tests: false,
            ..analyzer.settings.clone()
        };
        &shipped
    } else {
        &analyzer.settings
    };
    let mut index = analyzer
        .toolchain
        .index_rust(&unit, settings, &db.analyzer_scratch());
    if let Ok(index) = &mut index {
        let name = repository.name(db);
        let source = |path: &str| {
            let file = (name.clone(), path.to_string());
            let text = db.source_text(*own.get(&file)?)?;
            Some((file, text))
        };
        mark_unmarked_definitions(index, &source, &symbols);
    }
    let patched_packages = index
        .as_ref()
        .map(|i| i.patched.clone())
        .unwrap_or_default();
    let identity = analyzer.toolchain.identity();
    // Per document, whether the analyzer defines anything in it besides the file's own
    // module (whose definition spans the file).
    let defines_items: BTreeMap<String, bool> = index
        .iter()
        .flat_map(|i| &i.documents)
        .map(|d| {
            let items = d
                .occurrences
                .iter()
                .any(|o| o.definition && o.start_line == o.end_line);
            (d.relative_path.clone(), items)
        })
        .collect();
    let rust_build = index.as_ref().ok().map(|index| RustBuild {
        member_features: index.member_features.clone(),
        test: settings.include_tests,
        cfgs: settings.analyzed_cfgs(),
    });
    let mut analysis = group_analysis(db, repository, identity, index, &own, &symbols);
    analysis.not_built = files_not_built(db, members, &defines_items, &analysis.skipped_files);
    analysis.rust_build = rust_build;
    analysis.patched = patched
        .iter()
        .filter(|(package, ..)| patched_packages.contains(package))
        .filter_map(|(package, _, provider)| {
            Some(format!(
                "{package} from {}",
                repository_of(db, *provider)?.name(db)
            ))
        })
        .collect();
    Some(analysis)
}

/// The Rust files of a group's crates that rust-analyzer did not compile although it loaded
/// the crate (it has a document of another file of it). Every file a crate of the build
/// includes is a document, even one with nothing in it, so a file without one is code the
/// build leaves out (a module behind an inactive feature). A document in which the analyzer
/// defines nothing but the file's own module, where the syntax layer reads declarations
/// other than modules (a `mod` line is a reference to the analyzer), holds only code it
/// did not lower (a test crate whose root is `#![cfg]`-ed off): the
/// analyzer defines every item it lowers, those a macro spells out included, at their
/// names. A crate with no document at all was not loaded, which the unit's failure says; a
/// file the analyzer crashed on is not left out by the build.
fn files_not_built(
    db: &dyn Db,
    members: &[PackageInput],
    defines_items: &BTreeMap<String, bool>,
    skipped: &[(String, String)],
) -> Vec<(String, String)> {
    // A Cargo package's targets are packages of the graph of their own (`name#test:it`):
    // the analyzer loaded the Cargo package when it has a document of any of them.
    let cargo_package = |file: &FileInput| {
        let unit = &file.unit(db).package;
        unit.split_once('#')
            .map_or(unit.clone(), |(name, _)| name.to_string())
    };
    let files: Vec<&FileInput> = members
        .iter()
        .flat_map(|package| package.files(db))
        .filter(|f| f.language(db) == Language::Rust)
        .collect();
    let loaded: BTreeSet<String> = files
        .iter()
        .filter(|f| defines_items.contains_key(f.path(db)))
        .map(|f| cargo_package(f))
        .collect();
    let mut not_built = Vec::new();
    for file in files {
        if loaded.contains(&cargo_package(file)) {
            let at = (file.repository(db).clone(), file.path(db).clone());
            let compiled = match defines_items.get(&at.1) {
                None => false,
                Some(defines) => {
                    *defines
                        || file_facts(db, *file)
                            .symbols
                            .iter()
                            .all(|s| s.declaration.kind == SymbolKind::Module)
                }
            };
            if !compiled && !skipped.contains(&at) {
                not_built.push(at);
            }
        }
    }
    not_built.sort();
    not_built
}

/// Reads the files and manifests of the registered crates a workspace's manifests name as
/// path dependencies, and theirs in turn, so that its Rust unit re-runs when one of them
/// changes. A registry dependency is loaded from the local registry, unless a registered
/// crate is patched in for it ([`rust_patches`]), whose files the unit reads itself.
fn read_registered_dependencies(db: &dyn Db, members: &[PackageInput]) {
    let providers = registered_crates(db, Workspace::get(db));
    let mut pending: Vec<&str> = members
        .iter()
        .filter_map(|member| crate_of(db, *member))
        .flat_map(|(_, manifest)| path_dependencies(manifest))
        .collect();
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    while let Some(dependency) = pending.pop() {
        if !seen.insert(dependency) {
            continue;
        }
        for package in providers.get(dependency).into_iter().flatten() {
            for file in package.files(db) {
                file.fingerprint(db);
            }
            if let Some((_, manifest)) = crate_of(db, *package) {
                pending.extend(path_dependencies(manifest));
            }
        }
    }
}

/// The registry dependencies of the Cargo workspace `owner` owns that a registered crate of
/// another workspace provides at a version their requirement accepts — one crate, not
/// several — transitively through the patched crates' own: `(package, directory, crate)`,
/// what a developer working on both would `[patch]`. The unit loads against these sources;
/// cargo, the arbiter, leaves a patch its requirements do not accept unused, and such a use
/// stays `CRATE_VERSION_MISMATCH`.
#[salsa::tracked(returns(clone), persist, lru = 0)]
fn rust_patches(db: &dyn Db, owner: PackageInput) -> Stored<Vec<(String, String, PackageInput)>> {
    let mut patches: Vec<(String, String, PackageInput)> = Vec::new();
    let Some(repository) = repository_of(db, owner) else {
        return Stored::new(patches);
    };
    let groups = load_groups(db, repository);
    let Some((_, members)) = groups.owned_by(owner, Language::Rust) else {
        return Stored::new(patches);
    };
    let providers = rust_providers(db, Workspace::get(db));
    let mut pending: Vec<&kivgraph_discovery::CrateDependency> = members
        .iter()
        .filter_map(|member| crate_of(db, *member))
        .flat_map(|(_, manifest)| manifest.dependencies.values())
        .collect();
    while let Some(dependency) = pending.pop() {
        if dependency.path.is_some() || patches.iter().any(|(name, ..)| *name == dependency.package)
        {
            continue;
        }
        let accepted: Vec<PackageInput> = providers
            .get(&dependency.package.replace('-', "_"))
            .into_iter()
            .flatten()
            .filter(|(provider, version)| {
                !members.contains(provider)
                    && version_accepts(dependency.requirement.as_deref(), version.as_deref())
            })
            .map(|(provider, _)| *provider)
            .collect();
        let [provider] = accepted.as_slice() else {
            continue;
        };
        let (Some(provider_repository), Some((crate_root, manifest))) =
            (repository_of(db, *provider), crate_of(db, *provider))
        else {
            continue;
        };
        let directory = Path::new(provider_repository.root(db)).join(crate_root);
        patches.push((
            dependency.package.clone(),
            directory.display().to_string(),
            *provider,
        ));
        pending.extend(manifest.dependencies.values());
    }
    patches.sort_by(|a, b| a.0.cmp(&b.0));
    Stored::new(patches)
}

/// The `Cargo.toml` a package's files fall under: its directory, repository-relative, and
/// what it says.
fn crate_of(
    db: &dyn Db,
    package: PackageInput,
) -> Option<(&str, &kivgraph_discovery::CrateManifest)> {
    let first = package.files(db).first()?;
    repository_of(db, package)?
        .module_maps(db)
        .crate_at(&first.unit(db).package_path)
}

/// The names a manifest gives its path dependencies.
fn path_dependencies(manifest: &kivgraph_discovery::CrateManifest) -> impl Iterator<Item = &str> {
    manifest
        .dependencies
        .iter()
        .filter(|(_, dependency)| dependency.path.is_some())
        .map(|(name, _)| name.as_str())
}

/// The registered library crates by the name code spells them, without their versions: a
/// manifest's version bump elsewhere leaves this unchanged, so it re-runs no Rust unit.
#[salsa::tracked(returns(clone), persist, lru = 0)]
pub(super) fn registered_crates(
    db: &dyn Db,
    workspace: Workspace,
) -> Stored<BTreeMap<String, Vec<PackageInput>>> {
    let providers = rust_providers(db, workspace);
    Stored::new(
        providers
            .iter()
            .map(|(name, crates)| (name.clone(), crates.iter().map(|(p, _)| *p).collect()))
            .collect(),
    )
}

/// This module's share of [`crate::persisted::attach_restored_queries`].
pub(super) fn attach_restored_queries(db: &mut dyn Db) {
    rust_unit::set_lru_capacity(db, 0);
    rust_patches::set_lru_capacity(db, 0);
    registered_crates::set_lru_capacity(db, 0);
}
