//! Go: calls, type names, values and embedded types bound by the package block, by imports,
//! by the method's own receiver and by declared types, and selectors promoted through
//! embedded types (rules G1–G12 and G14 of `docs/resolution.md`; G13 is `implements.rs`).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use kivgraph_facts::{
    EdgeKind, FactSet, FileFact, LineSpan, Reason, StableKey, SymbolFact, SymbolKind,
};
use kivgraph_syntax::ReferenceSite;
use serde::{Deserialize, Serialize};

use crate::resolve::Resolved;
use crate::resolve::typescript::ModuleSite;

/// A call the resolver reads, as one file's memo keeps it: `name(…)` or `operand.name(…)`
/// where the operand is a single identifier.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Call {
    pub operand: Option<String>,
    pub name: String,
    pub span: LineSpan,
    /// Index of the enclosing declaration among the file's symbols.
    pub enclosing: Option<u32>,
    /// The enclosing top-level declaration binds the bare name (or the operand) locally.
    pub locally_bound: bool,
    /// The operand is the enclosing method's receiver, bound nowhere else.
    pub through_receiver: bool,
    /// The type the operand is declared with, where the syntax spells it (`T`, `pkg.T`).
    #[serde(default)]
    pub operand_type: Option<String>,
}

/// A Go import spec: `alias "path"`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoImport {
    pub path: String,
    pub alias: Option<String>,
    pub span: LineSpan,
}

/// What one Go file gives the resolver.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct GoSites {
    pub calls: Vec<Call>,
    /// Type names where they are used (`T`, `pkg.T`), in the same shape as calls.
    #[serde(default)]
    pub type_uses: Vec<Call>,
    /// Type names embedded in a struct or an interface, in the same shape.
    #[serde(default)]
    pub embeds: Vec<Call>,
    /// Names used as values (`PASSES_AS_CALLBACK`, `ASSIGNS_FUNCTION`, `RETURNS_FUNCTION`
    /// by where they stand), in the same shape as calls.
    #[serde(default)]
    pub value_uses: Vec<(EdgeKind, Call)>,
    pub imports: Vec<GoImport>,
    /// The Go method shapes of the file's declarations, by declaration index (methods and
    /// interface methods; see `Declaration::method_shape`).
    #[serde(default)]
    pub method_shapes: Vec<(u32, String)>,
    /// Calls and names used as values through an operand the syntax layer cannot type
    /// (`m[k].Add()`, `s.mu.Lock()`, `f().Close()`): no rule binds them, but they class an
    /// analyzer's use at the same place.
    #[serde(default)]
    pub through_values: Vec<(EdgeKind, Call)>,
}

impl GoSites {
    pub fn binds_nothing(&self) -> bool {
        self.calls.is_empty()
            && self.type_uses.is_empty()
            && self.embeds.is_empty()
            && self.value_uses.is_empty()
            && self.imports.is_empty()
    }
}

impl GoSites {
    /// The file's uses as module sites, the shape an exact analyzer's layering reads to
    /// class a use: calls, type names, embeddings and names used as values.
    pub fn as_module_sites(&self) -> Vec<ModuleSite> {
        let site = |kind: EdgeKind, call: &Call| ModuleSite {
            kind,
            specifier: None,
            name: call.name.clone(),
            alias: None,
            span: call.span,
            enclosing: call.enclosing,
            locally_bound: call.locally_bound,
            operand: call.operand.clone(),
            through_receiver: call.through_receiver,
            implementer: None,
            constructed: None,
            through_value: false,
        };
        let mut sites: Vec<ModuleSite> = Vec::new();
        sites.extend(self.calls.iter().map(|c| site(EdgeKind::CallsDirect, c)));
        sites.extend(self.type_uses.iter().map(|c| site(EdgeKind::TypeUses, c)));
        sites.extend(self.embeds.iter().map(|c| site(EdgeKind::Embeds, c)));
        sites.extend(self.value_uses.iter().map(|(kind, c)| site(*kind, c)));
        sites.extend(self.through_values.iter().map(|(kind, c)| ModuleSite {
            through_value: true,
            ..site(*kind, c)
        }));
        sites
    }
}

