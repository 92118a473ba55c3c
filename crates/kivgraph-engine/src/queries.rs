//! Inputs and tracked queries. Per-file facts are persisted (they are the fact cache); the
//! merges are cheap and recomputed from them.

use std::collections::{BTreeMap, HashMap};

use kivgraph_facts::{
    Confidence, Edge, EdgeKind, FactSet, FileFact, Fingerprint, Language, LineSpan, PackageFact,
    ParseIssue, Provenance, RepositoryFact, StableKey, StableKeyIdentity, SymbolFact, SymbolKind,
    UnresolvedReference,
};
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

/// One registered repository and its files, sorted by path.
#[salsa::input(persist)]
pub struct RepositoryInput {
    #[returns(ref)]
    pub name: String,
    #[returns(ref)]
    pub root: String,
    #[returns(ref)]
    pub languages: Vec<Language>,
    #[returns(ref)]
    pub files: Vec<FileInput>,
}

/// The registered repositories, in registry order.
#[salsa::input(persist, singleton)]
pub struct Workspace {
    #[returns(ref)]
    pub repositories: Vec<RepositoryInput>,
}

/// What one file contributes, keyed and ready to merge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileFacts {
    pub package: PackageFact,
    pub file: FileFact,
    pub symbols: Vec<SymbolFact>,
    /// The package's containment of this file.
    pub edges: Vec<Edge>,
    /// Methods whose receiver or impl type is declared elsewhere: (symbol index, type name).
    pub pending_receivers: Vec<(u32, String)>,
    /// `false` when the source text could not be read.
    pub readable: bool,
}

fn key(identity: StableKeyIdentity) -> StableKey {
    identity
        .key()
        .expect("identity fields are non-empty by construction")
}

