//! The pass driver: discover, read, sync the inputs, analyse in parallel, merge in order.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use kivgraph_config::{FactCacheMode, GoBuildContext, RepositoryEntry};
use kivgraph_discovery::{DiscoveredRepository, discover_repository};
use kivgraph_facts::{FactPage, FactSet, Fingerprint, Language, StableKey, UnresolvedReference};
use rayon::prelude::*;
use salsa::Setter;
use serde::{Deserialize, Serialize};

use kivgraph_analyzers::{GoAnalyzer, RustAnalyzer, Toolchain};

use crate::analysis::{
    AnalyzerSettings, ConfiguredIndexer, UnitAnalysis, configured_units, go_unit, load_groups,
    package_summary, python_unit, rust_unit, typescript_unit,
};
use crate::cache::{self, CacheIdentity, CacheLoad};
use crate::database::{EngineDatabase, ExecutionLog};
use crate::files::{FileFacts, file_facts};
use crate::inputs::{FileInput, PackageInput, RepositoryInput, UnitInput, Workspace};
use crate::keys::package_key;
use crate::merge::{WorkspaceFacts, workspace_facts};
use crate::pages::EnginePage;
use crate::pass_record::{PassRecord, inputs_digest};

/// Files above this size are not analysed (minified bundles, generated blobs); they are
/// reported as skipped.
const MAXIMUM_FILE_BYTES: u64 = 8 << 20;

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(
        "fact cache verification failed: {repository}:{path}: the cached facts disagree with a fresh analysis ({detail})"
    )]
    VerifyMismatch {
        repository: String,
        path: String,
        detail: String,
    },
    #[error(transparent)]
    CacheWrite(#[from] cache::CacheWriteError),
    #[error("could not record what the published pass was computed from: {0}")]
    RecordWrite(String),
}

/// A progress event: a phase, optionally per repository, with a count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Progress {
    pub phase: &'static str,
    pub repository: Option<String>,
    pub completed: usize,
    pub total: usize,
}

#[derive(Debug, Clone)]
pub struct PassOptions {
    pub fact_cache: FactCacheMode,
    pub cache_directory: PathBuf,
    pub identity: CacheIdentity,
    pub analyzers: AnalyzerOptions,
    /// The generation the store serves, if any. With the fact cache `on`, a pass whose
    /// inputs are exactly those that generation was computed from answers with it instead
    /// of recomputing it (`PassGraph::Unchanged`).
    pub published_generation: Option<u64>,
}

/// The exact analyzers a pass runs, as the caller located them. `None` is an absence the
/// pass reports, never a failure: the syntax layer's facts stand.
#[derive(Debug, Clone, Default)]
pub struct AnalyzerOptions {
    pub typescript: Option<Toolchain>,
    pub python: Option<Toolchain>,
    pub rust: Option<RustAnalyzer>,
    pub go: Option<GoAnalyzer>,
    /// Which `.go` files the configured Go build compiles: discovery leaves out the others,
    /// and the worker loads under it. It holds whether or not the worker is installed.
    pub go_build: GoBuildContext,
    /// SCIP indexers the configuration plugs in, each deciding its languages where it runs.
    pub scip_indexers: Vec<ConfiguredIndexer>,
    /// Scratch space for analyzer project files and indexes, under the state directory.
    pub scratch: PathBuf,
    /// How many TypeScript/JavaScript and Python analyzer processes run at once
    /// (`typescript.maximum_workers`).
    pub maximum_workers: usize,
    /// How many Cargo workspaces and Go modules load at once.
    pub loads_at_once: LoadsAtOnce,
    /// Why each absent analyzer is absent, by the language it serves.
    pub absent: Vec<(Language, String)>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepositoryReport {
    pub name: String,
    pub root: String,
    pub files: usize,
    pub symbols: usize,
    /// Files tree-sitter had to recover, with their issue count.
    pub parse_failures: Vec<(String, usize)>,
    /// Entries discovery declined, with why.
    pub skipped: Vec<(String, String)>,
    /// What discovery treated as the repository's own build output.
    pub build_output: Vec<kivgraph_discovery::BuildOutput>,
    /// Why the repository could not be read at all.
    pub unavailable: Option<String>,
    /// Per language with an exact analyzer, what it did for this repository.
    pub analyzers: Vec<AnalyzerRun>,
}

/// How many Rust and Go loads run at once, each with its own budget: each load holds a
/// whole crate graph or type universe in memory (`rust.maximum_workspaces`,
/// `go.maximum_loads`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadsAtOnce {
    pub rust_workspaces: usize,
    pub go_modules: usize,
}