/// Keeps the sites the resolver reads: calls whose scopes the syntax layer read, and imports.
pub fn go_sites(sites: Vec<ReferenceSite>) -> GoSites {
    let mut kept = GoSites::default();
    for site in sites {
        match site.kind {
            EdgeKind::ImportsSymbol => kept.imports.push(GoImport {
                path: site.qualifier.unwrap_or_default(),
                alias: site.alias,
                span: site.span,
            }),
            EdgeKind::CallsDirect
            | EdgeKind::TypeUses
            | EdgeKind::Embeds
            | EdgeKind::PassesAsCallback
            | EdgeKind::AssignsFunction
            | EdgeKind::ReturnsFunction => {
                let call = Call {
                    operand: site.qualifier,
                    name: site.name,
                    span: site.span,
                    enclosing: site.enclosing,
                    locally_bound: site.locally_bound.unwrap_or(false),
                    through_receiver: site.through_receiver,
                    operand_type: site.operand_type,
                };
                // No scope could be read for the operand: only an analyzer decides it.
                if site.locally_bound.is_none() {
                    if !matches!(site.kind, EdgeKind::TypeUses | EdgeKind::Embeds) {
                        kept.through_values.push((site.kind, call));
                    }
                    continue;
                }
                match site.kind {
                    EdgeKind::CallsDirect => kept.calls.push(call),
                    EdgeKind::TypeUses => kept.type_uses.push(call),
                    EdgeKind::Embeds => kept.embeds.push(call),
                    kind => kept.value_uses.push((kind, call)),
                }
            }
            _ => {}
        }
    }
    kept
}

/// What a package-level name of one package block denotes.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct GoName {
    /// The functions of that name (several only across build-constrained files).
    pub functions: Vec<StableKey>,
    /// The types of that name (likewise).
    pub types: Vec<StableKey>,
    /// The variables and constants of that name (likewise).
    pub values: Vec<StableKey>,
    /// Also declared as a variable or constant.
    pub other: bool,
}

/// The package-level names of one Go package directory, per package clause.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct GoPackageNames {
    /// Keyed by (package clause, name).
    pub names: BTreeMap<(String, String), GoName>,
    /// The clause another package imports: the one that is neither `main` nor `*_test`, when
    /// exactly one is.
    pub importable: Option<String>,
    /// The methods the package declares, by (type name, method name), and its struct fields
    /// as (type name, field name): what an importer's `x.m()` reads when `x` is declared
    /// with one of the package's types (rule G11).
    pub methods: BTreeMap<(String, String), Vec<StableKey>>,
    pub fields: BTreeSet<(String, String)>,
    /// The repository the package belongs to.
    pub repository: String,
    /// The types each struct type embeds, by type name (rule G14).
    pub embeds: BTreeMap<String, Vec<GoEmbedded>>,
}

impl GoPackageNames {
    /// `name` as a package block declares it under `clause`.
    pub(crate) fn declared(&self, clause: &str, name: &str) -> Option<&GoName> {
        self.names.get(&(clause.to_string(), name.to_string()))
    }

    /// `name` as an importer reaches it: declared under the importable clause.
    pub(crate) fn exported(&self, name: &str) -> Option<&GoName> {
        self.declared(self.importable.as_deref()?, name)
    }
}

/// A type a struct embeds, as its package's name table records it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum GoEmbedded {
    /// A type of the same package, by name.
    Own(String),
    /// `pkg.T`: the import path the file binds `pkg` to, and `T`.
    Imported(String, String),
    /// A name the syntax cannot place (a dot import's, a generic instantiation's).
    Unknown,
}

impl GoPackageNames {
    /// What a selector naming something this package does not declare is charged with: a
    /// hole in the importer's own repository, or — from another repository — a consumer
    /// reaching a provider definition that no unit of the pass published.
    fn missing_name_reason(&self, importer: &GoFile) -> Reason {
        if self.repository == importer.file.repository {
            Reason::NameNotResolved
        } else {
            Reason::ProviderDefinitionNotIndexed
        }
    }
}

/// One Go file of a package: where its symbols sit in the package's symbol table.
pub struct GoFile<'a> {
    pub file: &'a FileFact,
    pub first_symbol: usize,
    pub symbol_count: usize,
    pub package_clause: &'a str,
    pub sites: &'a GoSites,
}

