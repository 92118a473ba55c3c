//! Inputs and tracked queries. Every memo up to the package merges is persisted (the fact
//! cache), each value as its own encoding (`Stored`), so that a fresh process verifies the
//! memos of unchanged packages without decoding them; the repository and workspace merges
//! above them share the packages by `Arc`. A one-file edit costs one parse, the package
//! merges that read the file's names, and the merges above.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use kivgraph_discovery::{GoReplacement, ModuleMaps};
use kivgraph_facts::{
    Confidence, Edge, EdgeKind, FactSet, FileFact, Fingerprint, Language, LineSpan, PackageFact,
    ParseIssue, Provenance, RepositoryFact, StableKey, StableKeyIdentity, SymbolFact, SymbolKind,
    UnresolvedReference,
};
use kivgraph_syntax::{Declaration, WHOLE_MODULE};
use serde::{Deserialize, Serialize};

use crate::analysis::{analyzed_package_facts, repository_of};
use crate::database::Db;
use crate::module_lookup::ModuleLookup;
use crate::resolve::go::{
    self, GoFile, GoPackageNames, GoProvider, GoSites, go_sites, is_go_standard_path, resolve_go,
};
use crate::resolve::go_implements::{self, GoMethodSets};
use crate::resolve::python::{self, PackageModules, PythonFile};
use crate::resolve::rust::{
    self, CrateNames, Extern, RUST_STANDARD, RustFile, resolve_rust, version_accepts,
};
use crate::resolve::typescript::{
    self, ModuleFile, ModuleSite, PackageExports, module_sites as module_sites_of, resolve_modules,
};
use crate::resolve::{Resolved, class_overrides};
use crate::stored::Stored;

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

/// A declaration as one file's memo keeps it: keyed, with its qualified name completed by
/// the module path; everything the file implies (repository, path, language, package) is
/// restored by the package merge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalSymbol {
    pub key: StableKey,
    /// The discriminator the key was computed with (an ordinal appended for repeats).
    pub discriminator: String,
    pub declaration: Declaration,
}

/// What one file contributes. Persisted: this memo table is the fact cache.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileFacts {
    pub package: PackageFact,
    /// The `module` field of this file's keys ("" where the language keys without one).
    pub key_module: String,
    pub file: FileFact,
    pub symbols: Vec<LocalSymbol>,
    /// The calls and imports the resolver reads (Go only, so far; empty elsewhere).
    pub go_sites: GoSites,
    /// Imports, re-exports and export clauses (TypeScript, JavaScript and Python).
    pub module_sites: Vec<ModuleSite>,
    /// Go's `package` clause: files of one directory can belong to different packages
    /// (`foo` and `foo_test`, a build-ignored `main`).
    pub package_clause: Option<String>,
    /// `false` when the source text could not be read.
    pub readable: bool,
    /// Rust: the code each `cfg` gates, which the analysed build keeps or leaves out.
    pub cfg_regions: Vec<kivgraph_syntax::CfgRegion>,
}

/// One repository's merged facts: its own node and containment edges, and its packages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepositoryFacts {
    pub repository: RepositoryFact,
    /// Sorted by package key: each package's key and its facts, decoded when read.
    pub packages: Vec<(StableKey, Stored<FactSet>)>,
}

impl RepositoryFacts {
    /// `CONTAINS_PACKAGE` from the repository to a package whose facts hold it.
    pub(crate) fn contains(&self, package: &FactSet) -> Option<Edge> {
        package.packages.first().map(|p| {
            structural(
                EdgeKind::ContainsPackage,
                self.repository.key,
                p.key,
                Provenance::PackageManifest,
            )
        })
    }
}

/// The whole workspace, shared structurally: a one-file edit rebuilds one package's facts
/// and a couple of vectors of pointers, nothing else.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WorkspaceFacts {
    /// Sorted by repository name.
    pub repositories: Vec<Arc<RepositoryFacts>>,
}

impl WorkspaceFacts {
    pub fn symbol_count(&self) -> usize {
        self.repositories
            .iter()
            .flat_map(|r| &r.packages)
            .map(|(_, facts)| facts.symbols.len())
            .sum()
    }