impl Default for LoadsAtOnce {
    fn default() -> Self {
        LoadsAtOnce {
            rust_workspaces: 1,
            go_modules: 1,
        }
    }
}

/// One analyzer unit to run: a TypeScript/JavaScript package, a repository's Python, a
/// Cargo workspace or a Go module (by the package that owns it).
enum Unit {
    Typescript(PackageInput),
    Python(RepositoryInput),
    Rust(PackageInput),
    Go(PackageInput),
    /// The indexers the configuration plugs in, over one repository.
    Configured(RepositoryInput),
}

/// An exact analyzer's work on one repository's files of one language.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnalyzerRun {
    pub language: Language,
    /// `name version`; `None` when the analyzer is absent on this machine.
    pub analyzer: Option<String>,
    /// Units analysed (a TypeScript package directory, the repository's Python).
    pub units: usize,
    /// `unit: why` for each unit the analyzer failed on; its files keep syntax facts.
    pub failures: Vec<String>,
    /// Why the analyzer is absent, when it is.
    pub absent: Option<String>,
    /// `unit: package from repository` for each dependency a unit was loaded against a
    /// registered source for.
    pub patched: Vec<String>,
    /// `unit: how many files, e.g. one` per unit whose build leaves some of its own
    /// files out (Rust: a module behind an inactive feature or `cfg`).
    pub not_built: Vec<String>,
}

/// What a pass produced.
#[derive(Debug, Clone)]
pub enum PassGraph {
    /// A graph to publish, in pages.
    Computed(Vec<EnginePage>),
    /// The pass's inputs are exactly those this published generation was computed from:
    /// it is the answer, to be republished as it is.
    Unchanged { generation: u64 },
}

#[derive(Debug, Clone)]
pub struct PassOutcome {
    pub graph: PassGraph,
    /// The digest of everything the pass computed from (`pass_record`).
    pub inputs_digest: String,
    pub repositories: Vec<RepositoryReport>,
    pub cache: CacheLoad,
    /// How many file extractions ran (the rest were served by the fact cache).
    pub files_analyzed: usize,
    pub files_total: usize,
    pub cache_bytes: Option<u64>,
    /// Wall time of each phase, in order.
    pub timings: Timings,
}

/// Wall time per phase, in the order the phases ran.
#[derive(Debug, Clone)]
pub struct Timings {
    pub phases: Vec<(&'static str, Duration)>,
    last: Instant,
}

impl Default for Timings {
    fn default() -> Self {
        Timings {
            phases: Vec::new(),
            last: Instant::now(),
        }
    }
}

impl Timings {
    /// Closes the phase that ran since the previous lap.
    pub fn lap(&mut self, phase: &'static str) {
        let now = Instant::now();
        self.phases.push((phase, now - self.last));
        self.last = now;
    }
}

/// One repository's files with their contents, ready to enter the database.
pub struct LoadedRepository {
    pub discovered: DiscoveredRepository,
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
        .map(|file| {
            let bytes = std::fs::read(root.join(&file.path)).ok()?;
            let fingerprint = Fingerprint::of(&bytes);
            let len = bytes.len() as u64;
            let text: Arc<str> = match String::from_utf8(bytes) {
                Ok(text) => text.into(),
                Err(err) => String::from_utf8_lossy(err.as_bytes()).into(),
            };
            Some((fingerprint, text, len))
        })
        .collect();
    LoadedRepository {
        discovered,
        sources,
    }
}

/// The engine: a salsa database that lives across passes (watch mode) or across processes
/// (through the fact cache).
#[derive(Default)]
pub struct Engine {
    db: EngineDatabase,
    maximum_workers: usize,
    loads_at_once: LoadsAtOnce,
}

impl Engine {
    pub fn new() -> Self {
        Engine::default()
    }