pub fn go_package_names(files: &[GoFile], symbols: &[SymbolFact]) -> GoPackageNames {
    let mut table = GoPackageNames::default();
    let mut importable: Vec<&str> = Vec::new();
    for file in files {
        let clause = file.package_clause;
        if clause != "main" && !clause.ends_with("_test") && !importable.contains(&clause) {
            importable.push(clause);
        }
        let declared = &symbols[file.first_symbol..file.first_symbol + file.symbol_count];
        for symbol in declared.iter().filter(|s| s.parent.is_none()) {
            let entry = table
                .names
                .entry((clause.to_string(), symbol.name.clone()))
                .or_default();
            match symbol.kind {
                SymbolKind::Func => entry.functions.push(symbol.key),
                SymbolKind::Type | SymbolKind::Alias => entry.types.push(symbol.key),
                _ => {
                    entry.values.push(symbol.key);
                    entry.other = true;
                }
            }
        }
    }
    if let [only] = importable.as_slice() {
        table.importable = Some(only.to_string());
    }
    if let Some(first) = files.first() {
        table.repository = first.file.repository.clone();
    }

    let type_names: BTreeMap<StableKey, &str> = symbols
        .iter()
        .filter(|s| s.parent.is_none())
        .map(|s| (s.key, s.name.as_str()))
        .collect();
    for symbol in symbols {
        let Some(owner) = symbol.parent.and_then(|p| type_names.get(&p)) else {
            continue;
        };
        let member = (owner.to_string(), symbol.name.clone());
        if symbol.kind == SymbolKind::Method {
            table.methods.entry(member).or_default().push(symbol.key);
        } else {
            table.fields.insert(member);
        }
    }
    for file in files {
        let declared = &symbols[file.first_symbol..file.first_symbol + file.symbol_count];
        for embed in &file.sites.embeds {
            // An embedded field is a member named after its type, held by the struct.
            let Some(owner) = embed
                .enclosing
                .and_then(|i| declared.get(i as usize))
                .filter(|field| field.kind == SymbolKind::Field)
                .and_then(|field| field.parent)
                .and_then(|parent| type_names.get(&parent))
            else {
                continue;
            };
            let embedded = match &embed.operand {
                None => GoEmbedded::Own(embed.name.clone()),
                Some(package) => file
                    .sites
                    .imports
                    .iter()
                    .find(|import| match &import.alias {
                        Some(alias) => alias == package,
                        None => conventional_name(&import.path) == *package,
                    })
                    .map_or(GoEmbedded::Unknown, |import| {
                        GoEmbedded::Imported(import.path.clone(), embed.name.clone())
                    }),
            };
            table
                .embeds
                .entry(owner.to_string())
                .or_default()
                .push(embedded);
        }
    }
    table
}

/// Who provides an import path, as the workspace's registered repositories say.
pub enum GoProvider {
    /// The standard library: not indexed, never charged as a failure.
    Standard,
    Missing,
    Ambiguous(usize),
    /// The one registered package of that path: its key and its names.
    Found(StableKey, Arc<GoPackageNames>),
    /// The importer's `go.mod` replaces the module with something no registered package
    /// is: why.
    ReplaceConflict(String),
}

/// Go's predeclared functions and types (a conversion `int(x)` is spelled as a call): one
/// that the package does not redeclare is neither an edge nor a failure.
pub(crate) const GO_UNIVERSE: &[&str] = &[
    "append",
    "cap",
    "clear",
    "close",
    "complex",
    "copy",
    "delete",
    "imag",
    "len",
    "make",
    "max",
    "min",
    "new",
    "panic",
    "print",
    "println",
    "real",
    "recover",
    "any",
    "bool",
    "byte",
    "comparable",
    "complex64",
    "complex128",
    "error",
    "float32",
    "float64",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "rune",
    "string",
    "uint",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "uintptr",
];

/// The standard library's import paths have no dot in their first element.
pub fn is_go_standard_path(path: &str) -> bool {
    !path.split('/').next().unwrap_or("").contains('.')
}