    /// The canonical fact set: repositories by name, packages by key, files by path,
    /// declarations in source order. Decodes every package: a publication reads pages
    /// instead ([`crate::pages`]).
    pub fn to_fact_set(&self) -> FactSet {
        let parts: Vec<(&RepositoryFacts, &Stored<FactSet>)> = self
            .repositories
            .iter()
            .flat_map(|r| r.packages.iter().map(move |(_, facts)| (r.as_ref(), facts)))
            .collect();
        let repositories = self
            .repositories
            .iter()
            .map(|r| r.repository.clone())
            .collect();
        crate::pages::gather(repositories, &parts, Vec::new())
    }
}

fn stable_key(identity: StableKeyIdentity) -> StableKey {
    identity
        .key()
        .expect("identity fields are non-empty by construction")
}

/// Node keys share the symbol key algorithm, with the node table as the kind.
pub fn repository_key(name: &str) -> StableKey {
    stable_key(StableKeyIdentity {
        language: "*",
        repository: name,
        package: name,
        module: "",
        qualified_name: name,
        kind: "repository",
        discriminator: "none",
    })
}

pub fn package_key(language: Language, repository: &str, package: &str) -> StableKey {
    stable_key(StableKeyIdentity {
        language: language.as_str(),
        repository,
        package,
        module: "",
        qualified_name: package,
        kind: "package",
        discriminator: "none",
    })
}

pub fn file_key(repository: &str, path: &str) -> StableKey {
    path_key(repository, path, "file", "none")
}

/// An observation's key: the file and the byte range it was seen at.
pub fn evidence_key(repository: &str, path: &str, span: LineSpan) -> StableKey {
    let range = format!("{}-{}", span.start_byte, span.end_byte);
    path_key(repository, path, "evidence", &range)
}

/// Keys of what a repository-relative path identifies, outside any language or package.
fn path_key(repository: &str, path: &str, kind: &str, discriminator: &str) -> StableKey {
    stable_key(StableKeyIdentity {
        language: "*",
        repository,
        package: "*",
        module: "",
        qualified_name: path,
        kind,
        discriminator,
    })
}

fn structural(
    kind: EdgeKind,
    source: StableKey,
    target: StableKey,
    provenance: Provenance,
) -> Edge {
    Edge {
        kind,
        source,
        target,
        confidence: Confidence::StructuralCertain,
        provenance,
        evidence: None,
    }
}

/// The package identity and module that enter a symbol's key, per language.
fn key_scope(language: Language, unit: &UnitInput) -> (&str, &str) {
    match language {
        Language::Go | Language::Rust => (&unit.package, ""),
        Language::TypeScript | Language::JavaScript | Language::Python => {
            (&unit.package, &unit.module)
        }
    }
}

fn symbol_key(
    language: Language,
    repository: &str,
    unit: &UnitInput,
    qualified_name: &str,
    kind: SymbolKind,
    discriminator: &str,
) -> StableKey {
    let (package, module) = key_scope(language, unit);
    stable_key(StableKeyIdentity {
        language: language.as_str(),
        repository,
        package,
        module,
        qualified_name,
        kind: kind.as_str(),
        discriminator,
    })
}

/// The queries the fact cache does not keep: the merges above the packages, which only
/// gather the packages' memos. Every other query is persisted.
pub(crate) const UNPERSISTED_QUERIES: [&str; 2] = ["repository_facts", "workspace_facts"];

/// Gives every persisted query of this module its view of the database.
///
/// salsa hands a tracked function that view when the function is first called; a memo
/// restored from the fact cache can be verified through a dependency this process has not
/// called yet, which salsa cannot do without it. Setting an LRU capacity reaches the
/// function's ingredient without calling it, which is why every persisted query is
/// declared `lru = 0` (no eviction: the capacity exists only to be set here).
pub(crate) fn attach_restored_queries(db: &mut dyn Db) {
    file_facts::set_lru_capacity(db, 0);
    package_symbols::set_lru_capacity(db, 0);
    package_facts::set_lru_capacity(db, 0);
    go_method_sets::set_lru_capacity(db, 0);
    go_implementations::set_lru_capacity(db, 0);
    go_package_implementations::set_lru_capacity(db, 0);
    package_exports::set_lru_capacity(db, 0);
    module_index::set_lru_capacity(db, 0);
    npm_providers::set_lru_capacity(db, 0);
    rust_crate_names::set_lru_capacity(db, 0);
    rust_providers::set_lru_capacity(db, 0);
    package_modules::set_lru_capacity(db, 0);
    python_module_index::set_lru_capacity(db, 0);
    python_top_levels::set_lru_capacity(db, 0);
    go_package_names::set_lru_capacity(db, 0);
    go_providers::set_lru_capacity(db, 0);
    crate::analysis::attach_restored_queries(db);
}

