//! Where a TypeScript/JavaScript module specifier lands in the graph (rules T1–T3, T5, T8):
//! a relative path in the importer's repository, the importer's `tsconfig.json` mapping, or
//! a registered package's entry points — and, when an entry is the provider's own build
//! output (`types: ./dist/index.d.ts`), the source its build layout emits it from.

use std::collections::BTreeMap;
use std::sync::Arc;

use kivgraph_discovery::ModuleMaps;

use crate::database::Db;
use crate::inputs::{PackageInput, Workspace};
use crate::resolve::typescript::{
    Module, NpmProvider, candidate_paths, is_relative, mapped_paths, npm_provider,
    package_entry_paths,
};
use crate::resolve::typescript::{module_index, npm_providers, package_exports};

/// What a lookup reads of the workspace: which package holds each module file, which
/// directories provide each package name, and each repository's manifests.
pub struct ModuleLookup<'db> {
    db: &'db dyn Db,
    index: Arc<BTreeMap<(String, String), PackageInput>>,
    providers: Arc<BTreeMap<String, Vec<(String, String)>>>,
    maps: BTreeMap<&'db str, &'db ModuleMaps>,
}

impl<'db> ModuleLookup<'db> {
    pub fn new(db: &'db dyn Db) -> Self {
        let workspace = Workspace::get(db);
        ModuleLookup {
            db,
            index: module_index(db, workspace).arc(),
            providers: npm_providers(db, workspace).arc(),
            maps: workspace
                .repositories(db)
                .iter()
                .map(|r| (r.name(db).as_str(), r.module_maps(db)))
                .collect(),
        }
    }

    pub fn maps(&self, repository: &str) -> Option<&'db ModuleMaps> {
        self.maps.get(repository).copied()
    }

    /// The registered directories carrying a `package.json` named `name`, with their
    /// repositories.
    pub fn claimants(&self, name: &str) -> Option<Vec<(String, String)>> {
        self.providers.get(name).cloned()
    }

    /// Who provides a package specifier.
    pub fn provider(&self, specifier: &str) -> NpmProvider {
        npm_provider(specifier, &self.providers)
    }

    /// The package holding a module file.
    pub fn package_of(&self, repository: &str, path: &str) -> Option<PackageInput> {
        self.index
            .get(&(repository.to_string(), path.to_string()))
            .copied()
    }

    /// The first of `candidates` that is a module file of `within`.
    pub fn find(
        &self,
        within: &str,
        candidates: Vec<(String, bool)>,
        certain: bool,
    ) -> Option<Module> {
        candidates.into_iter().find_map(|(path, directory)| {
            let package = self.package_of(within, &path)?;
            Some(Module {
                repository: within.to_string(),
                path,
                package: package.key(self.db),
                exports: package_exports(self.db, package).arc(),
                directory,
                certain,
            })
        })
    }

    /// Where `specifier`, imported by `importer` of repository `from`, lands.
    pub fn lookup(&self, from: &str, importer: &str, specifier: &str) -> Option<Module> {
        if is_relative(specifier) {
            return self.find(from, candidate_paths(importer, specifier), true);
        }
        // Rule T8: the importer's `tsconfig.json` mapping first, then rule T5.
        let mapped = self
            .maps(from)
            .map(|m| mapped_paths(importer, specifier, m))
            .unwrap_or_default();
        if let Some(module) = self.find(from, mapped, false) {
            return Some(module);
        }
        let NpmProvider::Found {
            repository,
            root,
            subpath,
        } = self.provider(specifier)
        else {
            return None;
        };
        let maps = self.maps(&repository);
        let entries = maps.and_then(|m| m.packages.get(&root));
        let candidates = package_entry_paths(importer, &root, &subpath, entries);
        // An entry the provider's build emits is reached at the source it is emitted from.
        let sources: Vec<(String, bool)> = candidates
            .iter()
            .flat_map(|(path, directory)| {
                maps.into_iter()
                    .flat_map(|m| m.emitted_from(path, false))
                    .map(|source| (source, *directory))
            })
            .collect();
        self.find(
            &repository,
            candidates.into_iter().chain(sources).collect(),
            false,
        )
    }
}