/// Resolves a Go package's calls (rules G1–G7 of `docs/resolution.md`).
///
/// Bare calls (G1–G4): Go's package block spans the files sharing a package clause, a
/// package-level name is declared once per build, and only a local binding can hide it.
/// Selector calls on an import name (G5–G7): an identifier the file imports, and that the
/// enclosing declaration does not rebind, denotes that package, so `pkg.F()` calls the
/// provider's package-level function `F`.
pub fn resolve_go(
    facts: &mut FactSet,
    files: &[GoFile],
    own: &GoPackageNames,
    provider: &dyn Fn(&str) -> GoProvider,
) {
    let members = Members::of(&facts.symbols);
    let mut out = Resolved::default();
    for file in files {
        let imports = file_imports(file, provider, &mut out);
        let imports = &imports;
        for call in &file.sites.calls {
            let Some(enclosing) = call.enclosing else {
                continue;
            };
            let caller = &facts.symbols[file.first_symbol + enclosing as usize];
            let source = caller.key;
            match &call.operand {
                None => resolve_bare(file, source, call, own, imports, &mut out),
                Some(_) if call.through_receiver => {
                    if let Some(receiver) =
                        caller.parent.filter(|_| caller.kind == SymbolKind::Method)
                    {
                        members.resolve(file, source, receiver, call, (own, provider), &mut out);
                    }
                }
                Some(operand) if !call.locally_bound => {
                    if let Some(imported) = imports.named(operand) {
                        resolve_imported(file, source, call, imported, &mut out);
                    } else if !imports.unindexed.contains_key(operand) {
                        receiver_unknown(file, call, &mut out);
                    }
                }
                Some(_) => match declared_receiver(file, call, own, imports) {
                    Some(DeclaredReceiver::Own(receiver)) => {
                        members.resolve(file, source, receiver, call, (own, provider), &mut out)
                    }
                    Some(DeclaredReceiver::Imported(names, ty)) => {
                        resolve_imported_member(file, source, (names, ty), call, provider, &mut out)
                    }
                    Some(DeclaredReceiver::Unindexed) => {}
                    None => receiver_unknown(file, call, &mut out),
                },
            }
        }
        for (kind, used) in &file.sites.value_uses {
            let Some(enclosing) = used.enclosing else {
                continue;
            };
            let source = facts.symbols[file.first_symbol + enclosing as usize].key;
            resolve_value_use(file, source, *kind, used, own, imports, &mut out);
        }
        for used in &file.sites.type_uses {
            let Some(enclosing) = used.enclosing else {
                continue;
            };
            let source = facts.symbols[file.first_symbol + enclosing as usize].key;
            resolve_type_use(
                file,
                EdgeKind::TypeUses,
                source,
                used,
                own,
                imports,
                &mut out,
            );
        }
        for used in &file.sites.embeds {
            let Some(enclosing) = used.enclosing else {
                continue;
            };
            // An embedded field is a member named after its type: the struct embeds. A
            // struct or interface literal inside a function is no declaration: its embedded
            // type is used by the function.
            let holder = &facts.symbols[file.first_symbol + enclosing as usize];
            let (kind, source) = match (holder.kind, holder.parent) {
                (SymbolKind::Field, Some(parent)) => (EdgeKind::Embeds, parent),
                (SymbolKind::Type, _) => (EdgeKind::Embeds, holder.key),
                _ => (EdgeKind::TypeUses, holder.key),
            };
            resolve_type_use(file, kind, source, used, own, imports, &mut out);
        }
    }
    out.append_to(facts);
}

/// Rule G10: a type name binds like a called name — the package block (or a dot import) for
/// a bare `T`, the provider's package block for `pkg.T` — to the type declared there:
/// certain when one declaration answers and the enclosing declaration does not rebind the
/// name (a type parameter, a local type). A name no rule binds is kept as a hole, except the
/// predeclared types and the standard library's.
fn resolve_type_use(
    file: &GoFile,
    kind: EdgeKind,
    source: StableKey,
    used: &Call,
    own: &GoPackageNames,
    imports: &FileImports,
    out: &mut Resolved,
) {
    let types = |name: Option<&GoName>| -> Option<Vec<StableKey>> {
        name.filter(|name| !name.types.is_empty())
            .map(|name| name.types.clone())
    };
    let found = match &used.operand {
        None => types(own.declared(file.package_clause, &used.name)).or_else(|| {
            imports
                .dot_imported()
                .find_map(|names| types(names.exported(&used.name)))
        }),
        Some(operand) => {
            let Some((_, path, Some(names))) = imports.named(operand) else {
                // The standard library's, or a provider charged once at its import.
                return;
            };
            match types(names.exported(&used.name)) {
                Some(keys) => Some(keys),
                None => {
                    out.hole(
                        file.file,
                        names.missing_name_reason(file),
                        used.span,
                        Some(&used.name),
                        Some(path),
                        format!(
                            "package {path} declares no type `{}` in any file this pass read",
                            used.name
                        ),
                    );
                    return;
                }
            }
        }
    };
    match found {
        Some(keys) => out.edges(
            kind,
            file.file,
            source,
            used.span,
            &keys,
            !used.locally_bound && keys.len() == 1,
        ),
        None if used.locally_bound || GO_UNIVERSE.contains(&used.name.as_str()) => {}
        None => out.hole(
            file.file,
            Reason::NameNotResolved,
            used.span,
            Some(&used.name),
            None,
            format!(
                "no type `{}` is declared in package {} that this pass read, and it is neither predeclared nor local",
                used.name, file.package_clause
            ),
        ),
    }
}