/// Parses one file and keys its declarations. Persisted: this memo is the fact cache.
#[salsa::tracked(returns(ref), persist, lru = 0)]
pub fn file_facts(db: &dyn Db, file: FileInput) -> Stored<FileFacts> {
    Stored::new(extract_file_facts(db, file))
}

fn extract_file_facts(db: &dyn Db, file: FileInput) -> FileFacts {
    let repository = file.repository(db);
    let path = file.path(db);
    let language = file.language(db);
    let unit = file.unit(db);
    let fingerprint = file.fingerprint(db);
    let text = db.source_text(fingerprint);
    let readable = text.is_some();
    let mut module_sites = Vec::new();
    let (syntax, mut go_sites) = match &text {
        Some(text) if language == Language::Go => {
            let (syntax, sites) = kivgraph_syntax::extract_with_references(language, path, text);
            (syntax, go_sites(sites))
        }
        Some(text) => {
            let (syntax, sites) = kivgraph_syntax::extract_with_references(language, path, text);
            module_sites = match language {
                Language::Rust => rust::rust_sites(sites),
                _ => module_sites_of(sites),
            };
            (syntax, GoSites::default())
        }
        None => (
            kivgraph_syntax::SyntaxFacts {
                issues: vec![ParseIssue {
                    line: 1,
                    column: 1,
                    message: "source text unavailable".into(),
                    hidden_names: Vec::new(),
                }],
                ..Default::default()
            },
            GoSites::default(),
        ),
    };
    let package_key = package_key(language, repository, &unit.package);
    let module_prefix = if language == Language::Rust && !unit.module.is_empty() {
        Some(unit.module.as_str())
    } else {
        None
    };

    let mut seen: HashMap<StableKey, u32> = HashMap::new();
    let mut symbols: Vec<LocalSymbol> = Vec::with_capacity(syntax.declarations.len());
    for mut declaration in syntax.declarations {
        if let Some(prefix) = module_prefix {
            declaration.qualified_name = format!("{prefix}::{}", declaration.qualified_name);
        }
        let mut discriminator = declaration
            .discriminator
            .clone()
            .filter(|d| !d.is_empty())
            .unwrap_or_else(|| "none".to_string());
        let qualified_name = &declaration.qualified_name;
        let mut symbol_key = symbol_key(
            language,
            repository,
            unit,
            qualified_name,
            declaration.kind,
            &discriminator,
        );
        // A name the language lets a file declare twice (a Python rebinding, identical
        // overloads) gets an ordinal, in source order.
        let occurrence = seen.entry(symbol_key).or_insert(0);
        *occurrence += 1;
        if *occurrence > 1 {
            discriminator = format!("{discriminator}#{occurrence}");
            symbol_key = self::symbol_key(
                language,
                repository,
                unit,
                qualified_name,
                declaration.kind,
                &discriminator,
            );
        }
        symbols.push(LocalSymbol {
            key: symbol_key,
            discriminator,
            declaration,
        });
    }
    // The shapes only interface satisfaction reads travel with the resolver's sites.
    go_sites.method_shapes = symbols
        .iter_mut()
        .enumerate()
        .filter_map(|(i, s)| Some((i as u32, s.declaration.method_shape.take()?)))
        .collect();
    FileFacts {
        key_module: key_scope(language, unit).1.to_string(),
        package: PackageFact {
            key: package_key,
            repository: repository.clone(),
            language,
            name: unit.package.clone(),
            path: unit.package_path.clone(),
        },
        file: FileFact {
            key: file_key(repository, path),
            repository: repository.clone(),
            path: path.clone(),
            language,
            package: package_key,
            fingerprint,
            line_count: syntax.line_count,
            byte_len: file.byte_len(db),
            parse_issues: syntax.issues,
            mentions: syntax.mentions,
        },
        symbols,
        go_sites,
        module_sites,
        package_clause: syntax.package_clause,
        readable,
        cfg_regions: syntax.cfg_regions,
    }
}

