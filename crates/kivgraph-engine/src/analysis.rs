//! Exact analyzers as analysis units of the engine, and how their answers layer over the
//! syntax layer's.
//!
//! Units: a TypeScript/JavaScript package directory is one unit, checked by the TypeScript
//! compiler (through `scip-typescript`) as one program; a repository's Python is one unit,
//! checked by pyright (through `scip-python`) in a project where every registered
//! repository is importable; a repository's Rust is one unit, each of its Cargo workspaces
//! loaded by rust-analyzer (its `scip` command); a SCIP indexer the configuration plugs in
//! (`scip.indexers`) is one unit per repository, and decides the languages it covers there
//! in place of their built-in analyzer. Each unit is a tracked, persisted query, so the fact cache covers
//! analyzer output exactly as it covers syntax facts: its identity includes the analyzer's
//! exact version (an input), its inputs are the fingerprints of the files the analyzer read,
//! and an unchanged unit is served from the cache without starting Node.
//!
//! The analyzer decides the target; the syntax layer decides the class of use (call, type
//! use, import…) at that position. Where the analyzer bound a site to a declaration of the
//! graph, its exact edges replace the syntax layer's edges and holes at that site;
//! everywhere else the syntax facts stand with their own confidence.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use kivgraph_analyzers::{
    GoAnalyzer, GoUnit, LineIndex, PythonUnit, RustAnalyzer, RustSettings, RustUnit, ScipIndex,
    ScipIndexer, Toolchain, TypescriptUnit, nearest_tsconfig,
};
use kivgraph_config::GoBuildContext;
use kivgraph_discovery::installed_package;
use kivgraph_facts::{
    Confidence, Edge, EdgeKind, Evidence, FactSet, Fingerprint, Language, LineSpan, Provenance,
    Reason, StableKey, SymbolFact, SymbolKind, UnresolvedReference,
};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

use crate::artifacts::{ArtifactFile, ArtifactPlacer, Placement, artifacts_read, npm_manifests};
use crate::database::Db;
use crate::queries::{
    FileInput, PackageInput, RepositoryInput, Workspace, evidence_key, file_facts, go_claimants,
    go_files, go_providers, go_replaces, module_index, npm_providers, package_facts,
    package_symbols, rust_providers, site_files,
};
use crate::resolve::rust::version_accepts;
use crate::resolve::typescript::{ModuleSite, NpmProvider, npm_provider};
use crate::rust_build::RustBuild;
use crate::stored::Stored;

/// Which exact analyzers a pass may run. An absent analyzer leaves the syntax layer's
/// facts standing; a present one's version is part of every unit's identity.
#[salsa::input(persist, singleton)]
pub struct AnalyzerSettings {
    #[returns(ref)]
    pub typescript: Option<Toolchain>,
    #[returns(ref)]
    pub python: Option<Toolchain>,
    #[returns(ref)]
    pub rust: Option<RustAnalyzer>,
    #[returns(ref)]
    pub go: Option<GoAnalyzer>,
    /// Which `.go` files a Go load compiles: the files discovery selected, and the worker's.
    #[returns(ref)]
    pub go_build: GoBuildContext,
    #[returns(ref)]
    pub scip_indexers: Vec<ConfiguredIndexer>,
}

/// A SCIP indexer plugged in by configuration, with the languages it decides and where.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ConfiguredIndexer {
    pub indexer: ScipIndexer,
    pub languages: Vec<Language>,
    /// Every registered repository when empty.
    pub repositories: Vec<String>,
}

impl ConfiguredIndexer {
    pub fn covers(&self, repository: &str, language: Language) -> bool {
        self.languages.contains(&language)
            && (self.repositories.is_empty() || self.repositories.iter().any(|r| r == repository))
    }
}

/// Whether a configured indexer, not the built-in analyzer, decides `language` in
/// `repository`.
fn configured_covers(db: &dyn Db, repository: RepositoryInput, language: Language) -> bool {
    AnalyzerSettings::try_get(db).is_some_and(|settings| {
        let name = repository.name(db);
        settings
            .scip_indexers(db)
            .iter()
            .any(|indexer| indexer.covers(name, language))
    })
}

/// The configured indexers' units of one repository, by the configuration's order: `None`
/// where an indexer covers none of the repository's languages.
#[salsa::tracked(returns(ref), persist, lru = 0)]
pub fn configured_units(
    db: &dyn Db,
    repository: RepositoryInput,
) -> Vec<Option<Stored<UnitAnalysis>>> {
    let Some(settings) = AnalyzerSettings::try_get(db) else {
        return Vec::new();
    };
    settings
        .scip_indexers(db)
        .iter()
        .map(|indexer| analyse_configured(db, repository, indexer).map(Stored::new))
        .collect()
}

fn analyse_configured(
    db: &dyn Db,
    repository: RepositoryInput,
    configured: &ConfiguredIndexer,
) -> Option<UnitAnalysis> {
    let name = repository.name(db);
    // The unit depends on the files of the languages it decides, and on their declarations.
    let mut own: BTreeMap<(String, String), Fingerprint> = BTreeMap::new();
    let mut symbols: Vec<SymbolFact> = Vec::new();
    for package in repository.packages(db) {
        let mut covered = false;
        for file in package.files(db) {
            if configured.covers(name, file.language(db)) {
                covered = true;
                own.insert((name.clone(), file.path(db).clone()), file.fingerprint(db));
            }
        }
        if covered {
            symbols.extend(
                package_symbols(db, *package)
                    .symbols
                    .iter()
                    .filter(|s| configured.covers(name, s.language))
                    .cloned(),
            );
        }
    }
    if own.is_empty() {
        return None;
    }
    let analyzer = configured.indexer.identity();
    let index = match configured
        .indexer
        .index_repository(Path::new(repository.root(db)), &db.analyzer_scratch())
    {
        Ok(index) => index,
        Err(error) => return Some(failed(analyzer, error)),
    };
    // Documents are paths from the root the indexer ran in: the repository's own.
    let locate = |path: &str| Some((name.clone(), path.trim_start_matches("./").to_string()));
    Some(UnitAnalysis {
        configured: true,
        ..unit_analysis(db, analyzer, &index, &own, &locate, &symbols)
    })
}

/// What one unit's analyzer said: in the graph's terms for the declarations of the files it
/// analysed, in the analyzer's symbols for the names those files use.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct UnitAnalysis {
    /// `tool version`, as the analyzer reported itself.
    pub analyzer: String,
    /// Why the analyzer gave no answer for this unit, when it did not.
    pub failure: Option<String>,
    pub definitions: Vec<Definition>,
    /// Every non-local reference in the unit's files, by file, then position.
    pub references: Vec<UnitReference>,
    /// `(implementing, implemented)` analyzer symbols, for members the unit defines.
    pub implementations: Vec<(String, String)>,
    /// `(typed, type)` analyzer symbols, for declarations the unit defines.
    pub type_definitions: Vec<(String, String)>,
    /// `(repository, path)` of files the analyzer crashed on and was made to leave out:
    /// their uses keep the syntax layer's facts.
    pub skipped_files: Vec<(String, String)>,
    /// Per file and spelling, the occurrences the analyzer bound to something that is no
    /// declaration of the graph (a local, a parameter, a module, an unkeyed member): spelled,
    /// but owed no edge.
    pub outside: Vec<Outside>,
    /// What the analyzer said it could not load (a Cargo workspace's dependencies): its
    /// answers hold for what it loaded, and the rest is a declared blind spot.
    pub not_loaded: Vec<String>,
    /// `(package, detail)` of packages the build configuration excluded entirely.
    pub unbuildable: Vec<(String, String)>,
    /// `(package, detail)` of packages not checked because what they import could not be
    /// loaded (`module/...`: every package of a module the loader could not list).
    pub unloaded: Vec<(String, String)>,
    /// Produced by an indexer plugged in by configuration: its edges carry `SCIP_INDEXER`.
    pub configured: bool,
    /// The registered packages' module files the checker bound uses to, with what their
    /// declaration maps say (TypeScript/JavaScript).
    #[serde(default)]
    pub artifacts: Vec<ArtifactFile>,
    /// `package from repository`: dependencies the unit was loaded against a registered
    /// source for, as a developer working on both would `[patch]` them (Rust).
    #[serde(default)]
    pub patched: Vec<String>,
    /// `(repository, path)` of the unit's own files no crate of its build includes (a module
    /// behind an inactive feature or `cfg`, a file no module declares): code the configured
    /// build does not compile, so what it spells is no use (Rust).
    #[serde(default)]
    pub not_built: Vec<(String, String)>,
    /// The Rust build the unit was analysed as, to decide the `cfg`s its files spell.
    #[serde(default)]
    pub rust_build: Option<RustBuild>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Outside {
    pub repository: String,
    pub path: String,
    pub name: String,
    pub count: u32,
}