/// Rule G12: a package-level name used as a value — passed as an argument, assigned,
/// returned — binds like a called name (the package block, a dot import, or `pkg.F`
/// through an import). A function keeps the kind of its position (`PASSES_AS_CALLBACK`,
/// `ASSIGNS_FUNCTION`, `RETURNS_FUNCTION`); a variable or constant is `REFERENCES`. A name
/// the enclosing declaration binds is a local, and neither an edge nor a failure.
fn resolve_value_use(
    file: &GoFile,
    source: StableKey,
    kind: EdgeKind,
    used: &Call,
    own: &GoPackageNames,
    imports: &FileImports,
    out: &mut Resolved,
) {
    if used.locally_bound {
        return;
    }
    let found = match &used.operand {
        None => own.declared(file.package_clause, &used.name).or_else(|| {
            imports
                .dot_imported()
                .find_map(|names| names.exported(&used.name))
        }),
        Some(operand) => imports
            .provider(operand)
            .and_then(|names| names.exported(&used.name)),
    };
    let Some(name) = found.cloned() else {
        return;
    };
    let (kind, keys) = if !name.functions.is_empty() {
        (kind, name.functions)
    } else if !name.values.is_empty() {
        (EdgeKind::References, name.values)
    } else {
        return;
    };
    out.edges(kind, file.file, source, used.span, &keys, keys.len() == 1);
}

fn resolve_bare(
    file: &GoFile,
    source: StableKey,
    call: &Call,
    own: &GoPackageNames,
    imports: &FileImports,
    out: &mut Resolved,
) {
    // A dot import puts the provider's exported names in the file block; Go rejects a clash
    // with the package block, so at most one of the two declares the name.
    let dot_imported = || {
        imports
            .dot_imported()
            .filter_map(|names| names.exported(&call.name))
            .fold(None, |found: Option<GoName>, name| {
                let mut found = found.unwrap_or_default();
                found.functions.extend(&name.functions);
                found.other |= name.other;
                Some(found)
            })
    };
    let declared = own
        .declared(file.package_clause, &call.name)
        .cloned()
        .or_else(dot_imported);
    match declared {
        Some(name) if !name.functions.is_empty() => {
            out.edges(EdgeKind::CallsDirect, file.file, source, call.span, &name.functions, !call.locally_bound && name.functions.len() == 1);
        }
        Some(_) => {}
        None if call.locally_bound || GO_UNIVERSE.contains(&call.name.as_str()) => {}
        None => out.hole(
            file.file,
            Reason::NameNotResolved,
            call.span,
            Some(&call.name),
            None,
            format!(
                "`{}` is declared nowhere in package {} that this pass read, and is neither predeclared nor local; it may come from a dot import or a file the pass did not index",
                call.name, file.package_clause
            ),
        ),
    }
}

/// The methods and fields a package declares on its types, by (type, name).
struct Members {
    methods: BTreeMap<(StableKey, String), Vec<StableKey>>,
    fields: BTreeSet<(StableKey, String)>,
    type_names: BTreeMap<StableKey, String>,
}