/// Merges one package's files in path order: receivers declared in another file of the
/// package, keys two files of the package both claim, containment edges, parse failures.
#[salsa::tracked(returns(clone), persist, lru = 0)]
pub fn package_symbols(db: &dyn Db, package: PackageInput) -> Stored<FactSet> {
    let mut facts = FactSet::default();
    let mut pending: Vec<(usize, String)> = Vec::new();
    for file in package.files(db) {
        let file_facts = file_facts(db, *file);
        if facts.packages.is_empty() {
            facts.packages.push(file_facts.package.clone());
        }
        let file = &file_facts.file;
        facts.unresolved.extend(parse_failures(file));
        facts.edges.push(structural(
            EdgeKind::ContainsFile,
            file.package,
            file.key,
            Provenance::PackageManifest,
        ));
        for LocalSymbol {
            key,
            discriminator,
            declaration,
        } in &file_facts.symbols
        {
            if let Some(receiver) = &declaration.receiver {
                pending.push((facts.symbols.len(), receiver.clone()));
            }
            facts.symbols.push(SymbolFact {
                key: *key,
                repository: file.repository.clone(),
                language: file.language,
                package: file.package,
                file_path: file.path.clone(),
                name: declaration.name.clone(),
                qualified_name: declaration.qualified_name.clone(),
                kind: declaration.kind,
                signature: declaration.signature.clone(),
                exported: declaration.exported,
                span: declaration.span,
                doc: declaration.doc.clone(),
                parent: declaration
                    .parent
                    .map(|p| file_facts.symbols[p as usize].key),
                key_module: file_facts.key_module.clone(),
                key_discriminator: discriminator.clone(),
            });
        }
        facts.files.push(file.clone());
    }
    rekey_package_duplicates(&mut facts);
    link_receivers(&mut facts, &pending);
    symbol_edges(&mut facts);
    Stored::new(facts)
}

/// A package's facts: its declarations merged, and its reference sites resolved against
/// its own names and those of the packages it imports. Depends on another package only
/// through that package's name table, so an edit to a function body elsewhere reaches no
/// importer.
#[salsa::tracked(returns(clone), persist, lru = 0)]
pub fn package_facts(db: &dyn Db, package: PackageInput) -> Stored<FactSet> {
    let resolved = resolve_package(db, package);
    let is_go = package
        .files(db)
        .first()
        .is_some_and(|f| f.language(db) == Language::Go);
    if !is_go {
        return resolved;
    }
    match go_package_implementations(db, package) {
        Some(implementations) => {
            let mut facts = FactSet::clone(&resolved);
            facts.edges.extend(implementations.edges.iter().cloned());
            facts
                .evidence
                .extend(implementations.evidence.iter().cloned());
            Stored::new(facts)
        }
        None => resolved,
    }
}

fn resolve_package(db: &dyn Db, package: PackageInput) -> Stored<FactSet> {
    let declared = package_symbols(db, package);
    let files = go_files(db, package, &declared);
    let modules = module_files(db, package, &declared);
    let binds = |s: &ModuleSite| {
        matches!(
            s.kind,
            EdgeKind::ImportsSymbol
                | EdgeKind::CallsDirect
                | EdgeKind::TypeUses
                | EdgeKind::Extends
                | EdgeKind::Implements
        )
    };
    let imports_modules = modules.iter().any(|m| m.sites.iter().any(binds));
    let pythons = python_files(db, package, &declared);
    let rusts = rust_files(db, package, &declared);
    let binds_rust = rusts.iter().any(|r| !r.placed.sites.is_empty());
    let imports_python = pythons.iter().any(|p| {
        p.placed
            .sites
            .iter()
            .any(|s| binds(s) && s.name != WHOLE_MODULE)
    });
    if files.iter().all(|f| f.sites.binds_nothing())
        && !imports_modules
        && !imports_python
        && !binds_rust
    {
        return declared;
    }
    let mut facts = FactSet::clone(&declared);
    let mut resolved = Resolved::default();
    if imports_modules {
        let modules_of = ModuleLookup::new(db);
        let lookup = |from: &str, importer: &str, specifier: &str| {
            modules_of.lookup(from, importer, specifier)
        };
        let npm = |specifier: &str| modules_of.provider(specifier);
        resolve_modules(&modules, &declared.symbols, &lookup, &npm, &mut resolved);
    }
    if binds_rust {
        let externs = rust_externs(db, package);
        resolve_rust(&rusts, &declared.symbols, &externs, &mut resolved);
    }
    if imports_python {
        let index = python_module_index(db, Workspace::get(db));
        let repository = declared
            .packages
            .first()
            .map(|p| p.repository.clone())
            .unwrap_or_default();
        // Within the importer's repository first; elsewhere only a module one repository
        // alone provides.
        let lookup = |module: &str| {
            let holders = index.get(module)?;
            let package = match holders.iter().find(|(repo, _)| *repo == repository) {
                Some((_, package)) => *package,
                None => match holders.as_slice() {
                    [(_, only)] => *only,
                    _ => return None,
                },
            };
            Some((package.key(db), package_modules(db, package).arc()))
        };
        let tops = python_top_levels(db, Workspace::get(db));
        let provider = |top: &str| python::python_provider(top, &repository, tops.get(top));
        python::resolve_imports(
            &pythons,
            &declared.symbols,
            &lookup,
            &provider,
            &mut resolved,
        );
    }
    resolved.append_to(&mut facts);
    if imports_modules || imports_python {
        let mut overrides = Resolved::default();
        class_overrides(&facts, &mut overrides);
        overrides.append_to(&mut facts);
    }
    if files.iter().all(|f| f.sites.binds_nothing()) {
        return Stored::new(facts);
    }
    let own = go_package_names(db, package);
    let providers = go_providers(db, Workspace::get(db));
    let replaces = go_replaces(db, package);
    resolve_go(
        &mut facts,
        &files,
        &own,
        &go_provider(db, &providers, &replaces),
    );
    Stored::new(facts)
}