impl UnitAnalysis {
    /// The provenance of the edges this unit decides in a file of `language`.
    fn provenance(&self, language: Language) -> Provenance {
        if self.configured {
            Provenance::ScipIndexer
        } else {
            provenance_of(language)
        }
    }

    /// The uses the unit found in one file.
    fn references_in(&self, repository: &str, path: &str) -> &[UnitReference] {
        in_file(&self.references, repository, path)
    }

    /// The spellings the unit bound outside the graph in one file.
    fn outside_in(&self, repository: &str, path: &str) -> &[Outside] {
        in_file(&self.outside, repository, path)
    }
}

/// A row a unit keeps sorted by the file it was observed in.
trait InFile {
    fn file(&self) -> (&str, &str);
}

impl InFile for UnitReference {
    fn file(&self) -> (&str, &str) {
        (&self.repository, &self.path)
    }
}

impl InFile for Outside {
    fn file(&self) -> (&str, &str) {
        (&self.repository, &self.path)
    }
}

/// The run of `rows` (sorted by file) that belongs to one file.
fn in_file<'a, T: InFile>(rows: &'a [T], repository: &str, path: &str) -> &'a [T] {
    let start = rows.partition_point(|row| row.file() < (repository, path));
    let end = rows.partition_point(|row| row.file() <= (repository, path));
    &rows[start..end]
}

/// An analyzer symbol and the declaration of the graph it names.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Definition {
    pub symbol: String,
    pub key: StableKey,
    pub kind: SymbolKind,
    pub repository: String,
    pub path: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct UnitReference {
    pub repository: String,
    pub path: String,
    pub span: LineSpan,
    /// The name as the source spells it at that position.
    pub text: String,
    pub symbol: String,
}

/// The reference relations an exact analyzer decides for `language` where it analysed
/// every unit: each site is an exact edge, a use of something outside the graph, or still
/// the syntax layer's edge or declared hole.
pub fn analyzed_relations(language: Language) -> &'static [EdgeKind] {
    match language {
        Language::TypeScript | Language::JavaScript | Language::Python => &[
            EdgeKind::ImportsSymbol,
            EdgeKind::Exports,
            EdgeKind::Reexports,
            EdgeKind::CallsDirect,
            EdgeKind::PassesAsCallback,
            EdgeKind::AssignsFunction,
            EdgeKind::ReturnsFunction,
            EdgeKind::References,
            EdgeKind::TypeUses,
            EdgeKind::Extends,
            EdgeKind::Implements,
            EdgeKind::Overrides,
        ],
        // An `impl Trait for Type` header stays the syntax layer's (rule R5): the analyzer
        // names the trait there, not which declaration implements it.
        Language::Rust => &[
            EdgeKind::ImportsSymbol,
            EdgeKind::CallsDirect,
            EdgeKind::References,
            EdgeKind::TypeUses,
        ],
        // Imports name packages, not declarations; interface satisfaction stays the
        // syntax layer's (rules G-I).
        Language::Go => &[
            EdgeKind::CallsDirect,
            EdgeKind::PassesAsCallback,
            EdgeKind::AssignsFunction,
            EdgeKind::ReturnsFunction,
            EdgeKind::References,
            EdgeKind::TypeUses,
            EdgeKind::Embeds,
        ],
    }
}

fn is_module_language(language: Language) -> bool {
    matches!(language, Language::TypeScript | Language::JavaScript)
}