/// Node keys share the symbol key algorithm, with the node table as the kind.
pub fn repository_key(name: &str) -> StableKey {
    key(StableKeyIdentity {
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
    key(StableKeyIdentity {
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
    key(StableKeyIdentity {
        language: "*",
        repository,
        package: "*",
        module: "",
        qualified_name: path,
        kind: "file",
        discriminator: "none",
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
    key(StableKeyIdentity {
        language: language.as_str(),
        repository,
        package,
        module,
        qualified_name,
        kind: kind.as_str(),
        discriminator,
    })
}

/// Parses one file and keys its declarations. Persisted: this memo is the fact cache.
#[salsa::tracked(returns(ref), persist)]
pub fn file_facts(db: &dyn Db, file: FileInput) -> FileFacts {
    let repository = file.repository(db);
    let path = file.path(db);
    let language = file.language(db);
    let unit = file.unit(db);
    let fingerprint = file.fingerprint(db);
    let text = db.source_text(fingerprint);
    let readable = text.is_some();
    let syntax = match &text {
        Some(text) => kivgraph_syntax::extract(language, path, text),
        None => kivgraph_syntax::SyntaxFacts {
            issues: vec![ParseIssue {
                line: 1,
                column: 1,
                message: "source text unavailable".into(),
            }],
            ..Default::default()
        },
    };
    let package_key = package_key(language, repository, &unit.package);
    let file_key = file_key(repository, path);
    let module_prefix = if language == Language::Rust && !unit.module.is_empty() {
        Some(unit.module.as_str())
    } else {
        None
    };

    let mut seen: HashMap<StableKey, u32> = HashMap::new();
    let mut symbols: Vec<SymbolFact> = Vec::with_capacity(syntax.declarations.len());
    for declaration in &syntax.declarations {
        let qualified_name = match module_prefix {
            Some(prefix) => format!("{prefix}::{}", declaration.qualified_name),
            None => declaration.qualified_name.clone(),
        };
        let discriminator = declaration
            .discriminator
            .clone()
            .filter(|d| !d.is_empty())
            .unwrap_or_else(|| "none".to_string());
        let mut symbol_key = symbol_key(
            language,
            repository,
            unit,
            &qualified_name,
            declaration.kind,
            &discriminator,
        );
        // A name the language lets a file declare twice (a Python rebinding, identical
        // overloads) gets an ordinal, in source order.
        let occurrence = seen.entry(symbol_key).or_insert(0);
        *occurrence += 1;
        if *occurrence > 1 {
            let ordinal = format!("{discriminator}#{occurrence}");
            symbol_key = self::symbol_key(
                language,
                repository,
                unit,
                &qualified_name,
                declaration.kind,
                &ordinal,
            );
        }
        let parent = declaration.parent.map(|p| symbols[p as usize].key);
        symbols.push(SymbolFact {
            key: symbol_key,
            repository: repository.clone(),
            language,
            package: package_key,
            file_path: path.clone(),
            name: declaration.name.clone(),
            qualified_name,
            kind: declaration.kind,
            signature: declaration.signature.clone(),
            exported: declaration.exported,
            span: declaration.span,
            doc: declaration.doc.clone(),
            parent,
        });
    }
    let edges = vec![structural(
        EdgeKind::ContainsFile,
        package_key,
        file_key,
        Provenance::PackageManifest,
    )];
    let pending_receivers = syntax
        .declarations
        .iter()
        .enumerate()
        .filter_map(|(i, d)| d.receiver.clone().map(|r| (i as u32, r)))
        .collect();
    FileFacts {
        package: PackageFact {
            key: package_key,
            repository: repository.clone(),
            language,
            name: unit.package.clone(),
            path: unit.package_path.clone(),
        },
        file: FileFact {
            key: file_key,
            repository: repository.clone(),
            path: path.clone(),
            language,
            package: package_key,
            fingerprint,
            line_count: syntax.line_count,
            byte_len: file.byte_len(db),
            parse_issues: syntax.issues,
        },
        symbols,
        edges,
        pending_receivers,
        readable,
    }
}

/// Merges one repository's files in path order: packages, receivers declared in another file
/// of the package, and keys two files of a package both claim.
#[salsa::tracked(returns(ref))]
pub fn repository_facts(db: &dyn Db, repository: RepositoryInput) -> FactSet {
    let name = repository.name(db);
    let repository_key = repository_key(name);
    let mut facts = FactSet {
        repositories: vec![RepositoryFact {
            key: repository_key,
            name: name.clone(),
            root: repository.root(db).clone(),
            languages: repository.languages(db).clone(),
        }],
        ..FactSet::default()
    };
    let mut packages: BTreeMap<StableKey, PackageFact> = BTreeMap::new();
    let mut pending: Vec<(usize, String)> = Vec::new();
    for file in repository.files(db) {
        let file_facts = file_facts(db, *file);
        packages
            .entry(file_facts.package.key)
            .or_insert_with(|| file_facts.package.clone());
        let offset = facts.symbols.len();
        pending.extend(
            file_facts
                .pending_receivers
                .iter()
                .map(|(i, r)| (offset + *i as usize, r.clone())),
        );
        if let Some(first) = file_facts.file.parse_issues.first() {
            // A file tree-sitter had to recover is indexed as far as it was recovered, and the
            // hole is declared.
            facts.unresolved.push(UnresolvedReference {
                repository: name.clone(),
                language: file_facts.file.language,
                reason: "PARSE_ERROR".into(),
                file_path: Some(file_facts.file.path.clone()),
                span: Some(LineSpan { start_line: first.line, end_line: first.line, start_byte: 0, end_byte: 0 }),
                requested_symbol: None,
                requested_package: None,
                detail: format!(
                    "{} syntax error(s), first at {}:{} ({}); declarations were extracted as far as the parser recovered",
                    file_facts.file.parse_issues.len(),
                    first.line,
                    first.column,
                    first.message
                ),
            });
        }
        facts.files.push(file_facts.file.clone());
        facts.symbols.extend(file_facts.symbols.iter().cloned());
        facts.edges.extend(file_facts.edges.iter().cloned());
    }
    rekey_package_duplicates(&mut facts, &packages);
    link_receivers(&mut facts, &pending);
    symbol_edges(&mut facts);
    for package in packages.values() {
        facts.edges.push(structural(
            EdgeKind::ContainsPackage,
            repository_key,
            package.key,
            Provenance::PackageManifest,
        ));
    }
    facts.packages = packages.into_values().collect();
    facts
}

/// Two files of one package declaring the same key (Go files for different build tags, say):
/// the first file in path order keeps the key, the others are keyed with their file path.
fn rekey_package_duplicates(facts: &mut FactSet, packages: &BTreeMap<StableKey, PackageFact>) {
    let mut first_file: HashMap<StableKey, &str> = HashMap::new();
    let mut renamed: HashMap<(String, StableKey), StableKey> = HashMap::new();
    for symbol in &facts.symbols {
        let owner = *first_file
            .entry(symbol.key)
            .or_insert(symbol.file_path.as_str());
        if owner != symbol.file_path {
            let package = &packages[&symbol.package].name;
            let identity = StableKeyIdentity {
                language: symbol.language.as_str(),
                repository: &symbol.repository,
                package,
                module: &symbol.file_path,
                qualified_name: &symbol.qualified_name,
                kind: symbol.kind.as_str(),
                discriminator: "none",
            };
            renamed.insert((symbol.file_path.clone(), symbol.key), key(identity));
        }
    }
    if renamed.is_empty() {
        return;
    }
    for symbol in &mut facts.symbols {
        if let Some(new) = renamed.get(&(symbol.file_path.clone(), symbol.key)) {
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
    for (index, receiver) in pending {
        let symbol = &facts.symbols[*index];
        let container_name = match symbol.language {
            Language::Rust => match symbol.qualified_name.rsplit_once("::") {
                Some((container, _)) => container.to_string(),
                None => continue,
            },
            _ => receiver.clone(),
        };
        if let Some([only]) = containers
            .get(&(symbol.package, container_name))
            .map(Vec::as_slice)
        {
            facts.symbols[*index].parent = Some(*only);
        }
    }
}

/// Every repository merged in registry order, canonicalized.
#[salsa::tracked(returns(ref))]
pub fn workspace_facts(db: &dyn Db, workspace: Workspace) -> FactSet {
    let mut merged = FactSet::default();
    for repository in workspace.repositories(db) {
        let facts = repository_facts(db, *repository);
        merged
            .repositories
            .extend(facts.repositories.iter().cloned());
        merged.packages.extend(facts.packages.iter().cloned());
        merged.files.extend(facts.files.iter().cloned());
        merged.symbols.extend(facts.symbols.iter().cloned());
        merged.evidence.extend(facts.evidence.iter().cloned());
        merged.edges.extend(facts.edges.iter().cloned());
        merged.unresolved.extend(facts.unresolved.iter().cloned());
    }
    merged.canonicalize();
    merged
}