/// What provides a Go import path to a package, as the workspace's registered packages and
/// the package's `go.mod` say.
fn go_provider<'db>(
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
    Stored::new(go_implements::go_method_sets(
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
        go_implements::go_implementations(&sets)
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

/// The files of a package whose syntax layer records module sites (TypeScript, JavaScript,
/// Python, Rust), with where their symbols sit in `declared`.
pub(crate) fn site_files<'db>(
    db: &'db dyn Db,
    package: PackageInput,
    declared: &'db FactSet,
) -> Vec<ModuleFile<'db>> {
    let languages = [
        Language::TypeScript,
        Language::JavaScript,
        Language::Python,
        Language::Rust,
    ];
    placed_module_files(db, package, declared, &languages)
}

/// The TypeScript/JavaScript files of a package with where their symbols sit in `declared`.
fn module_files<'db>(
    db: &'db dyn Db,
    package: PackageInput,
    declared: &'db FactSet,
) -> Vec<ModuleFile<'db>> {
    let languages = [Language::TypeScript, Language::JavaScript];
    placed_module_files(db, package, declared, &languages)
}

fn placed_module_files<'db>(
    db: &'db dyn Db,
    package: PackageInput,
    declared: &'db FactSet,
    languages: &[Language],
) -> Vec<ModuleFile<'db>> {
    placed_files(db, package, declared)
        .filter(|(_, merged, _)| languages.contains(&merged.language))
        .map(|(file_facts, merged, first_symbol)| module_file(file_facts, merged, first_symbol))
        .collect()
}

fn module_file<'db>(
    file_facts: &'db FileFacts,
    merged: &'db FileFact,
    first_symbol: usize,
) -> ModuleFile<'db> {
    ModuleFile {
        file: merged,
        first_symbol,
        symbol_count: file_facts.symbols.len(),
        sites: &file_facts.module_sites,
    }
}

/// A package's module export tables: all an importer reads of it, so an edit inside a
/// function body stops here.
#[salsa::tracked(returns(clone), persist, lru = 0)]
pub fn package_exports(db: &dyn Db, package: PackageInput) -> Stored<PackageExports> {
    let declared = package_symbols(db, package);
    let modules = module_files(db, package, &declared);
    Stored::new(typescript::package_exports(&modules, &declared.symbols))
}

/// Which package holds each TypeScript/JavaScript file, by (repository, path): where a
/// relative specifier can land.
#[salsa::tracked(returns(clone), persist, lru = 0)]
pub fn module_index(
    db: &dyn Db,
    workspace: Workspace,
) -> Stored<BTreeMap<(String, String), PackageInput>> {
    let modules = [Language::TypeScript, Language::JavaScript];
    let index = workspace_files(db, workspace, &modules)
        .map(|(_, package, file)| {
            (
                (file.repository(db).clone(), file.path(db).clone()),
                package,
            )
        })
        .collect();
    Stored::new(index)
}

