//! Go units: each module checked by our go/types worker, with the registered modules its
//! imports reach joined through a synthetic `go.work`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use kivgraph_analyzers::GoUnit;
use kivgraph_facts::Language;

use super::groups::{group_analysis, group_contents, load_groups};
use super::recorded::recorded_for_package;
use super::settings::{AnalyzerSettings, configured_covers};
use super::unit::UnitAnalysis;
use crate::database::Db;
use crate::files::file_facts;
use crate::inputs::{PackageInput, Workspace, repository_of};
use crate::resolve::go::{go_claimants, go_providers, go_replaces};
use crate::stored::Stored;

/// One Go module of a repository checked by go/types (our worker), owned by its first
/// package. `None` for any other package, and when the worker is not installed. The unit
/// depends on the module's `.go` files, the repository's `go.mod`/`go.sum` files, and the
/// files of the registered packages its imports reach, transitively: their modules are
/// loaded with it, through a synthetic `go.work`.
#[salsa::tracked(returns(ref), persist, lru = 0)]
pub fn go_unit(db: &dyn Db, package: PackageInput) -> Option<Stored<UnitAnalysis>> {
    if let Some(recorded) = recorded_for_package(db, package) {
        return recorded.go.get(&package.key(db)).cloned().map(Stored::new);
    }
    analyse_go(db, package).map(Stored::new)
}

fn analyse_go(db: &dyn Db, package: PackageInput) -> Option<UnitAnalysis> {
    let settings = AnalyzerSettings::try_get(db)?;
    let analyzer = settings.go(db).as_ref()?;
    let repository = repository_of(db, package)?;
    if configured_covers(db, repository, Language::Go) {
        return None;
    }
    let groups = load_groups(db, repository);
    let (module, members) = groups.owned_by(package, Language::Go)?;
    let maps = repository.module_maps(db);
    let module_path = &maps.go_modules.get(module)?.path;
    let (own, symbols) = group_contents(db, members, Language::Go);
    let workspace = reached_go_modules(db, members);
    let checkout = PathBuf::from(repository.root(db));
    let unit = GoUnit {
        repository_root: &checkout,
        module,
        module_path,
        workspace: &workspace,
    };
    let index = analyzer.toolchain.index_go(
        &unit,
        &analyzer.settings,
        settings.go_build(db),
        &db.analyzer_scratch(),
    );
    let identity = analyzer.toolchain.identity();
    Some(group_analysis(
        db, repository, identity, index, &own, &symbols,
    ))
}

/// The directories of the registered Go modules, other than the members' own, that the
/// members' imports reach, transitively, by the packages that provide each import path,
/// and those the go.mod files of these modules require. Reads the files of every package
/// reached, so that the unit re-runs when one changes.
fn reached_go_modules(db: &dyn Db, members: &[PackageInput]) -> Vec<PathBuf> {
    let providers = go_providers(db, Workspace::get(db));
    let mut pending: Vec<PackageInput> = members.to_vec();
    // Every member shares the unit's go.mod.
    let replaces = members
        .first()
        .map(|member| go_replaces(db, *member))
        .unwrap_or_default();
    let mut seen: std::collections::HashSet<PackageInput> = pending.iter().copied().collect();
    let mut reached: BTreeSet<PathBuf> = BTreeSet::new();
    while let Some(package) = pending.pop() {
        for file in package.files(db) {
            if file.language(db) != Language::Go {
                continue;
            }
            for import in &file_facts(db, *file).go_sites.imports {
                // An import path two packages claim is not decided here, nor one a `replace`
                // of the unit's go.mod takes elsewhere.
                let claimants = go_claimants(db, &providers, &replaces, &import.path);
                let Ok([provider]) = claimants.as_deref() else {
                    continue;
                };
                if seen.insert(*provider) {
                    pending.push(*provider);
                }
            }
        }
        if members.contains(&package) {
            continue;
        }
        for file in package.files(db) {
            file.fingerprint(db);
        }
        if let Some(module) = go_module_directory(db, package) {
            reached.insert(module);
        }
    }
    // The go command reads the go.mod of every module the requirement graph names (every
    // one, below `go 1.17`), whether a selected file imports it or not (a requirement of
    // tests alone is one): a registered module a workspace module requires joins the
    // workspace, or the unit fails on the copy nobody downloaded.
    let registered = registered_go_modules(db);
    let mut pending: Vec<PathBuf> = members
        .first()
        .and_then(|m| go_module_directory(db, *m))
        .into_iter()
        .chain(reached.iter().cloned())
        .collect();
    while let Some(module) = pending.pop() {
        let Some((_, requires)) = registered.get(&module) else {
            continue;
        };
        for required in requires {
            if replaces.iter().any(|r| r.replaces_module(required)) {
                continue;
            }
            let mut providers = registered.iter().filter(|(_, (path, _))| path == required);
            if let (Some((directory, _)), None) = (providers.next(), providers.next())
                && reached.insert(directory.clone())
            {
                pending.push(directory.clone());
            }
        }
    }
    if let Some(own) = members.first().and_then(|m| go_module_directory(db, *m)) {
        reached.remove(&own);
    }
    reached.into_iter().collect()
}

/// The directory of the Go module a package belongs to.
fn go_module_directory(db: &dyn Db, package: PackageInput) -> Option<PathBuf> {
    let owner = repository_of(db, package)?;
    let first = package.files(db).first()?;
    let module = owner
        .module_maps(db)
        .go_module_root(&first.unit(db).package_path)?
        .to_string();
    Some(PathBuf::from(owner.root(db)).join(module))
}

/// Every registered Go module by directory: its module path and the paths it requires.
fn registered_go_modules(db: &dyn Db) -> BTreeMap<PathBuf, (String, Vec<String>)> {
    let mut modules = BTreeMap::new();
    for repository in Workspace::get(db).repositories(db) {
        let root = PathBuf::from(repository.root(db));
        for (directory, manifest) in &repository.module_maps(db).go_modules {
            modules.insert(
                root.join(directory),
                (manifest.path.clone(), manifest.requires.clone()),
            );
        }
    }
    modules
}

/// This module's share of [`crate::persisted::attach_restored_queries`].
pub(super) fn attach_restored_queries(db: &mut dyn Db) {
    go_unit::set_lru_capacity(db, 0);
}