impl Members {
    fn of(symbols: &[SymbolFact]) -> Self {
        let mut members = Members {
            methods: BTreeMap::new(),
            fields: BTreeSet::new(),
            type_names: BTreeMap::new(),
        };
        for symbol in symbols {
            let Some(parent) = symbol.parent else {
                members.type_names.insert(symbol.key, symbol.name.clone());
                continue;
            };
            let member = (parent, symbol.name.clone());
            if symbol.kind == SymbolKind::Method {
                members.methods.entry(member).or_default().push(symbol.key);
            } else {
                members.fields.insert(member);
            }
        }
        members
    }

    /// Rule G8: a call through the method's own receiver. The receiver's type is its method's
    /// container, and a method declared on that type shadows any promoted one, so a declared
    /// method of that name is the target. Calling a field of function type is not a method
    /// call; a name neither declared is promoted from an embedded type, which syntax does not
    /// follow: a declared hole.
    fn resolve(
        &self,
        file: &GoFile,
        source: StableKey,
        receiver: StableKey,
        call: &Call,
        (own, provider): (&GoPackageNames, &dyn Fn(&str) -> GoProvider),
        out: &mut Resolved,
    ) {
        let member = (receiver, call.name.clone());
        if let Some(methods) = self.methods.get(&member) {
            out.edges(
                EdgeKind::CallsDirect,
                file.file,
                source,
                call.span,
                methods,
                methods.len() == 1,
            );
        } else if !self.fields.contains(&member) {
            let type_name = self.type_names.get(&receiver).map_or("?", String::as_str);
            let promotion = promoted(Table::Own(own), type_name, &call.name, provider);
            bind_promoted(file, source, call, type_name, promotion, out);
        }
    }
}

/// A package's name table, the importer's own or a provider's.
#[derive(Clone)]
enum Table<'a> {
    Own(&'a GoPackageNames),
    Provided(Arc<GoPackageNames>),
}

impl std::ops::Deref for Table<'_> {
    type Target = GoPackageNames;

    fn deref(&self) -> &GoPackageNames {
        match self {
            Table::Own(names) => names,
            Table::Provided(names) => names,
        }
    }
}

/// What a selector names through a type's embedded fields (rule G14).
enum Promotion {
    Method(Vec<StableKey>),
    Field,
    /// Two embedded types at the shallowest depth provide it: the selector is ambiguous.
    Ambiguous,
    /// An embedded type the pass did not index may provide it.
    Unknown,
    /// No embedded type provides it.
    Missing,
}

/// Rule G14: Go promotes the methods and fields of embedded types; a selector names the one
/// at the shallowest depth, and two at that depth make it ambiguous. The walk goes breadth
/// first through the embedded types of this package and of the packages it can read; an
/// embedded type nobody indexed leaves the answer open.
fn promoted(
    start: Table,
    type_name: &str,
    name: &str,
    provider: &dyn Fn(&str) -> GoProvider,
) -> Promotion {
    let mut frontier = vec![(start, type_name.to_string())];
    let mut seen = BTreeSet::new();
    for _ in 0..8 {
        let mut found = Vec::new();
        let mut unknown = false;
        let mut next = Vec::new();
        for (table, ty) in &frontier {
            for embedded in table.embeds.get(ty).into_iter().flatten() {
                let (holder, inner) = match embedded {
                    GoEmbedded::Own(inner) => (table.clone(), inner.clone()),
                    GoEmbedded::Imported(path, inner) => match provider(path) {
                        GoProvider::Found(_, names) => (Table::Provided(names), inner.clone()),
                        _ => {
                            unknown = true;
                            continue;
                        }
                    },
                    GoEmbedded::Unknown => {
                        unknown = true;
                        continue;
                    }
                };
                let member = (inner.clone(), name.to_string());
                if let Some(methods) = holder.methods.get(&member) {
                    found.push(Promotion::Method(methods.clone()));
                } else if holder.fields.contains(&member) {
                    found.push(Promotion::Field);
                } else if seen.insert((
                    holder.repository.clone(),
                    holder.importable.clone(),
                    inner.clone(),
                )) {
                    next.push((holder, inner));
                }
            }
        }
        match (found.len(), unknown) {
            (0, _) if next.is_empty() => {
                return if unknown {
                    Promotion::Unknown
                } else {
                    Promotion::Missing
                };
            }
            (0, _) => frontier = next,
            (1, false) => return found.pop().unwrap_or(Promotion::Missing),
            (1, true) => return Promotion::Unknown,
            _ => return Promotion::Ambiguous,
        }
    }
    Promotion::Unknown
}

