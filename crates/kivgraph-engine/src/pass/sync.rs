//! Reading the registered repositories and bringing the engine's inputs in line with them,
//! touching only what changed, so that salsa re-executes only what depends on a change.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use kivgraph_discovery::DiscoveredRepository;
use kivgraph_facts::{Fingerprint, StableKey};
use rayon::prelude::*;
use salsa::Setter;

use super::engine::{Engine, Synced};
use super::options::AnalyzerOptions;
use crate::analysis::AnalyzerSettings;
use crate::inputs::{Deferral, FileInput, PackageInput, RepositoryInput, UnitInput, Workspace};
use crate::keys::package_key;

impl Engine {
    /// Brings the inputs in line with `repositories`, touching only what changed, so that
    /// salsa re-executes only what depends on a change.
    pub fn update(&mut self, repositories: &[LoadedRepository]) {
        let all_sources = std::mem::take(&mut self.sources_cleared);
        let mut synced = HashMap::with_capacity(repositories.len());
        let mut repository_inputs = Vec::with_capacity(repositories.len());
        for loaded in repositories {
            let name = loaded.discovered.name.clone();
            let kept = self.synced.remove(&name).filter(|s| {
                Arc::ptr_eq(&s.discovered, &loaded.discovered)
                    && s.files.len() == loaded.sources.len()
                    && s.files
                        .iter()
                        .zip(&loaded.sources)
                        .all(|(file, source)| file.is_some() == source.is_some())
            });
            let repository = match kept {
                Some(kept) => self.update_sources(kept, loaded, all_sources),
                None => self.update_repository(loaded),
            };
            repository_inputs.push(repository.input);
            synced.insert(name, repository);
        }
        self.synced = synced;
        match Workspace::try_get(&self.db) {
            Some(workspace) => {
                if *workspace.repositories(&self.db) != repository_inputs {
                    workspace
                        .set_repositories(&mut self.db)
                        .to(repository_inputs);
                }
            }
            None => {
                Workspace::new(&self.db, repository_inputs);
            }
        }
    }

    /// A repository read by the same discovery as the last update, with the same files
    /// readable: only the fingerprints of files whose text changed are set.
    fn update_sources(
        &mut self,
        kept: Synced,
        loaded: &LoadedRepository,
        all_sources: bool,
    ) -> Synced {
        for (input, source) in kept.files.iter().zip(&loaded.sources) {
            let (Some(input), Some((fingerprint, text, len))) = (input, source) else {
                continue;
            };
            let changed = input.fingerprint(&self.db) != *fingerprint;
            if changed || all_sources {
                self.db.add_source(*fingerprint, text.clone());
            }
            if changed {
                input.set_fingerprint(&mut self.db).to(*fingerprint);
                input.set_byte_len(&mut self.db).to(*len);
            }
        }
        kept
    }

    /// A repository read again by discovery (or not synced before): every file, package
    /// and the repository compared with the inputs that exist.
    fn update_repository(&mut self, loaded: &LoadedRepository) -> Synced {
        let existing_repositories: HashMap<String, RepositoryInput> =
            match Workspace::try_get(&self.db) {
                Some(workspace) => workspace
                    .repositories(&self.db)
                    .iter()
                    .map(|r| (r.name(&self.db).clone(), *r))
                    .collect(),
                None => HashMap::new(),
            };
        {
            let discovered = &loaded.discovered;
            let root = discovered.root.to_string_lossy().to_string();
            let existing = existing_repositories.get(&discovered.name).copied();
            let existing_packages: HashMap<StableKey, PackageInput> = existing
                .map(|r| {
                    r.packages(&self.db)
                        .iter()
                        .map(|p| (p.key(&self.db), *p))
                        .collect()
                })
                .unwrap_or_default();
            let existing_files: HashMap<String, FileInput> = existing_packages
                .values()
                .flat_map(|p| {
                    p.files(&self.db)
                        .iter()
                        .map(|f| (f.path(&self.db).clone(), *f))
                })
                .collect();
            // Files in path order, grouped by package key (sorted).
            let mut packages: BTreeMap<StableKey, Vec<FileInput>> = BTreeMap::new();
            let mut files = Vec::with_capacity(discovered.files.len());
            for (file, source) in discovered.files.iter().zip(&loaded.sources) {
                let Some((fingerprint, text, len)) = source else {
                    files.push(None);
                    continue;
                };
                self.db.add_source(*fingerprint, text.clone());
                let unit = UnitInput {
                    package: file.unit.package.clone(),
                    package_path: file.unit.package_path.clone(),
                    module: file.unit.module.clone(),
                };
                let package = package_key(file.language, &discovered.name, &unit.package);
                let input = match existing_files.get(&file.path) {
                    Some(input) => {
                        let input = *input;
                        if input.fingerprint(&self.db) != *fingerprint {
                            input.set_fingerprint(&mut self.db).to(*fingerprint);
                            input.set_byte_len(&mut self.db).to(*len);
                        }
                        if input.language(&self.db) != file.language {
                            input.set_language(&mut self.db).to(file.language);
                        }
                        if *input.unit(&self.db) != unit {
                            input.set_unit(&mut self.db).to(unit);
                        }
                        input
                    }
                    None => FileInput::new(
                        &self.db,
                        discovered.name.clone(),
                        file.path.clone(),
                        file.language,
                        unit,
                        *fingerprint,
                        *len,
                    ),
                };
                files.push(Some(input));
                packages.entry(package).or_default().push(input);
            }
            let mut package_inputs = Vec::with_capacity(packages.len());
            for (key, files) in packages {
                let input = match existing_packages.get(&key) {
                    Some(input) => {
                        let input = *input;
                        if *input.files(&self.db) != files {
                            input.set_files(&mut self.db).to(files);
                        }
                        input
                    }
                    None => PackageInput::new(&self.db, key, files),
                };
                package_inputs.push(input);
            }
            let input = match existing {
                Some(input) => {
                    if *input.root(&self.db) != root {
                        input.set_root(&mut self.db).to(root);
                    }
                    if *input.languages(&self.db) != discovered.languages {
                        input
                            .set_languages(&mut self.db)
                            .to(discovered.languages.clone());
                    }
                    if *input.packages(&self.db) != package_inputs {
                        input.set_packages(&mut self.db).to(package_inputs);
                    }
                    if *input.module_maps(&self.db) != discovered.module_maps {
                        input
                            .set_module_maps(&mut self.db)
                            .to(discovered.module_maps.clone());
                    }
                    input
                }
                None => RepositoryInput::new(
                    &self.db,
                    discovered.name.clone(),
                    root,
                    discovered.languages.clone(),
                    package_inputs,
                    discovered.module_maps.clone(),
                ),
            };
            Synced {
                discovered: loaded.discovered.clone(),
                input,
                files,
            }
        }
    }