/// Which registered directories carry each `package.json` name, with their repositories:
/// the providers of package specifiers. Two claimants make a name ambiguous.
#[salsa::tracked(returns(clone), persist, lru = 0)]
pub fn npm_providers(
    db: &dyn Db,
    workspace: Workspace,
) -> Stored<BTreeMap<String, Vec<(String, String)>>> {
    let modules = [Language::TypeScript, Language::JavaScript];
    let mut providers: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for (repository, _, file) in workspace_files(db, workspace, &modules) {
        let unit = file.unit(db);
        // `.` is a file under no package.json: nothing can name it.
        if unit.package == "." {
            continue;
        }
        let claim = (repository.clone(), unit.package_path.clone());
        let claimants = providers.entry(unit.package.clone()).or_default();
        if !claimants.contains(&claim) {
            claimants.push(claim);
        }
    }
    Stored::new(providers)
}

/// Every file of the given languages in the workspace, with its repository and package.
fn workspace_files<'db>(
    db: &'db dyn Db,
    workspace: Workspace,
    languages: &'db [Language],
) -> impl Iterator<Item = (&'db String, PackageInput, FileInput)> {
    workspace
        .repositories(db)
        .iter()
        .flat_map(move |repository| {
            repository.packages(db).iter().flat_map(move |package| {
                package
                    .files(db)
                    .iter()
                    .filter(move |file| languages.contains(&file.language(db)))
                    .map(move |file| (repository.name(db), *package, *file))
            })
        })
}

/// Each file of a package with its memo, its merged fact and where its symbols start in
/// `declared`, in merge order.
fn placed_files<'db>(
    db: &'db dyn Db,
    package: PackageInput,
    declared: &'db FactSet,
) -> impl Iterator<Item = (&'db FileFacts, &'db FileFact, usize)> {
    let mut first_symbol = 0;
    package
        .files(db)
        .iter()
        .zip(&declared.files)
        .map(move |(file, merged)| {
            let file_facts: &FileFacts = file_facts(db, *file);
            let placed = (file_facts, merged, first_symbol);
            first_symbol += file_facts.symbols.len();
            placed
        })
}

/// The Python files of a package, each with its dotted module name.
fn python_files<'db>(
    db: &'db dyn Db,
    package: PackageInput,
    declared: &'db FactSet,
) -> Vec<PythonFile<'db>> {
    package
        .files(db)
        .iter()
        .zip(placed_files(db, package, declared))
        .filter(|(_, (_, merged, _))| merged.language == Language::Python)
        .map(|(input, (file_facts, merged, first_symbol))| PythonFile {
            module: input.unit(db).module.as_str(),
            placed: module_file(file_facts, merged, first_symbol),
        })
        .collect()
}

fn rust_files<'db>(
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
    Stored::new(rust::crate_names(&rusts, &declared.symbols))
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
fn rust_externs<'db>(db: &'db dyn Db, package: PackageInput) -> impl Fn(&str) -> Extern + 'db {
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

/// A package's Python module tables: all an importer reads of it.
#[salsa::tracked(returns(clone), persist, lru = 0)]
pub fn package_modules(db: &dyn Db, package: PackageInput) -> Stored<PackageModules> {
    let declared = package_symbols(db, package);
    let files = python_files(db, package, &declared);
    Stored::new(python::package_modules(&files, &declared.symbols))
}

/// Which packages hold each dotted Python module, with their repositories.
#[salsa::tracked(returns(clone), persist, lru = 0)]
pub fn python_module_index(
    db: &dyn Db,
    workspace: Workspace,
) -> Stored<BTreeMap<String, Vec<(String, PackageInput)>>> {
    let mut index: BTreeMap<String, Vec<(String, PackageInput)>> = BTreeMap::new();
    for (repository, package, file) in workspace_files(db, workspace, &[Language::Python]) {
        index
            .entry(file.unit(db).module.clone())
            .or_default()
            .push((repository.clone(), package));
    }
    Stored::new(index)
}

/// The repositories holding each top-level Python package (the first segment of every
/// indexed module): the provider registry of absolute imports.
#[salsa::tracked(returns(clone), persist, lru = 0)]
pub fn python_top_levels(
    db: &dyn Db,
    workspace: Workspace,
) -> Stored<BTreeMap<String, BTreeSet<String>>> {
    let mut tops: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, holders) in python_module_index(db, workspace).iter() {
        let top = module.split('.').next().unwrap_or(module);
        let entry = tops.entry(top.to_string()).or_default();
        entry.extend(holders.iter().map(|(repository, _)| repository.clone()));
    }
    Stored::new(tops)
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
    Stored::new(go::go_package_names(&files, &declared.symbols))
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