/// The edge a promoted method gives, or the hole a selector no rule binds leaves.
fn bind_promoted(
    file: &GoFile,
    source: StableKey,
    call: &Call,
    type_name: &str,
    promotion: Promotion,
    out: &mut Resolved,
) {
    let why = match promotion {
        Promotion::Method(methods) => {
            let certain = methods.len() == 1;
            out.edges(
                EdgeKind::CallsDirect,
                file.file,
                source,
                call.span,
                &methods,
                certain,
            );
            return;
        }
        Promotion::Field => return,
        Promotion::Ambiguous => {
            "two of its embedded types at the same depth provide it, so the selector is ambiguous"
        }
        Promotion::Unknown => {
            "it may be promoted from an embedded type the pass did not index (the standard library's, or a package nobody registered)"
        }
        Promotion::Missing => "no type it embeds provides it either",
    };
    out.hole(
        file.file,
        Reason::NameNotResolved,
        call.span,
        Some(&format!("{type_name}.{}", call.name)),
        None,
        format!(
            "{type_name} declares no method or field `{}`; {why}",
            call.name
        ),
    );
}

/// Rule G11: a variable bound once in the enclosing declaration with a type the syntax
/// spells — a parameter, a `var`, a composite literal — has that type for good (Go types are
/// static), so `x.m()` calls a method of that type as G8 does through a receiver: a type the
/// package block declares exactly once, or `pkg.T` of a package the file imports.
enum DeclaredReceiver<'a> {
    Own(StableKey),
    Imported(&'a GoPackageNames, &'a str),
    /// A predeclared type (`error`) or one of a package nobody indexed (the standard
    /// library, or one charged once at its import): known, but nothing to bind or charge.
    Unindexed,
}

fn declared_receiver<'a>(
    file: &GoFile,
    call: &'a Call,
    own: &GoPackageNames,
    imports: &'a FileImports,
) -> Option<DeclaredReceiver<'a>> {
    let ty = call.operand_type.as_deref()?;
    if let Some((package, name)) = ty.split_once('.') {
        if imports.unindexed.contains_key(package) {
            return Some(DeclaredReceiver::Unindexed);
        }
        return Some(DeclaredReceiver::Imported(imports.provider(package)?, name));
    }
    if GO_UNIVERSE.contains(&ty) {
        return Some(DeclaredReceiver::Unindexed);
    }
    match own.declared(file.package_clause, ty)?.types.as_slice() {
        [one] => Some(DeclaredReceiver::Own(*one)),
        _ => None,
    }
}

/// `x.m()` on a value of another package's type `pkg.T`: that package's method `T.m`, a
/// field call (nothing), or a method promoted from an embedded type (a hole).
fn resolve_imported_member(
    file: &GoFile,
    source: StableKey,
    (names, ty): (&GoPackageNames, &str),
    call: &Call,
    provider: &dyn Fn(&str) -> GoProvider,
    out: &mut Resolved,
) {
    let member = (ty.to_string(), call.name.clone());
    if let Some(methods) = names.methods.get(&member) {
        out.edges(
            EdgeKind::CallsDirect,
            file.file,
            source,
            call.span,
            methods,
            methods.len() == 1,
        );
    } else if !names.fields.contains(&member) {
        let promotion = promoted(Table::Own(names), ty, &call.name, provider);
        bind_promoted(file, source, call, ty, promotion, out);
    }
}

/// A call `operand.name()` whose operand is a value, not an imported package: its method set
/// is its type's, which only a type checker knows. Never linked by name.
fn receiver_unknown(file: &GoFile, call: &Call, out: &mut Resolved) {
    out.hole(
        file.file,
        Reason::ReceiverTypeUnknown,
        call.span,
        Some(&call.name),
        None,
        "the operand is a value whose type the syntax layer does not infer; only a type checker can bind this call".into(),
    );
}

/// The names a file's imports bind, each with its path and what provides it.
pub(crate) type ImportBinding = (String, String, Option<Arc<GoPackageNames>>);