    /// Every file of one repository, in merge order.
    pub(super) fn repository_files(&self, repository: RepositoryInput) -> Vec<FileInput> {
        repository
            .packages(&self.db)
            .iter()
            .flat_map(|p| p.files(&self.db).iter().copied())
            .collect()
    }

    /// Which analyzers the next [`Engine::facts`] runs. Setting the same ones again changes
    /// nothing, so their units stay memoized.
    pub fn set_analyzers(&mut self, options: &AnalyzerOptions) {
        self.maximum_workers = options.maximum_workers.max(1);
        // Where analyzers write is not part of what they answer: it is no input.
        self.db.set_analyzer_scratch(options.scratch.clone());
        self.loads_at_once = options.loads_at_once;
        match Deferral::try_get(&self.db) {
            Some(deferral) => {
                if deferral.repositories(&self.db) != &options.deferred_repositories {
                    deferral
                        .set_repositories(&mut self.db)
                        .to(options.deferred_repositories.clone());
                }
            }
            None => {
                Deferral::new(&self.db, options.deferred_repositories.clone());
            }
        }
        match AnalyzerSettings::try_get(&self.db) {
            Some(settings) => {
                if settings.typescript(&self.db) != &options.typescript {
                    settings
                        .set_typescript(&mut self.db)
                        .to(options.typescript.clone());
                }
                if settings.python(&self.db) != &options.python {
                    settings.set_python(&mut self.db).to(options.python.clone());
                }
                if settings.rust(&self.db) != &options.rust {
                    settings.set_rust(&mut self.db).to(options.rust.clone());
                }
                if settings.go(&self.db) != &options.go {
                    settings.set_go(&mut self.db).to(options.go.clone());
                }
                if settings.go_build(&self.db) != &options.go_build {
                    settings
                        .set_go_build(&mut self.db)
                        .to(options.go_build.clone());
                }
                if settings.scip_indexers(&self.db) != &options.scip_indexers {
                    settings
                        .set_scip_indexers(&mut self.db)
                        .to(options.scip_indexers.clone());
                }
            }
            None => {
                AnalyzerSettings::new(
                    &self.db,
                    options.typescript.clone(),
                    options.python.clone(),
                    options.rust.clone(),
                    options.go.clone(),
                    options.go_build.clone(),
                    options.scip_indexers.clone(),
                );
            }
        }
    }
}

/// Files above this size are not analysed (minified bundles, generated blobs); they are
/// reported as skipped.
pub(super) const MAXIMUM_FILE_BYTES: u64 = 8 << 20;

/// One repository's files with their contents, ready to enter the database.
#[derive(Clone)]
pub struct LoadedRepository {
    /// Shared: a repository kept from the last pass is known to be discovered alike by
    /// its pointer.
    pub discovered: Arc<DiscoveredRepository>,
    /// Parallel to `discovered.files`; `None` for a file that could not be read.
    pub sources: Vec<Option<(Fingerprint, Arc<str>, u64)>>,
}

/// Reads and fingerprints every discovered file, in parallel, preserving order.
pub fn load_repository(mut discovered: DiscoveredRepository) -> LoadedRepository {
    let root = discovered.root.clone();
    let mut oversized = Vec::new();
    discovered
        .files
        .retain(|file| match std::fs::metadata(root.join(&file.path)) {
            Ok(meta) if meta.len() > MAXIMUM_FILE_BYTES => {
                oversized.push((
                    file.path.clone(),
                    format!("larger than {} MiB, not analysed", MAXIMUM_FILE_BYTES >> 20),
                ));
                false
            }
            _ => true,
        });
    discovered.skipped.extend(oversized);
    discovered.skipped.sort();
    let sources = discovered
        .files
        .par_iter()
        .map(|file| Some(source_of(std::fs::read(root.join(&file.path)).ok()?)))
        .collect();
    LoadedRepository {
        discovered: Arc::new(discovered),
        sources,
    }
}

/// A file's bytes as the engine takes them: fingerprint, text (lossy), length.
pub(super) fn source_of(bytes: Vec<u8>) -> (Fingerprint, Arc<str>, u64) {
    let fingerprint = Fingerprint::of(&bytes);
    let len = bytes.len() as u64;
    let text: Arc<str> = match String::from_utf8(bytes) {
        Ok(text) => text.into(),
        Err(err) => String::from_utf8_lossy(err.as_bytes()).into(),
    };
    (fingerprint, text, len)
}
