//! The engine's salsa inputs, and what identifies each: a file by repository and path
//! (its fingerprint the tracked value), a package by its files, a repository by its root
//! and manifests, the workspace as the registered repositories.

use kivgraph_discovery::ModuleMaps;
use kivgraph_facts::{Fingerprint, Language, StableKey};
use serde::{Deserialize, Serialize};

use crate::database::Db;

/// Which package a file belongs to, as discovery assigned it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct UnitInput {
    pub package: String,
    pub package_path: String,
    pub module: String,
}

/// One source file. Identified by repository and path; its content by fingerprint.
#[salsa::input(persist)]
pub struct FileInput {
    #[returns(ref)]
    pub repository: String,
    #[returns(ref)]
    pub path: String,
    #[returns(copy)]
    pub language: Language,
    #[returns(ref)]
    pub unit: UnitInput,
    #[returns(copy)]
    pub fingerprint: Fingerprint,
    #[returns(copy)]
    pub byte_len: u64,
}

/// One package of a repository (the unit of merging) and its files, sorted by path.
#[salsa::input(persist)]
pub struct PackageInput {
    #[returns(copy)]
    pub key: StableKey,
    #[returns(ref)]
    pub files: Vec<FileInput>,
}

/// One registered repository and its packages, sorted by key.
#[salsa::input(persist)]
pub struct RepositoryInput {
    #[returns(ref)]
    pub name: String,
    #[returns(ref)]
    pub root: String,
    #[returns(ref)]
    pub languages: Vec<Language>,
    #[returns(ref)]
    pub packages: Vec<PackageInput>,
    /// What the repository's `package.json` and `tsconfig.json` files say about specifiers.
    #[returns(ref)]
    pub module_maps: ModuleMaps,
}

/// The registered repositories, in registry order.
#[salsa::input(persist, singleton)]
pub struct Workspace {
    #[returns(ref)]
    pub repositories: Vec<RepositoryInput>,
}

/// The repositories whose exact analyzers the next merge leaves out, by name, sorted: a
/// watcher publishes a save's syntax layer at once and the analyzers' layer in the
/// generation after. Never persisted: a process starts with nothing deferred.
#[salsa::input(singleton)]
pub struct Deferral {
    #[returns(ref)]
    pub repositories: Vec<String>,
}

/// Whether the analyzers of repository `name` are deferred (see [`Deferral`]).
pub fn analyzers_deferred(db: &dyn Db, name: &str) -> bool {
    Deferral::try_get(db).is_some_and(|deferral| {
        deferral
            .repositories(db)
            .binary_search_by(|r| r.as_str().cmp(name))
            .is_ok()
    })
}

/// The registered repository a package belongs to.
pub fn repository_of(db: &dyn Db, package: PackageInput) -> Option<RepositoryInput> {
    let name = package.files(db).first()?.repository(db);
    Workspace::get(db)
        .repositories(db)
        .iter()
        .find(|r| r.name(db) == name)
        .copied()
}