/// What a file tree-sitter had to recover leaves unread, declared rather than hidden: one row
/// per name an unreadable declaration-level region spells (a declaration of that name may be
/// missing), or one row for the file when every error sits inside a function body.
fn parse_failures(file: &FileFact) -> Vec<UnresolvedReference> {
    let Some(first) = file.parse_issues.first() else {
        return Vec::new();
    };
    let row = |line: u32, requested_symbol: Option<String>, detail: String| UnresolvedReference {
        repository: file.repository.clone(),
        language: file.language,
        reason: "PARSE_ERROR".into(),
        file_path: Some(file.path.clone()),
        span: Some(LineSpan {
            start_line: line,
            end_line: line,
            start_byte: 0,
            end_byte: 0,
        }),
        requested_symbol,
        requested_package: None,
        detail,
    };
    let mut rows = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for issue in &file.parse_issues {
        for name in &issue.hidden_names {
            if !seen.contains(&name.as_str()) {
                seen.push(name);
                let detail = format!(
                    "a declaration of {name} may be missing: the parser could not read {}:{} ({})",
                    issue.line, issue.column, issue.message
                );
                rows.push(row(issue.line, Some(name.clone()), detail));
            }
        }
    }
    if rows.is_empty() {
        let detail = format!(
            "{} syntax error(s) inside function bodies, first at {}:{} ({}); every declaration was read",
            file.parse_issues.len(),
            first.line,
            first.column,
            first.message
        );
        rows.push(row(first.line, None, detail));
    }
    rows
}

/// One repository: its packages, in key order, and the edges that contain them.
#[salsa::tracked(returns(clone))]
pub fn repository_facts(db: &dyn Db, repository: RepositoryInput) -> Arc<RepositoryFacts> {
    let name = repository.name(db);
    let packages = repository
        .packages(db)
        .iter()
        .map(|p| (p.key(db), analyzed_package_facts(db, *p)))
        .collect();
    Arc::new(RepositoryFacts {
        repository: RepositoryFact {
            key: repository_key(name),
            name: name.clone(),
            root: repository.root(db).clone(),
            languages: repository.languages(db).clone(),
        },
        packages,
    })
}

/// Two files of one package declaring the same key (Go files for different build tags, say):
/// the first file in path order keeps the key, the others are keyed with their file path.
fn rekey_package_duplicates(facts: &mut FactSet) {
    let Some(package) = facts.packages.first() else {
        return;
    };
    let mut first_file: HashMap<StableKey, &str> = HashMap::new();
    let mut renamed: HashMap<(String, StableKey), StableKey> = HashMap::new();
    for symbol in &facts.symbols {
        let owner = *first_file
            .entry(symbol.key)
            .or_insert(symbol.file_path.as_str());
        if owner != symbol.file_path {
            let package = &package.name;
            // The original key separates what the file itself declares twice.
            let original = symbol.key.to_string();
            let identity = StableKeyIdentity {
                language: symbol.language.as_str(),
                repository: &symbol.repository,
                package,
                module: &symbol.file_path,
                qualified_name: &symbol.qualified_name,
                kind: symbol.kind.as_str(),
                discriminator: &original,
            };
            renamed.insert((symbol.file_path.clone(), symbol.key), stable_key(identity));
        }
    }
    if renamed.is_empty() {
        return;
    }
    for symbol in &mut facts.symbols {
        if let Some(new) = renamed.get(&(symbol.file_path.clone(), symbol.key)) {
            symbol.key_module = symbol.file_path.clone();
            symbol.key_discriminator = symbol.key.to_string();
            symbol.key = *new;
        }
        if let Some(parent) = symbol.parent
            && let Some(new) = renamed.get(&(symbol.file_path.clone(), parent))
        {
            symbol.parent = Some(*new);
        }
    }
}