/// A file's imports: those bound to an indexed provider, and the names of the ones that are
/// not indexed (the standard library, or charged once as a missing provider), whose
/// selector calls are not charged again.
pub(crate) struct FileImports {
    pub(crate) bound: Vec<ImportBinding>,
    /// By the name each binds, with its path.
    pub(crate) unindexed: BTreeMap<String, String>,
}

impl FileImports {
    /// The import that binds `name` in the file block (its alias or its provider's clause).
    pub(crate) fn named(&self, name: &str) -> Option<&ImportBinding> {
        self.bound.iter().find(|(bound, ..)| bound == name)
    }

    /// The indexed provider whose package `operand` names in `operand.X`.
    pub(crate) fn provider(&self, operand: &str) -> Option<&GoPackageNames> {
        self.named(operand)?.2.as_deref()
    }

    /// The indexed providers whose exported names a dot import puts in the file block.
    fn dot_imported(&self) -> impl Iterator<Item = &GoPackageNames> {
        self.bound
            .iter()
            .filter(|(name, ..)| name == ".")
            .filter_map(|(_, _, names)| names.as_deref())
    }
}

/// The name an import binds when the source gives no alias and no provider is indexed to
/// read the package clause from: the last path element, without a `.vN` or `go-` decoration.
fn conventional_name(path: &str) -> String {
    let last = path.rsplit('/').next().unwrap_or(path);
    let last = match last.rsplit_once(".v") {
        Some((stem, version)) if version.chars().all(|c| c.is_ascii_digit()) => stem,
        _ => last,
    };
    last.strip_prefix("go-").unwrap_or(last).to_string()
}

/// Binds each import of a file to its provider; charges the imports nobody (or several)
/// provides, once per import spec.
pub(crate) fn file_imports(
    file: &GoFile,
    provider: &dyn Fn(&str) -> GoProvider,
    out: &mut Resolved,
) -> FileImports {
    let mut bound = Vec::new();
    let mut unindexed = BTreeMap::new();
    for import in &file.sites.imports {
        let alias = import.alias.as_deref();
        if alias == Some("_") {
            continue;
        }
        let found = provider(&import.path);
        if !matches!(found, GoProvider::Found(..)) {
            unindexed.insert(
                alias.map_or_else(|| conventional_name(&import.path), str::to_string),
                import.path.clone(),
            );
        }
        match found {
            GoProvider::Standard => {}
            GoProvider::Missing => out.hole(
                file.file,
                Reason::ModuleProviderNotFound,
                import.span,
                None,
                Some(&import.path),
                format!(
                    "no registered repository provides the Go package {}",
                    import.path
                ),
            ),
            GoProvider::ReplaceConflict(detail) => out.hole(
                file.file,
                Reason::ReplaceConflict,
                import.span,
                None,
                Some(&import.path),
                detail.clone(),
            ),
            GoProvider::Ambiguous(count) => out.hole(
                file.file,
                Reason::AmbiguousModuleProvider,
                import.span,
                None,
                Some(&import.path),
                format!(
                    "{count} registered packages claim the import path {}; none is chosen",
                    import.path
                ),
            ),
            GoProvider::Found(package, names) => {
                // The import path names one registered package directory: Go binds it.
                out.depends(file.file, package, import.span, true);
                // Without an alias the file binds the provider's package clause; `.` binds
                // its exported names one by one, looked up by `resolve_bare`.
                let name = alias
                    .map(str::to_string)
                    .or_else(|| names.importable.clone());
                if let Some(name) = name {
                    bound.push((name, import.path.clone(), Some(names)));
                }
            }
        }
    }
    FileImports { bound, unindexed }
}

fn resolve_imported(
    file: &GoFile,
    source: StableKey,
    call: &Call,
    imported: &ImportBinding,
    out: &mut Resolved,
) {
    let (_, path, Some(names)) = imported else {
        return;
    };
    if names.importable.is_none() {
        return;
    }
    match names.exported(&call.name) {
        Some(name) if !name.functions.is_empty() => {
            out.edges(
                EdgeKind::CallsDirect,
                file.file,
                source,
                call.span,
                &name.functions,
                name.functions.len() == 1,
            );
        }
        Some(_) => {}
        None => out.hole(
            file.file,
            names.missing_name_reason(file),
            call.span,
            Some(&call.name),
            Some(path),
            format!(
                "package {path} declares no package-level `{}` in any file this pass read",
                call.name
            ),
        ),
    }
}