/// A TypeScript/JavaScript package checked as one program. `None` when the package is not
/// one, or when no TypeScript analyzer is installed.
#[salsa::tracked(returns(ref), persist, lru = 0)]
pub fn typescript_unit(db: &dyn Db, package: PackageInput) -> Option<Stored<UnitAnalysis>> {
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
fn module_place(db: &dyn Db, package: PackageInput) -> Option<(String, String, Language)> {
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
fn module_siblings(db: &dyn Db, package: PackageInput) -> Vec<PackageInput> {
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
fn module_directories(
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

/// A repository's Python checked by pyright, in a project where every registered
/// repository with Python is importable. `None` when the repository has no Python, or when
/// no Python analyzer is installed. A crash of the analyzer costs this repository's unit
/// only.
#[salsa::tracked(returns(ref), persist, lru = 0)]
pub fn python_unit(db: &dyn Db, repository: RepositoryInput) -> Option<Stored<UnitAnalysis>> {
    analyse_python(db, repository).map(Stored::new)
}

fn analyse_python(db: &dyn Db, repository: RepositoryInput) -> Option<UnitAnalysis> {
    let settings = AnalyzerSettings::try_get(db)?;
    let toolchain = settings.python(db).as_ref()?;
    if configured_covers(db, repository, Language::Python) {
        return None;
    }
    let workspace = Workspace::get(db);
    let target = repository.name(db);
    let mut repositories: Vec<(String, PathBuf)> = Vec::new();
    let mut import_roots: BTreeSet<String> = BTreeSet::new();
    // Every Python file of the workspace, by (repository, path): what pyright may read.
    let mut python_files: BTreeMap<(String, String), FileInput> = BTreeMap::new();
    let mut declared: Vec<Arc<FactSet>> = Vec::new();
    for input in workspace.repositories(db) {
        let name = input.name(db);
        let mut has_python = false;
        for package in input.packages(db) {
            let mut package_has_python = false;
            for file in package.files(db) {
                if file.language(db) != Language::Python {
                    continue;
                }
                package_has_python = true;
                python_files.insert((name.clone(), file.path(db).clone()), *file);
                if let Some(root) = python_import_root(file.path(db), &file.unit(db).module) {
                    import_roots.insert(if root.is_empty() {
                        name.clone()
                    } else {
                        format!("{name}/{root}")
                    });
                }
            }
            if package_has_python && input == &repository {
                declared.push(package_symbols(db, *package).arc());
            }
            has_python |= package_has_python;
        }
        if has_python {
            repositories.push((name.clone(), PathBuf::from(input.root(db))));
        }
    }
    if declared.is_empty() {
        return None;
    }
    let import_roots: Vec<String> = import_roots.into_iter().collect();
    let unit = PythonUnit {
        repositories: &repositories,
        import_roots: &import_roots,
        target,
    };
    let analyzer = toolchain.identity();
    let index = match toolchain.index_python(&unit, &db.analyzer_scratch()) {
        Ok(index) => index,
        Err(error) => return Some(failed(analyzer, error)),
    };
    // Documents come back relative to the target's link: `path` for its own files,
    // `../<repository>/path` for a file read in another repository.
    let locate = |path: &str| match path.strip_prefix("../") {
        Some(elsewhere) => {
            let (link, rest) = elsewhere.split_once('/')?;
            Some((link.to_string(), rest.to_string()))
        }
        None => Some((target.clone(), path.to_string())),
    };
    // The unit depends on its own files and on every other file pyright read.
    let mut own: BTreeMap<(String, String), Fingerprint> = BTreeMap::new();
    for ((name, path), file) in &python_files {
        if name == target {
            own.insert((name.clone(), path.clone()), file.fingerprint(db));
        }
    }
    for document in &index.documents {
        if let Some(at) = locate(&document.relative_path)
            && let Some(file) = python_files.get(&at)
        {
            file.fingerprint(db);
        }
    }
    let symbols: Vec<SymbolFact> = declared
        .iter()
        .flat_map(|facts| facts.symbols.iter().cloned())
        .collect();
    Some(unit_analysis(db, analyzer, &index, &own, &locate, &symbols))
}

/// The directory a Python file's imports start from: its path without the module path.
pub fn python_import_root(path: &str, module: &str) -> Option<String> {
    let dotted = module.replace('.', "/");
    let tail = if path.ends_with("/__init__.py") || path == "__init__.py" {
        format!("{dotted}/__init__.py")
    } else {
        format!("{dotted}.py")
    };
    let root = path.strip_suffix(&tail)?;
    Some(root.trim_end_matches('/').to_string())
}

/// A repository's packages grouped the way an analyzer loads them: Rust packages by Cargo
/// workspace root, Go packages by module directory. The first package of a group, in
/// repository order, owns the group's unit.
#[derive(Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoadGroups {
    /// `(language, root)` → the group's packages.
    pub groups: BTreeMap<(Language, String), Vec<PackageInput>>,
}

impl LoadGroups {
    /// The root and packages of the group `package` belongs to for `language`.
    fn of(&self, package: PackageInput, language: Language) -> Option<(&str, &[PackageInput])> {
        self.groups
            .iter()
            .find(|((l, _), members)| *l == language && members.contains(&package))
            .map(|((_, root), members)| (root.as_str(), members.as_slice()))
    }

    /// The owner of each group of `language`, with the group's root.
    pub fn owners(&self, language: Language) -> impl Iterator<Item = (&str, PackageInput)> {
        self.groups
            .iter()
            .filter(move |((l, _), _)| *l == language)
            .filter_map(|((_, root), members)| Some((root.as_str(), *members.first()?)))
    }

    /// The packages of the group `owner` owns, when it owns one.
    pub fn owned_by(
        &self,
        owner: PackageInput,
        language: Language,
    ) -> Option<(&str, &[PackageInput])> {
        self.of(owner, language)
            .filter(|(_, members)| members.first() == Some(&owner))
    }
}

#[salsa::tracked(returns(clone), persist, lru = 0)]
pub fn load_groups(db: &dyn Db, repository: RepositoryInput) -> Stored<LoadGroups> {
    let maps = repository.module_maps(db);
    let mut groups = LoadGroups::default();
    for package in repository.packages(db) {
        for language in [Language::Rust, Language::Go] {
            let Some(first) = package
                .files(db)
                .iter()
                .find(|f| f.language(db) == language)
            else {
                continue;
            };
            let directory = &first.unit(db).package_path;
            let root = match language {
                Language::Rust => maps.cargo_workspace_root(directory),
                _ => maps.go_module_root(directory),
            };
            if let Some(root) = root {
                groups
                    .groups
                    .entry((language, root.to_string()))
                    .or_default()
                    .push(*package);
            }
        }
    }
    Stored::new(groups)
}

/// The files of `language` and the declarations of a group's packages.
fn group_contents(
    db: &dyn Db,
    members: &[PackageInput],
    language: Language,
) -> (BTreeMap<(String, String), Fingerprint>, Vec<SymbolFact>) {
    let mut own = BTreeMap::new();
    let mut symbols = Vec::new();
    for package in members {
        for file in package.files(db) {
            if file.language(db) == language {
                own.insert(
                    (file.repository(db).clone(), file.path(db).clone()),
                    file.fingerprint(db),
                );
            }
        }
        symbols.extend(package_symbols(db, *package).symbols.iter().cloned());
    }
    (own, symbols)
}

/// One Cargo workspace of a repository checked by rust-analyzer (`rust-analyzer scip`),
/// owned by its first package. `None` for any other package, and when rust-analyzer is not
/// installed. The unit depends on the workspace's `.rs` files, the repository's manifests
/// and lockfiles, and the files of the registered crates its manifests depend on (a path
/// dependency on another repository is loaded with it).
#[salsa::tracked(returns(ref), persist, lru = 0)]
pub fn rust_unit(db: &dyn Db, package: PackageInput) -> Option<Stored<UnitAnalysis>> {
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
    let index = analyzer
        .toolchain
        .index_rust(&unit, settings, &db.analyzer_scratch());
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

/// A Rust or Go unit's answer: the analyzer's index joined with the group's declarations,
/// or why there is none.
fn group_analysis(
    db: &dyn Db,
    repository: RepositoryInput,
    identity: String,
    index: Result<ScipIndex, kivgraph_analyzers::AnalyzerError>,
    own: &BTreeMap<(String, String), Fingerprint>,
    symbols: &[SymbolFact],
) -> UnitAnalysis {
    let index = match index {
        Ok(index) => index,
        Err(error) => return failed(identity, error),
    };
    let name = repository.name(db);
    let locate = |path: &str| Some((name.clone(), path.to_string()));
    unit_analysis(db, identity, &index, own, &locate, symbols)
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

/// One Go module of a repository checked by go/types (our worker), owned by its first
/// package. `None` for any other package, and when the worker is not installed. The unit
/// depends on the module's `.go` files, the repository's `go.mod`/`go.sum` files, and the
/// files of the registered packages its imports reach, transitively: their modules are
/// loaded with it, through a synthetic `go.work`.
#[salsa::tracked(returns(ref), persist, lru = 0)]
pub fn go_unit(db: &dyn Db, package: PackageInput) -> Option<Stored<UnitAnalysis>> {
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

/// The registered library crates by the name code spells them, without their versions: a
/// manifest's version bump elsewhere leaves this unchanged, so it re-runs no Rust unit.
#[salsa::tracked(returns(clone), persist, lru = 0)]
fn registered_crates(
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

fn failed(analyzer: String, error: kivgraph_analyzers::AnalyzerError) -> UnitAnalysis {
    tracing::warn!(%error, "analyzer failed; the syntax layer's facts stand for its unit");
    UnitAnalysis {
        analyzer,
        failure: Some(error.to_string()),
        ..UnitAnalysis::default()
    }
}

/// Joins an index's occurrences with the declarations of the files the unit owns:
/// a definition names the innermost declaration spelled as it is at its position; a
/// reference keeps its position and spelling for the layering to class.
fn unit_analysis(
    db: &dyn Db,
    analyzer: String,
    index: &ScipIndex,
    own: &BTreeMap<(String, String), Fingerprint>,
    locate: &dyn Fn(&str) -> Option<(String, String)>,
    symbols: &[SymbolFact],
) -> UnitAnalysis {
    let mut by_file: BTreeMap<(&str, &str), Vec<&SymbolFact>> = BTreeMap::new();
    for symbol in symbols {
        by_file
            .entry((&symbol.repository, &symbol.file_path))
            .or_default()
            .push(symbol);
    }
    let mut analysis = UnitAnalysis {
        analyzer,
        skipped_files: index.skipped.iter().filter_map(|p| locate(p)).collect(),
        not_loaded: index.not_loaded.clone(),
        unbuildable: index.unbuildable.clone(),
        unloaded: index.unloaded.clone(),
        ..UnitAnalysis::default()
    };
    for document in &index.documents {
        let Some((repository, path)) = locate(&document.relative_path) else {
            continue;
        };
        let Some(fingerprint) = own.get(&(repository.clone(), path.clone())) else {
            continue;
        };
        let Some(text) = db.source_text(*fingerprint) else {
            continue;
        };
        let lines = LineIndex::new(&text);
        let declared = by_file
            .get(&(repository.as_str(), path.as_str()))
            .map(Vec::as_slice)
            .unwrap_or_default();
        let mut defined: BTreeSet<&str> = BTreeSet::new();
        let mut outside: BTreeMap<String, u32> = BTreeMap::new();
        // A local the document never binds is a name an unresolved import brought (the
        // checker gives it no declaration): a use nobody bound, still owed an explanation.
        let bound_locals: BTreeSet<&str> = document
            .occurrences
            .iter()
            .filter(|o| o.definition && o.is_local())
            .map(|o| o.symbol.as_str())
            .collect();
        for occurrence in &document.occurrences {
            let Some((start, end)) = occurrence.to_bytes(&lines) else {
                continue;
            };
            if occurrence.is_local() {
                if bound_locals.contains(occurrence.symbol.as_str()) {
                    *outside.entry(text[start..end].to_string()).or_default() += 1;
                }
                continue;
            }
            if names_a_module(&occurrence.symbol) {
                *outside.entry(text[start..end].to_string()).or_default() += 1;
                continue;
            }
            // pyright spans a renaming import whole (`Square as Square`): the name used is
            // the one before `as`. rust-analyzer defines a module over its whole file: no
            // name is spelled there.
            let spelled = &text[start..end];
            if spelled.contains('\n') {
                continue;
            }
            let (spelled, end) = match spelled.split_once(" as ") {
                Some((name, _)) => (name.trim_end(), start + name.trim_end().len()),
                None => (spelled, end),
            };
            if occurrence.definition {
                match innermost(declared, start, |s| s.name == spelled) {
                    Some(symbol) => {
                        defined.insert(&occurrence.symbol);
                        analysis.definitions.push(Definition {
                            symbol: occurrence.symbol.clone(),
                            key: symbol.key,
                            kind: symbol.kind,
                            repository: repository.clone(),
                            path: path.clone(),
                        });
                    }
                    None => *outside.entry(spelled.to_string()).or_default() += 1,
                }
                continue;
            }
            analysis.references.push(UnitReference {
                repository: repository.clone(),
                path: path.clone(),
                span: LineSpan {
                    start_line: occurrence.start_line + 1,
                    end_line: occurrence.end_line + 1,
                    start_byte: start as u32,
                    end_byte: end as u32,
                },
                text: spelled.to_string(),
                symbol: occurrence.symbol.clone(),
            });
        }
        analysis
            .outside
            .extend(outside.into_iter().map(|(name, count)| Outside {
                repository: repository.clone(),
                path: path.clone(),
                name,
                count,
            }));
        for (related, relationships) in [
            (&mut analysis.implementations, &document.implementations),
            (&mut analysis.type_definitions, &document.type_definitions),
        ] {
            related.extend(
                relationships
                    .iter()
                    .filter(|(symbol, _)| defined.contains(symbol.as_str()))
                    .cloned(),
            );
        }
    }
    // By file, so that each package reads only its own files' share.
    analysis.references.sort_by(|a, b| {
        (&a.repository, &a.path, a.span.start_byte, &a.symbol).cmp(&(
            &b.repository,
            &b.path,
            b.span.start_byte,
            &b.symbol,
        ))
    });
    analysis
        .outside
        .sort_by(|a, b| (&a.repository, &a.path, &a.name).cmp(&(&b.repository, &b.path, &b.name)));
    // Whatever order the analyzer wrote its documents in, the unit's answer is the same.
    analysis.definitions.sort_by(|a, b| {
        (&a.repository, &a.path, &a.symbol, a.key).cmp(&(&b.repository, &b.path, &b.symbol, b.key))
    });
    analysis.implementations.sort();
    analysis.implementations.dedup();
    analysis.type_definitions.sort();
    analysis.type_definitions.dedup();
    analysis
}

/// A symbol that names a file or a module rather than a declaration:
/// `` src/`cache.ts`/ `` (TypeScript), `` `pkg.mod`/__init__: `` (Python), `crate/` or
/// `store/` (Rust: a crate root or a module), `go-package net/http` (Go: an imported package,
/// or the universe's `builtin`).
fn names_a_module(symbol: &str) -> bool {
    (symbol.ends_with('/') && (symbol.contains("`/") || symbol.starts_with("rust-analyzer ")))
        || symbol.ends_with("__init__:")
        || symbol.starts_with("go-package ")
}

/// The innermost declaration of `symbols` holding byte `at` that `accepts`.
fn innermost<'a>(
    symbols: &[&'a SymbolFact],
    at: usize,
    accepts: impl Fn(&SymbolFact) -> bool,
) -> Option<&'a SymbolFact> {
    let at = at as u32;
    symbols
        .iter()
        .filter(|s| s.span.start_byte <= at && at < s.span.end_byte.max(s.span.start_byte + 1))
        .filter(|s| accepts(s))
        .min_by_key(|s| s.span.end_byte - s.span.start_byte)
        .copied()
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

/// The units whose answers cover a package's files.
fn units_of(db: &dyn Db, package: PackageInput) -> Vec<&UnitAnalysis> {
    let mut units: Vec<&UnitAnalysis> = Vec::new();
    let Some(repository) = repository_of(db, package) else {
        return units;
    };
    if let Some(owner) = module_siblings(db, package).first()
        && let Some(unit) = typescript_unit(db, *owner)
    {
        units.push(unit);
    }
    let languages: BTreeSet<Language> = package.files(db).iter().map(|f| f.language(db)).collect();
    if languages.contains(&Language::Python)
        && let Some(unit) = python_unit(db, repository).as_deref()
    {
        units.push(unit);
    }
    let groups = load_groups(db, repository);
    if let Some((_, members)) = groups.of(package, Language::Rust)
        && let Some(unit) = rust_unit(db, members[0]).as_deref()
    {
        units.push(unit);
    }
    if let Some((_, members)) = groups.of(package, Language::Go)
        && let Some(unit) = go_unit(db, members[0]).as_deref()
    {
        units.push(unit);
    }
    if let Some(settings) = AnalyzerSettings::try_get(db) {
        let name = repository.name(db);
        let indexers = settings.scip_indexers(db);
        for (indexer, unit) in indexers.iter().zip(configured_units(db, repository)) {
            if languages.iter().any(|l| indexer.covers(name, *l))
                && let Some(unit) = unit.as_deref()
            {
                units.push(unit);
            }
        }
    }
    units.retain(|unit| unit.failure.is_none());
    units
}

/// The analyzer symbols of the workspace's units that name declarations of the graph.
#[derive(Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnalyzerDefinitions {
    /// Symbol → the declarations it names (several for merged declarations and overloads).
    pub keys: BTreeMap<String, Vec<StableKey>>,
    /// Symbols two files define (one module path in two repositories): which one the
    /// analyzer resolved a use to is not known, so such a use decides nothing.
    pub ambiguous: BTreeSet<String>,
    /// Symbols defined only in declaration files (`.d.ts`): what the checker reads for the
    /// types of a JavaScript module that ships one, not the module a JavaScript file binds
    /// at run time.
    pub declared_only: BTreeSet<String>,
    /// The kind of each declaration a symbol names.
    pub kinds: BTreeMap<StableKey, SymbolKind>,
    /// For the symbols configured indexers define: the symbol with its package version
    /// left out ([`Moniker::unversioned`]) → the versions the graph defines it at.
    pub configured_versions: BTreeMap<String, BTreeSet<String>>,
}

/// A global SCIP symbol's parts: `scheme manager package version descriptors` (a local
/// symbol has none).
struct Moniker<'a> {
    package: &'a str,
    version: &'a str,
    unversioned: String,
}

impl<'a> Moniker<'a> {
    fn parse(symbol: &'a str) -> Option<Moniker<'a>> {
        let mut parts = symbol.splitn(5, ' ');
        let (scheme, manager, package, version, descriptors) = (
            parts.next()?,
            parts.next()?,
            parts.next()?,
            parts.next()?,
            parts.next()?,
        );
        (scheme != "local").then(|| Moniker {
            package,
            version,
            unversioned: format!("{scheme} {manager} {package} {descriptors}"),
        })
    }
}

/// A use a configured indexer resolved into a package the graph defines the symbol of, but
/// at another version: declared `PACKAGE_VERSION_MISMATCH`, never bound to the registered
/// copy.
fn moniker_version_mismatch(
    definitions: &AnalyzerDefinitions,
    reference: &UnitReference,
    language: Language,
) -> Option<UnresolvedReference> {
    let moniker = Moniker::parse(&reference.symbol)?;
    let versions = definitions.configured_versions.get(&moniker.unversioned)?;
    let (package, version) = (moniker.package, moniker.version);
    Some(UnresolvedReference {
        repository: reference.repository.clone(),
        language,
        reason: "PACKAGE_VERSION_MISMATCH".to_string(),
        file_path: Some(reference.path.clone()),
        span: Some(reference.span),
        requested_symbol: Some(reference.text.clone()),
        requested_package: Some(format!("{package} {version}")),
        detail: format!(
            "the indexer resolved this use into {package} {version}; the graph defines it at {}",
            versions.iter().cloned().collect::<Vec<_>>().join(", ")
        ),
    })
}

impl AnalyzerDefinitions {
    /// Whether every target is data (a field, a property, a constant): a value read, never
    /// a function passed, assigned or returned.
    fn all_data(&self, targets: &[StableKey]) -> bool {
        !targets.is_empty()
            && targets.iter().all(|t| {
                matches!(
                    self.kinds.get(t),
                    Some(
                        SymbolKind::Field
                            | SymbolKind::Property
                            | SymbolKind::EnumMember
                            | SymbolKind::Const
                            | SymbolKind::Constant
                    )
                )
            })
    }
}

fn is_declaration_file(path: &str) -> bool {
    [".d.ts", ".d.mts", ".d.cts"]
        .iter()
        .any(|suffix| path.ends_with(suffix))
}

/// The registered repository a package belongs to.
pub(crate) fn repository_of(db: &dyn Db, package: PackageInput) -> Option<RepositoryInput> {
    let name = package.files(db).first()?.repository(db);
    Workspace::get(db)
        .repositories(db)
        .iter()
        .find(|r| r.name(db) == name)
        .copied()
}

/// Every analyzer symbol the workspace's units define, with the declarations it names.
#[salsa::tracked(returns(clone), persist, lru = 0)]
pub fn analyzer_definitions(db: &dyn Db, workspace: Workspace) -> Stored<AnalyzerDefinitions> {
    // Per symbol: the files defining it, and the declarations it names.
    type Places<'a> = BTreeMap<&'a str, (BTreeSet<(&'a str, &'a str)>, Vec<StableKey>)>;
    let mut places: Places = BTreeMap::new();
    let packages = workspace
        .repositories(db)
        .iter()
        .flat_map(|r: &RepositoryInput| r.packages(db).iter().copied());
    let mut units: Vec<&UnitAnalysis> = packages
        .filter_map(|package| typescript_unit(db, package).as_deref())
        .collect();
    for repository in workspace.repositories(db) {
        let groups = load_groups(db, *repository);
        units.extend(
            groups
                .owners(Language::Rust)
                .filter_map(|(_, owner)| rust_unit(db, owner).as_deref()),
        );
        units.extend(
            groups
                .owners(Language::Go)
                .filter_map(|(_, owner)| go_unit(db, owner).as_deref()),
        );
        units.extend(python_unit(db, *repository).as_deref());
        units.extend(
            configured_units(db, *repository)
                .iter()
                .filter_map(|unit| unit.as_deref()),
        );
    }
    let mut kinds = BTreeMap::new();
    let mut configured_versions: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for unit in units {
        for definition in &unit.definitions {
            if unit.configured
                && let Some(moniker) = Moniker::parse(&definition.symbol)
            {
                configured_versions
                    .entry(moniker.unversioned)
                    .or_default()
                    .insert(moniker.version.to_string());
            }
            kinds.insert(definition.key, definition.kind);
            let (files, keys) = places.entry(&definition.symbol).or_default();
            files.insert((&definition.repository, &definition.path));
            if !keys.contains(&definition.key) {
                keys.push(definition.key);
            }
        }
    }
    let mut definitions = AnalyzerDefinitions {
        kinds,
        configured_versions,
        ..AnalyzerDefinitions::default()
    };
    for (symbol, (files, keys)) in places {
        if files.iter().all(|(_, path)| is_declaration_file(path)) {
            definitions.declared_only.insert(symbol.to_string());
        }
        if files.len() == 1 {
            definitions.keys.insert(symbol.to_string(), keys);
        } else {
            definitions.ambiguous.insert(symbol.to_string());
        }
    }
    Stored::new(definitions)
}

/// This module's share of [`crate::queries::attach_restored_queries`].
pub(crate) fn attach_restored_queries(db: &mut dyn Db) {
    typescript_unit::set_lru_capacity(db, 0);
    crate::artifacts::attach_restored_queries(db);
    module_directories::set_lru_capacity(db, 0);
    python_unit::set_lru_capacity(db, 0);
    load_groups::set_lru_capacity(db, 0);
    rust_unit::set_lru_capacity(db, 0);
    go_unit::set_lru_capacity(db, 0);
    registered_crates::set_lru_capacity(db, 0);
    analyzer_definitions::set_lru_capacity(db, 0);
    configured_units::set_lru_capacity(db, 0);
    package_summary::set_lru_capacity(db, 0);
    analyzed_package_facts::set_lru_capacity(db, 0);
    member_holders::set_lru_capacity(db, 0);
}

/// The provenance of an analyzer's edges.
fn provenance_of(language: Language) -> Provenance {
    match language {
        Language::Python => Provenance::PythonIndexerUse,
        Language::Rust => Provenance::RustAnalyzerUse,
        Language::Go => Provenance::GoTypesUse,
        _ => Provenance::TypescriptChecker,
    }
}

/// A package's facts with its analyzers' answers layered over the syntax layer's.
#[salsa::tracked(returns(clone), persist, lru = 0)]
pub fn analyzed_package_facts(db: &dyn Db, package: PackageInput) -> Stored<FactSet> {
    let syntax = package_facts(db, package);
    let units = units_of(db, package);
    if units.is_empty() {
        return syntax;
    }
    let definitions = analyzer_definitions(db, Workspace::get(db));
    let declared = package_symbols(db, package);
    let files = layer_files(db, package, &declared);
    let mut layer = Layer::default();
    let covered: BTreeSet<Language> = match repository_of(db, package) {
        Some(repository) => Language::ALL
            .iter()
            .copied()
            .filter(|l| configured_covers(db, repository, *l))
            .collect(),
        None => BTreeSet::new(),
    };
    let by_key: BTreeMap<StableKey, &SymbolFact> =
        declared.symbols.iter().map(|s| (s.key, s)).collect();
    let syntax_implements = syntax_implements(&syntax);
    // Built on the first use of a registered package's artifact: it reads every
    // repository's manifests.
    let placer_cell = std::cell::OnceCell::new();
    let placer = || {
        placer_cell.get_or_init(|| {
            let directory = module_place(db, package)
                .map(|(_, d, _)| d)
                .unwrap_or_default();
            let repository = declared
                .packages
                .first()
                .map(|p| p.repository.clone())
                .unwrap_or_default();
            ArtifactPlacer::new(db, &definitions, (repository, directory))
        })
    };
    for unit in &units {
        layer.not_built.extend(
            syntax
                .files
                .iter()
                .map(|f| (f.repository.clone(), f.path.clone()))
                .filter(|file| unit.not_built.binary_search(file).is_ok()),
        );
        if let Some(build) = &unit.rust_build {
            layer.leave_out_inactive_code(db, package, build);
        }
        for file in &files {
            let (repository, path) = (&file.file.repository, &file.file.path);
            let symbols =
                &declared.symbols[file.first_symbol..file.first_symbol + file.symbol_count];
            let holders: Vec<&SymbolFact> = symbols.iter().collect();
            let references = unit.references_in(repository, path);
            // A file of a language a configured indexer decides is that indexer's alone
            // (the TypeScript checker also reads the JavaScript beside it).
            if references.is_empty() || (!unit.configured && covered.contains(&file.file.language))
            {
                continue;
            }
            // The file's sites by the names they spell (an import's alias too).
            let mut sites_named: BTreeMap<&str, Vec<&ModuleSite>> = BTreeMap::new();
            for site in file.sites.iter() {
                sites_named
                    .entry(site.name.as_str())
                    .or_default()
                    .push(site);
                if let Some(alias) = site.alias.as_deref().filter(|a| *a != site.name) {
                    sites_named.entry(alias).or_default().push(site);
                }
            }
            for reference in references {
                // Two files define the symbol: which one the analyzer meant is not known,
                // unless two registered packages claim its name (a declared failure).
                let ambiguous = definitions.ambiguous.contains(&reference.symbol);
                // A symbol that names no declaration of the graph (the standard library, an
                // installed dependency, a parameter) still decides the site: the analyzer
                // proved it is not a declaration the syntax layer could have bound.
                let mut targets = definitions
                    .keys
                    .get(&reference.symbol)
                    .filter(|_| !ambiguous)
                    .map(Vec::as_slice)
                    .unwrap_or_default();
                let mut exactness = (
                    Confidence::ExactTypechecked,
                    unit.provenance(file.file.language),
                );
                let placed;
                if targets.is_empty() {
                    // A registered package's artifact: its source, or a declared failure.
                    let placement = if !unit.configured && is_module_language(file.file.language) {
                        placer().place(&unit.artifacts, reference, file.file)
                    } else {
                        Placement::Outside
                    };
                    let claimed_twice = matches!(&placement, Placement::Unresolved(hole)
                        if hole.reason == Reason::AmbiguousPackageProvider.as_str());
                    if ambiguous && !claimed_twice {
                        continue;
                    }
                    match placement {
                        Placement::Source {
                            targets: found,
                            confidence,
                            provenance,
                        } => {
                            placed = found;
                            targets = &placed;
                            exactness = (confidence, provenance);
                        }
                        Placement::Unresolved(hole) => layer.holes.push(hole),
                        Placement::Outside => {
                            let mismatch = if unit.configured {
                                moniker_version_mismatch(
                                    &definitions,
                                    reference,
                                    file.file.language,
                                )
                            } else {
                                version_mismatch(db, reference)
                            };
                            match mismatch {
                                Some(hole) => layer.holes.push(hole),
                                None => layer.owed_nothing(repository, path, &reference.text, 1),
                            }
                        }
                    }
                }
                // A JavaScript file bound, by the checker, to a declaration file: the syntax
                // layer's binding to the module it runs stands.
                if file.file.language == Language::JavaScript
                    && definitions.declared_only.contains(&reference.symbol)
                {
                    continue;
                }
                let at = reference.span.start_byte;
                // The smallest syntax site around the position that spells the name is the
                // class of use; a name no site records (a value read, a property) is a plain
                // reference.
                let site = sites_named
                    .get(reference.text.as_str())
                    .into_iter()
                    .flatten()
                    .filter(|s| {
                        s.span.start_byte <= at && reference.span.end_byte <= s.span.end_byte
                    })
                    .min_by_key(|s| s.span.end_byte - s.span.start_byte);
                let (kind, span, holder) = match site {
                    // The trait named by an `impl Trait for Type` header: the syntax layer's
                    // IMPLEMENTS from the implementing type stands where it reached the
                    // analyzer's trait (rule R5).
                    Some(site)
                        if site.kind == EdgeKind::Implements
                            && file.file.language == Language::Rust
                            && targets.iter().any(|target| {
                                syntax_implements.contains(&(
                                    repository.as_str(),
                                    path.as_str(),
                                    site.span,
                                    *target,
                                ))
                            }) =>
                    {
                        continue;
                    }
                    // Where it did not (a trait through another crate's re-export), the
                    // analyzer's: from the implementing type, or, when the impl sits in a
                    // function's body (its type no declaration), the function uses the trait.
                    Some(site)
                        if site.kind == EdgeKind::Implements
                            && file.file.language == Language::Rust =>
                    {
                        let implementer = site.implementer.as_deref().and_then(|name| {
                            holders.iter().find(|s| {
                                s.name == name && s.parent.is_none() && s.kind.is_container()
                            })
                        });
                        match implementer {
                            Some(ty)
                                if site
                                    .enclosing
                                    .is_none_or(|i| symbols[i as usize].kind.is_container()) =>
                            {
                                (EdgeKind::Implements, site.span, Some(ty.key))
                            }
                            _ => (
                                EdgeKind::References,
                                site.span,
                                site.enclosing.map(|i| symbols[i as usize].key),
                            ),
                        }
                    }
                    Some(site) => {
                        // A field passed as an argument is read, not called back.
                        let kind = match site.kind {
                            EdgeKind::PassesAsCallback
                            | EdgeKind::AssignsFunction
                            | EdgeKind::ReturnsFunction
                                if definitions.all_data(targets) =>
                            {
                                EdgeKind::References
                            }
                            kind => kind,
                        };
                        let holder = site.enclosing.map(|i| &symbols[i as usize]);
                        // An embedded field embeds into the struct that holds it.
                        let holder = match holder {
                            Some(field) if kind == EdgeKind::Embeds => {
                                field.parent.map_or(Some(field.key), Some)
                            }
                            holder => holder.map(|h| h.key),
                        };
                        (kind, site.span, holder)
                    }
                    None => {
                        let holder = innermost(&holders, at as usize, |_| true).map(|s| s.key);
                        (EdgeKind::References, reference.span, holder)
                    }
                };
                let source = holder.unwrap_or(file.file.key);
                let at = (repository, path, span);
                layer.add(kind, at, source, targets, exactness);
            }
            for outside in unit.outside_in(repository, path) {
                layer.owed_nothing(repository, path, &outside.name, outside.count);
            }
        }
        // A member the analyzer says implements another: `IMPLEMENTS` to an interface's
        // member, `OVERRIDES` to a class's, observed at the implementing declaration.
        for (member, targets) in related(&unit.implementations, &definitions, &by_key) {
            if member.parent.is_none() {
                continue;
            }
            for target in targets {
                let kind = match holder_kind(db, *target) {
                    Some(SymbolKind::Interface) => EdgeKind::Implements,
                    Some(SymbolKind::Class) => EdgeKind::Overrides,
                    _ => continue,
                };
                let at = (&member.repository, &member.file_path, member.span.start());
                let exactness = (
                    Confidence::ExactTypechecked,
                    unit.provenance(member.language),
                );
                layer.add(kind, at, member.key, &[*target], exactness);
            }
        }
        // A declaration the analyzer says has a type: `TYPE_USES` to it, observed at the
        // declaration — what a change to the type reaches where no annotation spells it.
        for (declaration, targets) in related(&unit.type_definitions, &definitions, &by_key) {
            let at = (
                &declaration.repository,
                &declaration.file_path,
                declaration.span.start(),
            );
            let exactness = (
                Confidence::ExactTypechecked,
                unit.provenance(declaration.language),
            );
            layer.add(EdgeKind::TypeUses, at, declaration.key, targets, exactness);
        }
    }
    let mut not_loaded = unreadable_scopes(&syntax, &units);
    not_loaded.extend(unbuildable_directories(db, package, &units));
    if layer.decided.is_empty()
        && layer.not_built.is_empty()
        && layer.inactive.is_empty()
        && layer.owed_nothing.is_empty()
        && layer.holes.is_empty()
        && not_loaded.is_empty()
    {
        return syntax;
    }
    let mut facts = layer.over(&syntax);
    facts.unresolved.extend(not_loaded);
    Stored::new(facts)
}

/// Where the syntax layer's IMPLEMENTS stand: `(repository, path, span, trait)` of each.
fn syntax_implements(syntax: &FactSet) -> BTreeSet<(&str, &str, LineSpan, StableKey)> {
    let at: BTreeMap<StableKey, &Evidence> = syntax.evidence.iter().map(|e| (e.key, e)).collect();
    syntax
        .edges
        .iter()
        .filter(|e| e.kind == EdgeKind::Implements && e.provenance == Provenance::TreeSitterSyntax)
        .filter_map(|e| {
            let evidence = at.get(&e.evidence?)?;
            Some((
                evidence.repository.as_str(),
                evidence.file_path.as_str(),
                evidence.span,
                e.target,
            ))
        })
        .collect()
}

/// For each `(symbol, related)` relationship of analyzer symbols, this package's declaration
/// of the first (of `by_key`) with the graph's declarations of the second; a pair either side
/// of which names no declaration gives nothing.
fn related<'a>(
    relationships: &'a [(String, String)],
    definitions: &'a AnalyzerDefinitions,
    by_key: &'a BTreeMap<StableKey, &'a SymbolFact>,
) -> impl Iterator<Item = (&'a SymbolFact, &'a [StableKey])> + 'a {
    relationships.iter().flat_map(move |(symbol, related)| {
        let sources = definitions
            .keys
            .get(symbol)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let targets = definitions
            .keys
            .get(related)
            .map(Vec::as_slice)
            .unwrap_or_default();
        sources
            .iter()
            .filter(move |_| !targets.is_empty())
            .filter_map(move |source| Some((*by_key.get(source)?, targets)))
    })
}

/// What a repository's report says of one of its packages, kept apart from the package's
/// facts so that a report reads no package's facts the pass did not change.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PackageSummary {
    pub files: usize,
    pub symbols: usize,
    /// Files tree-sitter had to recover, with their issue count.
    pub parse_failures: Vec<(String, usize)>,
}

#[salsa::tracked(returns(clone), persist, lru = 0)]
pub fn package_summary(db: &dyn Db, package: PackageInput) -> Stored<PackageSummary> {
    let facts = analyzed_package_facts(db, package);
    Stored::new(PackageSummary {
        files: facts.files.len(),
        symbols: facts.symbols.len(),
        parse_failures: facts
            .files
            .iter()
            .filter(|f| !f.parse_issues.is_empty())
            .map(|f| (f.path.clone(), f.parse_issues.len()))
            .collect(),
    })
}

/// A Rust use rust-analyzer resolved into a crate the graph registers, but at a version no
/// registered copy has (cargo resolved the dependency to another release in the local
/// registry): declared `CRATE_VERSION_MISMATCH`, never bound to the registered copy.
fn version_mismatch(db: &dyn Db, reference: &UnitReference) -> Option<UnresolvedReference> {
    let mut parts = reference
        .symbol
        .strip_prefix("rust-analyzer cargo ")?
        .split(' ');
    let (name, version) = (parts.next()?, parts.next()?);
    let providers = rust_providers(db, Workspace::get(db));
    let registered = providers.get(&name.replace('-', "_"))?;
    if registered
        .iter()
        .any(|(_, v)| v.as_deref() == Some(version))
    {
        return None;
    }
    let versions: Vec<&str> = registered
        .iter()
        .filter_map(|(_, v)| v.as_deref())
        .collect();
    Some(UnresolvedReference {
        repository: reference.repository.clone(),
        language: Language::Rust,
        reason: "CRATE_VERSION_MISMATCH".to_string(),
        file_path: Some(reference.path.clone()),
        span: Some(reference.span),
        requested_symbol: Some(reference.text.clone()),
        requested_package: Some(format!("{name} {version}")),
        detail: format!(
            "the analyzer resolved this use into {name} {version}; the graph registers {name} {}",
            versions.join(", ")
        ),
    })
}

/// What the package's units could not read at all, as invisible scopes of the package: a
/// Go module the go command could not list (`MODULE_NOT_LOADED`: nothing of it was checked)
/// and a Go package the build tags exclude (`PACKAGE_NOT_BUILDABLE`). A partial load — a
/// Cargo workspace analysed without its dependencies, a Go package checked without a
/// required module nobody downloaded — is reported with its unit and hides nothing: every
/// site the analyzer could not decide keeps the syntax layer's answer, census included, and
/// the language is not marked analysed everywhere, so answers keep the syntax layer's floors.
fn unreadable_scopes(syntax: &FactSet, units: &[&UnitAnalysis]) -> Vec<UnresolvedReference> {
    let Some(package) = syntax.packages.first() else {
        return Vec::new();
    };
    let scope = |reason: &str, detail: &str| UnresolvedReference {
        repository: package.repository.clone(),
        language: package.language,
        reason: reason.to_string(),
        file_path: None,
        span: None,
        requested_symbol: None,
        requested_package: Some(package.name.clone()),
        detail: detail.to_string(),
    };
    // A Go package is named `<module> <import path>`.
    let import_path = package.name.rsplit(' ').next().unwrap_or(&package.name);
    let in_module = |module: &str| {
        import_path == module
            || import_path
                .strip_prefix(module)
                .is_some_and(|rest| rest.starts_with('/'))
    };
    let mut scopes: Vec<UnresolvedReference> = Vec::new();
    for unit in units {
        scopes.extend(
            unit.unloaded
                .iter()
                .filter(|(pattern, _)| pattern.strip_suffix("/...").is_some_and(in_module))
                .map(|(_, detail)| scope("MODULE_NOT_LOADED", detail)),
        );
        scopes.extend(
            unit.unbuildable
                .iter()
                .filter(|(unbuildable, _)| unbuildable == import_path)
                .map(|(_, detail)| scope("PACKAGE_NOT_BUILDABLE", detail)),
        );
    }
    scopes
}

/// Go packages of the module `package` owns that the build context excludes whole: no
/// discovered package holds their directory (discovery left out every file of it), so the
/// owner declares them, as `PACKAGE_NOT_BUILDABLE` scopes named `<module> <import path>`.
fn unbuildable_directories(
    db: &dyn Db,
    package: PackageInput,
    units: &[&UnitAnalysis],
) -> Vec<UnresolvedReference> {
    let Some(repository) = repository_of(db, package) else {
        return Vec::new();
    };
    let groups = load_groups(db, repository);
    let Some((module, members)) = groups.owned_by(package, Language::Go) else {
        return Vec::new();
    };
    let Some(module_path) = repository
        .module_maps(db)
        .go_modules
        .get(module)
        .map(|m| m.path.clone())
    else {
        return Vec::new();
    };
    let held: BTreeSet<&str> = members
        .iter()
        .flat_map(|member| member.files(db))
        .map(|file| file.path(db).rsplit_once('/').map_or("", |(dir, _)| dir))
        .collect();
    let mut scopes = Vec::new();
    for (import_path, detail) in units.iter().flat_map(|unit| &unit.unbuildable) {
        let Some(relative) = import_path
            .strip_prefix(module_path.as_str())
            .map(|rest| rest.trim_start_matches('/'))
        else {
            continue;
        };
        let directory = [module, relative]
            .iter()
            .filter(|part| !part.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join("/");
        if held.contains(directory.as_str()) {
            continue;
        }
        scopes.push(UnresolvedReference {
            repository: repository.name(db).clone(),
            language: Language::Go,
            reason: "PACKAGE_NOT_BUILDABLE".to_string(),
            file_path: None,
            span: None,
            requested_symbol: None,
            requested_package: Some(format!("{module_path} {import_path}")),
            detail: detail.clone(),
        });
    }
    scopes
}

/// A file the layering reads: where its symbols sit in the package's declarations, and its
/// syntax sites in one shape whatever the language.
struct LayerFile<'db> {
    file: &'db kivgraph_facts::FileFact,
    first_symbol: usize,
    symbol_count: usize,
    sites: std::borrow::Cow<'db, [ModuleSite]>,
}

fn layer_files<'db>(
    db: &'db dyn Db,
    package: PackageInput,
    declared: &'db FactSet,
) -> Vec<LayerFile<'db>> {
    let mut files: Vec<LayerFile> = site_files(db, package, declared)
        .into_iter()
        .map(|f| LayerFile {
            file: f.file,
            first_symbol: f.first_symbol,
            symbol_count: f.symbol_count,
            sites: std::borrow::Cow::Borrowed(f.sites),
        })
        .collect();
    files.extend(
        go_files(db, package, declared)
            .into_iter()
            .map(|f| LayerFile {
                file: f.file,
                first_symbol: f.first_symbol,
                symbol_count: f.symbol_count,
                sites: std::borrow::Cow::Owned(f.sites.as_module_sites()),
            }),
    );
    files
}

/// The kind of the declaration holding a member, looked up across the workspace's
/// analysed declarations.
fn holder_kind(db: &dyn Db, member: StableKey) -> Option<SymbolKind> {
    let holders = member_holders(db, Workspace::get(db));
    holders.get(&member).copied()
}

/// Each member's holder kind (a class or an interface), for every package an analyzer
/// covers: what decides `IMPLEMENTS` from `OVERRIDES`.
#[salsa::tracked(returns(clone), persist, lru = 0)]
fn member_holders(db: &dyn Db, workspace: Workspace) -> Stored<BTreeMap<StableKey, SymbolKind>> {
    let mut holders = BTreeMap::new();
    for repository in workspace.repositories(db) {
        for package in repository.packages(db) {
            let declared = package_symbols(db, *package);
            let kinds: BTreeMap<StableKey, SymbolKind> =
                declared.symbols.iter().map(|s| (s.key, s.kind)).collect();
            for symbol in &declared.symbols {
                if let Some(kind) = symbol.parent.and_then(|p| kinds.get(&p)) {
                    holders.insert(symbol.key, *kind);
                }
            }
        }
    }
    Stored::new(holders)
}

/// Exact edges found for one package, and the sites they decide.
#[derive(Default)]
struct Layer {
    edges: BTreeSet<Edge>,
    evidence: BTreeMap<StableKey, Evidence>,
    /// `(repository, path, span)` of every decided site.
    decided: BTreeSet<(String, String, LineSpan)>,
    /// Per `(repository, path)` and name, spellings the analyzer bound outside the graph.
    owed_nothing: BTreeMap<(String, String), BTreeMap<String, u32>>,
    /// Uses the analyzer resolved into something the graph holds another version of.
    holes: Vec<UnresolvedReference>,
    /// `(repository, path)` of files the analysed build does not compile: their
    /// declarations stay (another build may compile them), what they spell is no use.
    not_built: BTreeSet<(String, String)>,
    /// Per `(repository, path)`, the byte ranges a `cfg` the build does not satisfy leaves
    /// out, outermost only: what they spell is no use either.
    inactive: BTreeMap<(String, String), Vec<(u32, u32)>>,
}

impl Layer {
    fn add(
        &mut self,
        kind: EdgeKind,
        (repository, path, span): (&String, &String, LineSpan),
        source: StableKey,
        targets: &[StableKey],
        (confidence, provenance): (Confidence, Provenance),
    ) {
        self.decided
            .insert((repository.clone(), path.clone(), span));
        if targets.is_empty() {
            return;
        }
        let observed = evidence_key(repository, path, span);
        for target in targets {
            self.edges.insert(Edge {
                kind,
                source,
                target: *target,
                confidence,
                provenance,
                evidence: Some(observed),
            });
        }
        self.evidence.entry(observed).or_insert_with(|| Evidence {
            key: observed,
            repository: repository.clone(),
            file_path: path.clone(),
            span,
        });
    }

    /// Records the code of `package`'s Rust files that a `cfg` the analysed build does not
    /// satisfy leaves out: its sites are no uses, its spellings owed nothing. A region
    /// inside one already left out is counted once.
    fn leave_out_inactive_code(&mut self, db: &dyn Db, package: PackageInput, build: &RustBuild) {
        for file in package.files(db) {
            if file.language(db) != Language::Rust {
                continue;
            }
            let (repository, path) = (file.repository(db), file.path(db));
            if self.not_built.contains(&(repository.clone(), path.clone())) {
                continue;
            }
            let facts = file_facts(db, *file);
            let mut left_out: Vec<(u32, u32)> = Vec::new();
            for region in &facts.cfg_regions {
                let inside = left_out
                    .last()
                    .is_some_and(|(_, end)| region.start_byte < *end);
                if inside || build.holds(path, &region.predicate) != Some(false) {
                    continue;
                }
                left_out.push((region.start_byte, region.end_byte));
                for mention in &region.mentions {
                    self.owed_nothing(repository, path, &mention.name, mention.count);
                }
            }
            if !left_out.is_empty() {
                self.inactive
                    .insert((repository.clone(), path.clone()), left_out);
            }
        }
    }

    /// Whether a site at `span` of a file lies in code the build leaves out.
    fn in_inactive_code(&self, repository: &str, path: &str, span: LineSpan) -> bool {
        !self.inactive.is_empty()
            && self
                .inactive
                .get(&(repository.to_string(), path.to_string()))
                .is_some_and(|ranges| {
                    ranges
                        .iter()
                        .any(|(start, end)| *start <= span.start_byte && span.end_byte <= *end)
                })
    }

    fn owed_nothing(&mut self, repository: &str, path: &str, name: &str, count: u32) {
        let file = (repository.to_string(), path.to_string());
        *self
            .owed_nothing
            .entry(file)
            .or_default()
            .entry(name.to_string())
            .or_default() += count;
    }

    /// The syntax layer's facts with every decided site's edges and holes replaced by the
    /// analyzer's, and each file's census reduced to the spellings the graph owes an
    /// explanation: what the analyzer bound outside the graph is accounted for. Package dependencies stay: they are observed at the import, whatever
    /// binds the names it brings.
    fn over(self, syntax: &FactSet) -> FactSet {
        let mut facts = syntax.clone();
        // Most packages leave nothing out: then no row pays for the lookups.
        let not_built = |repository: &String, path: &String| {
            !self.not_built.is_empty()
                && self.not_built.contains(&(repository.clone(), path.clone()))
        };
        // One pass over the evidence: the sites whose syntax edges go, and of those, the
        // ones in files the build does not compile, which import nothing either.
        let mut decided_evidence: BTreeSet<StableKey> = BTreeSet::new();
        let mut unbuilt_evidence: BTreeSet<StableKey> = BTreeSet::new();
        for e in &facts.evidence {
            let unbuilt = not_built(&e.repository, &e.file_path);
            if unbuilt {
                unbuilt_evidence.insert(e.key);
            }
            if unbuilt
                || self
                    .decided
                    .contains(&(e.repository.clone(), e.file_path.clone(), e.span))
                || self.in_inactive_code(&e.repository, &e.file_path, e.span)
            {
                decided_evidence.insert(e.key);
            }
        }
        facts.edges.retain(|edge| {
            if edge.kind == EdgeKind::PackageDependsOn {
                return !edge.evidence.is_some_and(|e| unbuilt_evidence.contains(&e));
            }
            edge.provenance != Provenance::TreeSitterSyntax
                || !edge.evidence.is_some_and(|e| decided_evidence.contains(&e))
        });
        facts
            .unresolved
            .retain(|row| match (&row.file_path, row.span) {
                (Some(path), _) if not_built(&row.repository, path) => false,
                (Some(path), Some(span)) if self.in_inactive_code(&row.repository, path, span) => {
                    false
                }
                (Some(path), Some(span)) => {
                    !self
                        .decided
                        .contains(&(row.repository.clone(), path.clone(), span))
                }
                _ => true,
            });
        for file in &mut facts.files {
            if not_built(&file.repository, &file.path) {
                file.mentions.clear();
                continue;
            }
            let at = (file.repository.clone(), file.path.clone());
            let Some(owed_nothing) = self.owed_nothing.get(&at) else {
                continue;
            };
            for mention in &mut file.mentions {
                if let Some(count) = owed_nothing.get(&mention.name) {
                    mention.count = mention.count.saturating_sub(*count);
                }
            }
            file.mentions.retain(|m| m.count > 0);
        }
        facts.unresolved.extend(self.holes);
        facts.edges.extend(self.edges);
        let known: BTreeSet<StableKey> = facts.evidence.iter().map(|e| e.key).collect();
        facts.evidence.extend(
            self.evidence
                .into_values()
                .filter(|e| !known.contains(&e.key)),
        );
        facts
    }
}