/// DEFINES (file → symbol) and METHOD_OF (method → its type) follow from the symbols.
fn symbol_edges(facts: &mut FactSet) {
    for symbol in &facts.symbols {
        let file = file_key(&symbol.repository, &symbol.file_path);
        facts.edges.push(structural(
            EdgeKind::Defines,
            file,
            symbol.key,
            Provenance::TreeSitterSyntax,
        ));
        if let Some(parent) = symbol.parent
            && matches!(symbol.kind, SymbolKind::Method | SymbolKind::StaticMethod)
        {
            facts.edges.push(structural(
                EdgeKind::MethodOf,
                symbol.key,
                parent,
                Provenance::TreeSitterSyntax,
            ));
        }
    }
}

/// A Go method's receiver type is declared in the same package (the language requires it);
/// a Rust impl's self type is linked when its module declares it. Anything else stays
/// unlinked: a type found elsewhere by name alone would be a guess.
fn link_receivers(facts: &mut FactSet, pending: &[(usize, String)]) {
    if pending.is_empty() {
        return;
    }
    let mut containers: HashMap<(StableKey, String), Vec<StableKey>> = HashMap::new();
    for symbol in &facts.symbols {
        if symbol.parent.is_none()
            && matches!(
                symbol.kind,
                SymbolKind::Type
                    | SymbolKind::Struct
                    | SymbolKind::Enum
                    | SymbolKind::Union
                    | SymbolKind::Trait
            )
        {
            containers
                .entry((symbol.package, symbol.qualified_name.clone()))
                .or_default()
                .push(symbol.key);
        }
    }
    // What a Rust impl may name, by its last segment, in any module of the crate: an impl
    // in another module than its type's is the crate's all the same.
    let declared_types: HashSet<(StableKey, String)> = facts
        .symbols
        .iter()
        .filter(|s| {
            s.language == Language::Rust
                && matches!(
                    s.kind,
                    SymbolKind::Struct
                        | SymbolKind::Enum
                        | SymbolKind::Union
                        | SymbolKind::Trait
                        | SymbolKind::TypeAlias
                )
        })
        .map(|s| (s.package, s.name.clone()))
        .collect();
    let mut not_indexed: Vec<UnresolvedReference> = Vec::new();
    for (index, receiver) in pending {
        let symbol = &facts.symbols[*index];
        let container_name = match symbol.language {
            Language::Rust => match symbol.qualified_name.rsplit_once("::") {
                Some((container, _)) => container.to_string(),
                None => continue,
            },
            _ => receiver.clone(),
        };
        match containers
            .get(&(symbol.package, container_name))
            .map(Vec::as_slice)
        {
            Some([only]) => facts.symbols[*index].parent = Some(*only),
            // A Rust impl of a type no declaration of the crate holds (another crate's,
            // one a macro generates, one behind a cfg the pass does not set): its methods
            // stand alone, and the hole is said once per type and file.
            None if symbol.language == Language::Rust
                && !declared_types.contains(&(
                    symbol.package,
                    receiver.rsplit("::").next().unwrap_or(receiver).to_string(),
                )) =>
            {
                let said = not_indexed.iter().any(|row| {
                    row.file_path.as_deref() == Some(symbol.file_path.as_str())
                        && row.requested_symbol.as_deref() == Some(receiver.as_str())
                });
                if !said {
                    not_indexed.push(UnresolvedReference {
                        repository: symbol.repository.clone(),
                        language: symbol.language,
                        reason: "DEFINITION_NOT_INDEXED".to_string(),
                        file_path: Some(symbol.file_path.clone()),
                        span: Some(symbol.span.start()),
                        requested_symbol: Some(receiver.clone()),
                        requested_package: facts.packages.first().map(|p| p.name.clone()),
                        detail: format!(
                            "this crate implements methods on `{receiver}`, which it does not declare: the type is another crate's, generated by a macro or behind a cfg the configuration does not set, so its methods belong to no declaration of the graph"
                        ),
                    });
                }
            }
            _ => {}
        }
    }
    facts.unresolved.extend(not_indexed);
}

/// Every repository, sorted by name. Structural sharing: nothing is copied.
#[salsa::tracked(returns(clone))]
pub fn workspace_facts(db: &dyn Db, workspace: Workspace) -> Arc<WorkspaceFacts> {
    let mut repositories: Vec<Arc<RepositoryFacts>> = workspace
        .repositories(db)
        .iter()
        .map(|r| repository_facts(db, *r))
        .collect();
    repositories.sort_by(|a, b| a.repository.name.cmp(&b.repository.name));
    Arc::new(WorkspaceFacts { repositories })
}