    /// Restores memos from the fact cache in `directory`.
    pub fn from_cache(directory: &std::path::Path, identity: &CacheIdentity) -> (Self, CacheLoad) {
        let mut engine = Engine::new();
        let load = cache::load(&mut engine.db, directory, identity);
        (engine, load)
    }

    pub fn save_cache(
        &mut self,
        directory: &std::path::Path,
        identity: &CacheIdentity,
    ) -> Result<u64, EngineError> {
        self.db.clear_sources();
        Ok(cache::save(&mut self.db, directory, identity)?)
    }

    pub fn execution_log(&self) -> &ExecutionLog {
        self.db.execution_log()
    }

    pub fn database(&self) -> &EngineDatabase {
        &self.db
    }

    /// Brings the inputs in line with `repositories`, touching only what changed, so that
    /// salsa re-executes only what depends on a change.
    pub fn update(&mut self, repositories: &[LoadedRepository]) {
        let existing_repositories: HashMap<String, RepositoryInput> =
            match Workspace::try_get(&self.db) {
                Some(workspace) => workspace
                    .repositories(&self.db)
                    .iter()
                    .map(|r| (r.name(&self.db).clone(), *r))
                    .collect(),
                None => HashMap::new(),
            };
        let mut repository_inputs = Vec::with_capacity(repositories.len());
        for loaded in repositories {
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
            for (file, source) in discovered.files.iter().zip(&loaded.sources) {
                let Some((fingerprint, text, len)) = source else {
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
            repository_inputs.push(input);
        }
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

    /// Every file of one repository, in merge order.
    fn repository_files(&self, repository: RepositoryInput) -> Vec<FileInput> {
        repository
            .packages(&self.db)
            .iter()
            .flat_map(|p| p.files(&self.db).iter().copied())
            .collect()
    }

    /// Every file of the workspace with its facts, in merge order.
    pub fn all_file_facts(&self) -> Vec<(String, String, FileFacts)> {
        let Some(workspace) = Workspace::try_get(&self.db) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for repository in workspace.repositories(&self.db) {
            for file in self.repository_files(*repository) {
                out.push((
                    repository.name(&self.db).clone(),
                    file.path(&self.db).clone(),
                    FileFacts::clone(file_facts(&self.db, file)),
                ));
            }
        }
        out
    }

    /// Every analyzer unit's answer, by repository and unit name: a TypeScript unit per
    /// package directory, a Python unit per repository.
    pub fn all_unit_analyses(&self) -> Vec<(String, String, UnitAnalysis)> {
        let Some(workspace) = Workspace::try_get(&self.db) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for repository in workspace.repositories(&self.db) {
            for package in repository.packages(&self.db) {
                if let Some(unit) = typescript_unit(&self.db, *package) {
                    let directory = package
                        .files(&self.db)
                        .first()
                        .map(|f| f.unit(&self.db).package_path.clone())
                        .filter(|d| !d.is_empty())
                        .unwrap_or_else(|| ".".into());
                    out.push((
                        repository.name(&self.db).clone(),
                        format!("TypeScript unit {directory}"),
                        UnitAnalysis::clone(unit),
                    ));
                }
            }
            let name = repository.name(&self.db);
            if let Some(unit) = python_unit(&self.db, *repository) {
                out.push((
                    name.clone(),
                    "Python unit".into(),
                    UnitAnalysis::clone(unit),
                ));
            }
            let groups = load_groups(&self.db, *repository);
            for (language, label) in [(Language::Rust, "Rust unit"), (Language::Go, "Go unit")] {
                for (root, owner) in groups.owners(language) {
                    let unit = match language {
                        Language::Rust => rust_unit(&self.db, owner),
                        _ => go_unit(&self.db, owner),
                    };
                    if let Some(unit) = unit {
                        let root = if root.is_empty() { "." } else { root };
                        out.push((
                            name.clone(),
                            format!("{label} {root}"),
                            UnitAnalysis::clone(unit),
                        ));
                    }
                }
            }
        }
        out
    }

    /// Which analyzers the next [`Engine::facts`] runs. Setting the same ones again changes
    /// nothing, so their units stay memoized.
    pub fn set_analyzers(&mut self, options: &AnalyzerOptions) {
        self.maximum_workers = options.maximum_workers.max(1);
        // Where analyzers write is not part of what they answer: it is no input.
        self.db.set_analyzer_scratch(options.scratch.clone());
        self.loads_at_once = options.loads_at_once;
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

    /// What each exact analyzer did for one repository: TypeScript per package, Python as
    /// the workspace's unit; an absent analyzer is reported where the repository has files
    /// it would have read.
    pub fn analyzer_runs(&self, repository: &str, options: &AnalyzerOptions) -> Vec<AnalyzerRun> {
        let Some(workspace) = Workspace::try_get(&self.db) else {
            return Vec::new();
        };
        let Some(input) = workspace
            .repositories(&self.db)
            .iter()
            .find(|r| r.name(&self.db) == repository)
        else {
            return Vec::new();
        };
        let has = |languages: &[Language]| {
            input.packages(&self.db).iter().any(|p| {
                p.files(&self.db)
                    .iter()
                    .any(|f| languages.contains(&f.language(&self.db)))
            })
        };
        let absent = |language: Language| AnalyzerRun {
            language,
            analyzer: None,
            units: 0,
            failures: Vec::new(),
            patched: Vec::new(),
            not_built: Vec::new(),
            absent: options
                .absent
                .iter()
                .find(|(l, _)| *l == language)
                .map(|(_, why)| why.clone()),
        };
        let mut runs = Vec::new();
        let name = input.name(&self.db);
        let indexers = AnalyzerSettings::try_get(&self.db)
            .map(|settings| settings.scip_indexers(&self.db).clone())
            .unwrap_or_default();
        let covered = |language: Language| indexers.iter().any(|i| i.covers(name, language));
        for (indexer, unit) in indexers.iter().zip(configured_units(&self.db, *input)) {
            for language in indexer.languages.iter().filter(|l| has(&[**l])) {
                if !indexer.covers(name, *language) {
                    continue;
                }
                runs.push(AnalyzerRun {
                    language: *language,
                    analyzer: Some(indexer.indexer.identity()),
                    units: usize::from(unit.is_some()),
                    failures: unit
                        .as_deref()
                        .and_then(|unit| unit.failure.clone())
                        .map(|why| format!("{name}: {why}"))
                        .into_iter()
                        .collect(),
                    absent: None,
                    patched: Vec::new(),
                    not_built: Vec::new(),
                });
            }
        }
        if has(&[Language::TypeScript, Language::JavaScript])
            && !(covered(Language::TypeScript) && covered(Language::JavaScript))
        {
            let mut run = absent(Language::TypeScript);
            for package in input.packages(&self.db) {
                let Some(unit) = typescript_unit(&self.db, *package) else {
                    continue;
                };
                run.analyzer = Some(unit.analyzer.clone());
                run.absent = None;
                run.units += 1;
                if let Some(why) = &unit.failure {
                    let directory = package
                        .files(&self.db)
                        .first()
                        .map(|f| f.unit(&self.db).package_path.clone())
                        .unwrap_or_default();
                    run.failures.push(format!("{directory}: {why}"));
                }
            }
            runs.push(run);
        }
        // Python: one unit for the whole repository; Rust and Go: one per Cargo workspace
        // and per module.
        let groups = load_groups(&self.db, *input);
        let owned = |language: Language| -> Vec<(String, &UnitAnalysis)> {
            match language {
                Language::Python => python_unit(&self.db, *input)
                    .as_deref()
                    .map(|unit| ("Python unit".to_string(), unit))
                    .into_iter()
                    .collect(),
                _ => groups
                    .owners(language)
                    .filter_map(|(root, owner)| {
                        let unit = match language {
                            Language::Rust => rust_unit(&self.db, owner),
                            _ => go_unit(&self.db, owner),
                        };
                        let root = if root.is_empty() { "." } else { root };
                        unit.as_deref().map(|unit| (root.to_string(), unit))
                    })
                    .collect(),
            }
        };
        for language in [Language::Python, Language::Rust, Language::Go] {
            if !has(&[language]) || covered(language) {
                continue;
            }
            let mut run = absent(language);
            for (label, unit) in owned(language) {
                run.analyzer = Some(unit.analyzer.clone());
                run.absent = None;
                run.units += 1;
                if let Some(why) = &unit.failure {
                    run.failures.push(format!("{label}: {why}"));
                }
                for (_, path) in &unit.skipped_files {
                    run.failures.push(format!(
                        "{path}: the analyzer crashed on this file; its uses keep syntax-layer facts"
                    ));
                }
                for what in &unit.not_loaded {
                    run.failures.push(format!("WORKSPACE_NOT_LOADED {what}"));
                }
                for (package, why) in &unit.unloaded {
                    run.failures
                        .push(format!("MODULE_NOT_LOADED {package}: {why}"));
                }
                run.patched
                    .extend(unit.patched.iter().map(|p| format!("{label}: {p}")));
                if let Some((_, example)) = unit.not_built.first() {
                    run.not_built.push(format!(
                        "{label}: {} of its files no crate of the configured build compiles (a module behind an inactive feature or cfg, or one no module declares), e.g. {example}",
                        unit.not_built.len()
                    ));
                }
            }
            runs.push(run);
        }
        runs
    }

    /// Runs the analyzer units that need it, heaviest first, each language within its own
    /// budget (TypeScript/JavaScript and Python `maximum_workers`, Rust and Go their loads at
    /// once); merging then reads their memos in unit order.
    /// Runs every analyzer unit, each budget on its own threads, and `meanwhile` on this
    /// thread while they run.
    fn analyze_units(
        &self,
        workspace: Workspace,
        progress: &(dyn Fn(Progress) + Sync),
        meanwhile: impl FnOnce(),
    ) {
        let Some(settings) = AnalyzerSettings::try_get(&self.db) else {
            meanwhile();
            return;
        };
        let typescript = settings.typescript(&self.db).is_some();
        let python = settings.python(&self.db).is_some();
        let rust = settings.rust(&self.db).is_some();
        let go = settings.go(&self.db).is_some();
        let bytes = |packages: &[PackageInput], languages: &[Language]| -> u64 {
            packages
                .iter()
                .flat_map(|p| p.files(&self.db))
                .filter(|f| languages.contains(&f.language(&self.db)))
                .map(|f| f.byte_len(&self.db))
                .sum()
        };
        // Per budget: the modules' (TypeScript, Python), the Cargo workspaces', the Go modules'.
        let mut budgets: [(usize, Vec<(u64, Unit)>); 3] = [
            (self.maximum_workers, Vec::new()),
            (self.loads_at_once.rust_workspaces, Vec::new()),
            (self.loads_at_once.go_modules, Vec::new()),
        ];
        for repository in workspace.repositories(&self.db) {
            let packages = repository.packages(&self.db);
            for package in packages {
                let modules = bytes(
                    std::slice::from_ref(package),
                    &[Language::TypeScript, Language::JavaScript],
                );
                if typescript && modules > 0 {
                    budgets[0].1.push((modules, Unit::Typescript(*package)));
                }
            }
            let python_bytes = bytes(packages, &[Language::Python]);
            if python && python_bytes > 0 {
                budgets[0].1.push((python_bytes, Unit::Python(*repository)));
            }
            let name = repository.name(&self.db);
            let configured: Vec<Language> = Language::ALL
                .iter()
                .copied()
                .filter(|l| {
                    settings
                        .scip_indexers(&self.db)
                        .iter()
                        .any(|i| i.covers(name, *l))
                })
                .collect();
            let configured_bytes = bytes(packages, &configured);
            if configured_bytes > 0 {
                budgets[0]
                    .1
                    .push((configured_bytes, Unit::Configured(*repository)));
            }
            let groups = load_groups(&self.db, *repository);
            for (language, enabled, budget) in [(Language::Rust, rust, 1), (Language::Go, go, 2)] {
                if !enabled {
                    continue;
                }
                for (_, owner) in groups.owners(language) {
                    let Some((_, members)) = groups.owned_by(owner, language) else {
                        continue;
                    };
                    let unit = match language {
                        Language::Rust => Unit::Rust(owner),
                        _ => Unit::Go(owner),
                    };
                    budgets[budget].1.push((bytes(members, &[language]), unit));
                }
            }
        }
        let total: usize = budgets.iter().map(|(_, units)| units.len()).sum();
        let completed = AtomicUsize::new(0);
        let run = |db: &EngineDatabase, unit: &Unit| {
            match unit {
                Unit::Typescript(package) => {
                    typescript_unit(db, *package);
                }
                Unit::Python(repository) => {
                    python_unit(db, *repository);
                }
                Unit::Rust(package) => {
                    rust_unit(db, *package);
                }
                Unit::Go(package) => {
                    go_unit(db, *package);
                }
                Unit::Configured(repository) => {
                    configured_units(db, *repository);
                }
            }
            let done = completed.fetch_add(1, Ordering::Relaxed) + 1;
            progress(Progress {
                phase: "analyze",
                repository: None,
                completed: done,
                total,
            });
        };
        std::thread::scope(|threads| {
            for (workers, mut units) in budgets {
                if units.is_empty() {
                    continue;
                }
                units.sort_by_key(|(bytes, _)| std::cmp::Reverse(*bytes));
                let db = self.db.clone();
                let run = &run;
                threads.spawn(move || {
                    let work = move || {
                        units
                            .par_iter()
                            .for_each_with(db, |db, (_, unit)| run(db, unit));
                    };
                    match rayon::ThreadPoolBuilder::new()
                        .num_threads(workers.max(1))
                        .build()
                    {
                        Ok(pool) => pool.install(work),
                        Err(_) => work(),
                    }
                });
            }
            meanwhile();
        });
    }

    /// What the pass did for one loaded repository: its files, declarations and recovered
    /// files, from its packages' summaries.
    fn repository_report(&self, loaded: &LoadedRepository) -> RepositoryReport {
        let discovered = &loaded.discovered;
        let mut report = RepositoryReport {
            name: discovered.name.clone(),
            root: discovered.root.to_string_lossy().to_string(),
            skipped: discovered.skipped.clone(),
            build_output: discovered.build_output.clone(),
            ..RepositoryReport::default()
        };
        let input = Workspace::try_get(&self.db).and_then(|workspace| {
            workspace
                .repositories(&self.db)
                .iter()
                .find(|r| r.name(&self.db) == &discovered.name)
                .copied()
        });
        for package in input.iter().flat_map(|r| r.packages(&self.db)) {
            let summary = package_summary(&self.db, *package);
            report.files += summary.files;
            report.symbols += summary.symbols;
            report
                .parse_failures
                .extend(summary.parse_failures.iter().cloned());
        }
        report.parse_failures.sort();
        report
    }

    /// Analyses every file that needs it, in parallel, then merges in unit order. The result
    /// shares structure with the memos: call [`WorkspaceFacts::to_fact_set`] to flatten it.
    pub fn facts(&self, progress: &(dyn Fn(Progress) + Sync)) -> Arc<WorkspaceFacts> {
        let Some(workspace) = Workspace::try_get(&self.db) else {
            return Arc::default();
        };
        // The analyzers read the files' texts, not their syntax facts: they run while the
        // syntax layer parses, and the merge waits for both.
        self.analyze_units(workspace, progress, || {
            for repository in workspace.repositories(&self.db) {
                let files = self.repository_files(*repository);
                let name = repository.name(&self.db).clone();
                let completed = AtomicUsize::new(0);
                let total = files.len();
                let step = (total / 20).max(256);
                files.par_iter().for_each_with(self.db.clone(), |db, file| {
                    file_facts(db, *file);
                    let done = completed.fetch_add(1, Ordering::Relaxed) + 1;
                    if done.is_multiple_of(step) {
                        progress(Progress {
                            phase: "parse",
                            repository: Some(name.clone()),
                            completed: done,
                            total,
                        });
                    }
                });
                progress(Progress {
                    phase: "parse",
                    repository: Some(name),
                    completed: total,
                    total,
                });
            }
        });
        progress(Progress {
            phase: "merge",
            repository: None,
            completed: 0,
            total: 1,
        });
        workspace_facts(&self.db, workspace)
    }
}

/// The first file whose facts differ between two engines, with what differs.
fn first_disagreement(cached: &Engine, fresh: &Engine) -> Option<(String, String, String)> {
    let cached_facts = cached.all_file_facts();
    let fresh_facts: HashMap<(String, String), FileFacts> = fresh
        .all_file_facts()
        .into_iter()
        .map(|(r, p, f)| ((r, p), f))
        .collect();
    for (repository, path, facts) in cached_facts {
        let Some(expected) = fresh_facts.get(&(repository.clone(), path.clone())) else {
            return Some((
                repository,
                path,
                "the file is absent from the fresh analysis".into(),
            ));
        };
        if facts != *expected {
            let detail = if facts.symbols.len() != expected.symbols.len() {
                format!(
                    "{} cached symbols, {} analysed",
                    facts.symbols.len(),
                    expected.symbols.len()
                )
            } else if let Some((a, b)) = facts
                .symbols
                .iter()
                .zip(&expected.symbols)
                .find(|(a, b)| a != b)
            {
                format!(
                    "cached {} {:?} differs from analysed {} {:?}",
                    a.declaration.qualified_name,
                    a.declaration.span,
                    b.declaration.qualified_name,
                    b.declaration.span
                )
            } else {
                "file or package facts differ".to_string()
            };
            return Some((repository, path, detail));
        }
    }
    None
}

/// Runs one full pass over the registered repositories.
pub fn run_pass(
    entries: &[RepositoryEntry],
    options: &PassOptions,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<PassOutcome, EngineError> {
    let mut timings = Timings::default();
    let mut loaded = Vec::new();
    let mut unavailable = Vec::new();
    for (index, entry) in entries.iter().enumerate() {
        progress(Progress {
            phase: "discover",
            repository: Some(entry.name.clone()),
            completed: index,
            total: entries.len(),
        });
        match discover_repository(entry, &options.analyzers.go_build) {
            Ok(discovered) => loaded.push(load_repository(discovered)),
            Err(err) => unavailable.push((entry.clone(), err.to_string())),
        }
    }
    timings.lap("discover_and_read");
    let inputs_digest = inputs_digest(
        &options.identity.0,
        &options.analyzers,
        entries,
        &loaded,
        &unavailable,
    );
    if options.fact_cache == FactCacheMode::On
        && let Some(record) = PassRecord::read(&options.cache_directory)
        && record.inputs_digest == inputs_digest
        && options.published_generation == Some(record.generation)
    {
        timings.lap("compare_inputs");
        return Ok(PassOutcome {
            graph: PassGraph::Unchanged {
                generation: record.generation,
            },
            inputs_digest,
            repositories: record.repositories,
            cache: CacheLoad::NotNeeded,
            files_analyzed: 0,
            files_total: record.files_total,
            cache_bytes: crate::cache::size_on_disk(&options.cache_directory),
            timings,
        });
    }
    timings.lap("compare_inputs");
    let (mut engine, cache_load) = match options.fact_cache {
        FactCacheMode::Off => (Engine::new(), CacheLoad::Absent),
        FactCacheMode::On | FactCacheMode::Verify => {
            Engine::from_cache(&options.cache_directory, &options.identity)
        }
    };
    timings.lap("cache_load");
    engine.execution_log().take();
    engine.update(&loaded);
    engine.set_analyzers(&options.analyzers);
    timings.lap("update_inputs");
    let workspace = engine.facts(progress);
    timings.lap("analyse_and_merge");
    let files_analyzed = engine.execution_log().count("file_facts");
    // A unit re-runs with no file changed when its analyzer did.
    let memos_recomputed = engine
        .execution_log()
        .names()
        .iter()
        .filter(|query| !crate::persisted::UNPERSISTED_QUERIES.contains(&query.as_str()))
        .count();
    if options.fact_cache == FactCacheMode::Verify {
        verify_against_fresh(&engine, &workspace, &loaded, &options.analyzers)?;
        timings.lap("verify");
    }
    let mut reports: Vec<RepositoryReport> = loaded
        .iter()
        .map(|l| {
            let mut report = engine.repository_report(l);
            report.analyzers = engine.analyzer_runs(&report.name, &options.analyzers);
            report
        })
        .collect();
    let files_total = reports.iter().map(|r| r.files).sum();
    // A repository that cannot be read is declared, not a failed pass.
    let mut pass_wide = Vec::new();
    for (entry, reason) in unavailable {
        let language = kivgraph_discovery::enabled_languages(&entry.languages)
            .first()
            .copied()
            .unwrap_or(Language::Go);
        pass_wide.push(UnresolvedReference {
            repository: entry.name.clone(),
            language,
            reason: "REPOSITORY_NOT_READABLE".into(),
            file_path: None,
            span: None,
            requested_symbol: None,
            requested_package: None,
            detail: reason.clone(),
        });
        reports.push(RepositoryReport {
            name: entry.name.clone(),
            root: entry.path.to_string_lossy().to_string(),
            unavailable: Some(reason),
            ..RepositoryReport::default()
        });
    }
    timings.lap("reports");
    let cache_bytes = match options.fact_cache {
        FactCacheMode::Off => None,
        // Nothing was recomputed: the memos on disk already hold every fact of this pass
        // (inputs the pass dropped are reconciled again by the next load), so the cache is
        // not rewritten.
        _ if matches!(cache_load, CacheLoad::Loaded) && memos_recomputed == 0 => {
            crate::cache::size_on_disk(&options.cache_directory)
        }
        _ => Some(engine.save_cache(&options.cache_directory, &options.identity)?),
    };
    timings.lap("cache_save");
    // After the save: every page's memo values then have their digest, its identity.
    let pages = workspace.pages(&options.identity.0, &pass_wide);
    // The memo tables of a large workspace take a quarter of a second to free, which
    // nobody needs to wait for.
    std::thread::spawn(move || drop(engine));
    Ok(PassOutcome {
        graph: PassGraph::Computed(pages),
        inputs_digest,
        repositories: reports,
        cache: cache_load,
        files_analyzed,
        files_total,
        cache_bytes,
        timings,
    })
}

/// `fact_cache: verify`: the cached engine's answers against a fresh engine's, file by file,
/// unit by unit, then whole; the first disagreement fails the pass.
fn verify_against_fresh(
    engine: &Engine,
    workspace: &WorkspaceFacts,
    loaded: &[LoadedRepository],
    analyzers: &AnalyzerOptions,
) -> Result<(), EngineError> {
    let mut fresh = Engine::new();
    fresh.update(loaded);
    fresh.set_analyzers(analyzers);
    let fresh_facts = fresh.facts(&|_| {}).to_fact_set();
    if let Some((repository, path, detail)) = first_disagreement(engine, &fresh) {
        return Err(EngineError::VerifyMismatch {
            repository,
            path,
            detail,
        });
    }
    let fresh_units: HashMap<(String, String), UnitAnalysis> = fresh
        .all_unit_analyses()
        .into_iter()
        .map(|(repository, unit, analysis)| ((repository, unit), analysis))
        .collect();
    for (repository, unit, cached) in engine.all_unit_analyses() {
        let analysed = fresh_units.get(&(repository.clone(), unit.clone()));
        if analysed != Some(&cached) {
            let detail = match analysed {
                None => "the unit is absent from the fresh analysis".to_string(),
                Some(analysed) => format!(
                    "{} cached definitions and {} uses, {} and {} analysed",
                    cached.definitions.len(),
                    cached.references.len(),
                    analysed.definitions.len(),
                    analysed.references.len()
                ),
            };
            return Err(EngineError::VerifyMismatch {
                repository,
                path: unit,
                detail,
            });
        }
    }
    if fresh_facts != workspace.to_fact_set() {
        return Err(EngineError::VerifyMismatch {
            repository: "*".into(),
            path: "*".into(),
            detail: "the merged fact sets differ".into(),
        });
    }
    Ok(())
}

impl PassOutcome {
    /// The graph the pass computed, as one fact set (every page decoded); `None` when it
    /// answered with the published generation.
    pub fn computed(&self) -> Option<FactSet> {
        match &self.graph {
            PassGraph::Computed(pages) => {
                Some(FactSet::from_pages(pages.iter().map(FactPage::facts)))
            }
            PassGraph::Unchanged { .. } => None,
        }
    }

    /// Remembers, once `generation` is published from this pass, what it was computed
    /// from: the next pass with the same inputs republishes it. With the fact cache `off`
    /// nothing is remembered.
    pub fn record_published(
        &self,
        options: &PassOptions,
        generation: u64,
    ) -> Result<(), EngineError> {
        if options.fact_cache == FactCacheMode::Off {
            return Ok(());
        }
        PassRecord {
            inputs_digest: self.inputs_digest.clone(),
            generation,
            repositories: self.repositories.clone(),
            files_total: self.files_total,
        }
        .write(&options.cache_directory)
        .map_err(|error| EngineError::RecordWrite(error.to_string()))
    }
}
