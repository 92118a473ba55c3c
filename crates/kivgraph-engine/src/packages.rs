//! A package's merge: its files' declarations keyed once across the package, and its
//! references resolved by the syntax layer's rules.

use std::collections::{HashMap, HashSet};

use kivgraph_facts::{
    EdgeKind, FactSet, Language, Provenance, Reason, StableKey, StableKeyIdentity, SymbolFact,
    SymbolKind, UnresolvedReference,
};
use kivgraph_syntax::WHOLE_MODULE;

use crate::database::Db;
use crate::files::{LocalSymbol, file_facts, parse_failures};
use crate::inputs::PackageInput;
use crate::inputs::Workspace;
use crate::keys::stable_key;
use crate::keys::{file_key, structural};
use crate::module_lookup::ModuleLookup;
use crate::resolve::go::go_files;
use crate::resolve::go::resolve_go;
use crate::resolve::go::{
    go_package_implementations, go_package_names, go_provider, go_providers, go_replaces,
};
use crate::resolve::python::{
    package_modules, python_files, python_module_index, python_top_levels,
};
use crate::resolve::rust::resolve_rust;
use crate::resolve::rust::{rust_externs, rust_files};
use crate::resolve::typescript::module_files;
use crate::resolve::typescript::{ModuleSite, resolve_modules};
use crate::resolve::{Resolved, class_overrides};
use crate::stored::Stored;

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
        let provider =
            |top: &str| crate::resolve::python::python_provider(top, &repository, tops.get(top));
        crate::resolve::python::resolve_imports(
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
                        reason: Reason::DefinitionNotIndexed,
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

/// This module's share of [`crate::persisted::attach_restored_queries`].
pub(crate) fn attach_restored_queries(db: &mut dyn Db) {
    package_symbols::set_lru_capacity(db, 0);
    package_facts::set_lru_capacity(db, 0);
}
