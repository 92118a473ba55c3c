//! Go: which types implement which interfaces (rule G13 of `docs/resolution.md`), and which
//! methods hide a method their type's embedded types would promote (rule G15).
//!
//! Go's satisfaction is implicit — a type implements an interface when its method set holds
//! every method of the interface with an identical signature — so it is decided across the
//! workspace, after every signature's type names have been resolved to the declarations they
//! denote. Two methods are compared by name and resolved signature, never by name alone.

use std::collections::{BTreeMap, BTreeSet};

use kivgraph_facts::{EdgeKind, FactSet, LineSpan, StableKey, SymbolFact, SymbolKind};

use crate::resolve::Resolved;
use crate::resolve::go::{
    FileImports, GO_UNIVERSE, GoFile, GoName, GoPackageNames, GoProvider, file_imports,
};

/// `Error() string`, the method of the predeclared `error`, in resolved form.
const ERROR_METHOD: &str = "Error ( ) -> ( string , )";

/// A declaration an implementation is observed at.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Declared {
    pub key: StableKey,
    pub package: StableKey,
    pub repository: String,
    pub path: String,
    pub span: LineSpan,
}

impl Declared {
    fn of(symbol: &SymbolFact) -> Self {
        Declared {
            key: symbol.key,
            package: symbol.package,
            repository: symbol.repository.clone(),
            path: symbol.file_path.clone(),
            span: symbol.span,
        }
    }
}

/// What an interface embeds, as far as the syntax binds it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Embedded {
    /// A type declared once in a registered package (an interface, unless the workspace
    /// says otherwise).
    Type(StableKey),
    /// The predeclared `error`.
    Error,
    /// Anything else (the standard library's, an unbound name): the method set is unknown.
    Unknown,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GoInterface {
    pub declared: Declared,
    /// Resolved signature and method symbol of each method it declares itself; `None` when
    /// one of them cannot be compared (a type name the syntax cannot resolve).
    pub methods: Option<Vec<(String, StableKey)>>,
    pub embeds: Vec<Embedded>,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GoConcrete {
    pub declared: Declared,
    /// The methods declared on the type (value or pointer receiver), by resolved signature.
    pub methods: BTreeMap<String, Declared>,
    /// Its fields' names: a field hides a promoted method of the same name.
    pub fields: BTreeSet<String>,
    /// The types its struct embeds, whose methods it is promoted (rule G14).
    pub embeds: Vec<Embedded>,
}

/// One Go package's interfaces and method-carrying types, signatures resolved.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct GoMethodSets {
    pub interfaces: Vec<GoInterface>,
    pub types: Vec<GoConcrete>,
}

/// Rewrites a method shape with each type name replaced by what it denotes: `path.T` for a
/// type of this package or of an imported one, the bare name for a predeclared type. `None`
/// when a name is neither (a dot import, an unindexed local).
fn resolved_shape(
    shape: &str,
    own: &GoPackageNames,
    clause: &str,
    import_path: &str,
    imports: &FileImports,
) -> Option<String> {
    let mut resolved = String::with_capacity(shape.len() + 16);
    for token in shape.split(' ').filter(|t| !t.is_empty()) {
        resolved.push(' ');
        if let Some(name) = token.strip_prefix('#') {
            let declared = own
                .declared(clause, name)
                .is_some_and(|n| !n.types.is_empty());
            if declared {
                resolved.push_str(import_path);
                resolved.push('.');
            } else if !GO_UNIVERSE.contains(&name) {
                return None;
            }
            resolved.push_str(name);
        } else if let Some(qualified) = token.strip_prefix('@') {
            let (package, name) = qualified.split_once('.')?;
            let path = imports
                .named(package)
                .map(|(_, path, _)| path)
                .or_else(|| imports.unindexed.get(package))?;
            resolved.push_str(path);
            resolved.push('.');
            resolved.push_str(name);
        } else {
            resolved.push_str(token);
        }
    }
    Some(resolved)
}

fn is_interface(symbol: &SymbolFact) -> bool {
    symbol.kind == SymbolKind::Type && symbol.signature.ends_with(" interface")
}

/// A package's interfaces and types with their resolved method signatures.
pub fn go_method_sets(
    files: &[GoFile],
    symbols: &[SymbolFact],
    own: &GoPackageNames,
    import_path: &str,
    provider: &dyn Fn(&str) -> GoProvider,
) -> GoMethodSets {
    let mut signatures: BTreeMap<StableKey, Option<String>> = BTreeMap::new();
    let mut embeds: BTreeMap<StableKey, Vec<Embedded>> = BTreeMap::new();
    for file in files {
        if file.sites.method_shapes.is_empty() && file.sites.embeds.is_empty() {
            continue;
        }
        // Imports are charged by the package's resolution; here they only name paths.
        let imports = file_imports(file, provider, &mut Resolved::default());
        // An external test package shares the directory, not the package.
        let package = if file.package_clause.ends_with("_test") {
            format!("{import_path}_test")
        } else {
            import_path.to_string()
        };
        for (index, shape) in &file.sites.method_shapes {
            let symbol = &symbols[file.first_symbol + *index as usize];
            let resolved =
                resolved_shape(shape, own, file.package_clause, &package, &imports).map(|shape| {
                    // An unexported method name is qualified by its package: only a type of
                    // that package can provide it.
                    if symbol.exported {
                        format!("{}{shape}", symbol.name)
                    } else {
                        format!("{package}.{}{shape}", symbol.name)
                    }
                });
            signatures.insert(symbol.key, resolved);
        }
        for embed in &file.sites.embeds {
            // An interface embeds through an element; a struct through a field named after
            // the type.
            let holder = embed.enclosing.and_then(|i| {
                let symbol = &symbols[file.first_symbol + i as usize];
                if is_interface(symbol) {
                    Some(symbol.key)
                } else {
                    symbol.parent.filter(|_| symbol.kind == SymbolKind::Field)
                }
            });
            let Some(holder) = holder else {
                continue;
            };
            let single = |name: Option<&GoName>| match name.map(|n| n.types.as_slice()) {
                Some([one]) => Some(*one),
                _ => None,
            };
            let embedded = match &embed.operand {
                None => match single(own.declared(file.package_clause, &embed.name)) {
                    Some(key) => Embedded::Type(key),
                    None if embed.name == "error" => Embedded::Error,
                    None => Embedded::Unknown,
                },
                Some(package) => imports
                    .provider(package)
                    .and_then(|names| single(names.exported(&embed.name)))
                    .map_or(Embedded::Unknown, Embedded::Type),
            };
            embeds.entry(holder).or_default().push(embedded);
        }
    }
    let mut members: BTreeMap<StableKey, Vec<&SymbolFact>> = BTreeMap::new();
    let mut fields: BTreeMap<StableKey, BTreeSet<String>> = BTreeMap::new();
    for symbol in symbols {
        match (symbol.kind, symbol.parent) {
            (SymbolKind::Method, Some(parent)) => members.entry(parent).or_default().push(symbol),
            (SymbolKind::Field, Some(parent)) => {
                fields
                    .entry(parent)
                    .or_default()
                    .insert(symbol.name.clone());
            }
            _ => {}
        }
    }
    let mut sets = GoMethodSets::default();
    for symbol in symbols.iter().filter(|s| s.kind == SymbolKind::Type) {
        let methods = members.get(&symbol.key).map_or(&[][..], Vec::as_slice);
        if is_interface(symbol) {
            let resolved: Option<Vec<(String, StableKey)>> = methods
                .iter()
                .map(|m| Some((signatures.get(&m.key)?.clone()?, m.key)))
                .collect();
            sets.interfaces.push(GoInterface {
                declared: Declared::of(symbol),
                methods: resolved,
                embeds: embeds.remove(&symbol.key).unwrap_or_default(),
            });
        } else {
            let methods: BTreeMap<String, Declared> = methods
                .iter()
                .filter_map(|m| Some((signatures.get(&m.key)?.clone()?, Declared::of(m))))
                .collect();
            let embeds = embeds.remove(&symbol.key).unwrap_or_default();
            if !methods.is_empty() || !embeds.is_empty() {
                sets.types.push(GoConcrete {
                    declared: Declared::of(symbol),
                    methods,
                    fields: fields.remove(&symbol.key).unwrap_or_default(),
                    embeds,
                });
            }
        }
    }
    sets
}

/// The method set of an interface, embedded interfaces included: each resolved signature
/// with the interface methods that declare it (none for `error`'s). `None` when any part is
/// unknown.
fn interface_method_set(
    key: StableKey,
    interfaces: &BTreeMap<StableKey, &GoInterface>,
    visiting: &mut BTreeSet<StableKey>,
    set: &mut BTreeMap<String, Vec<StableKey>>,
) -> Option<()> {
    let interface = interfaces.get(&key)?;
    if !visiting.insert(key) {
        return Some(());
    }
    for (signature, method) in interface.methods.as_ref()? {
        set.entry(signature.clone()).or_default().push(*method);
    }
    for embedded in &interface.embeds {
        match embedded {
            Embedded::Type(inner) => interface_method_set(*inner, interfaces, visiting, set)?,
            Embedded::Error => {
                set.entry(ERROR_METHOD.to_string()).or_default();
            }
            Embedded::Unknown => return None,
        }
    }
    Some(())
}

/// Every `IMPLEMENTS` edge the workspace's Go declarations prove — a type to the interface,
/// and each of its methods to the interface method it provides — and every `OVERRIDES` of a
/// promoted method (rule G15), grouped by the package of the implementing or hiding
/// declaration.
pub fn go_implementations(sets: &[&GoMethodSets]) -> BTreeMap<StableKey, FactSet> {
    let interfaces: BTreeMap<StableKey, &GoInterface> = sets
        .iter()
        .flat_map(|s| &s.interfaces)
        .map(|i| (i.declared.key, i))
        .collect();
    let types: Vec<&GoConcrete> = sets.iter().flat_map(|s| &s.types).collect();
    let concretes: BTreeMap<StableKey, &GoConcrete> =
        types.iter().map(|t| (t.declared.key, *t)).collect();
    let depths: Vec<Vec<Offered>> = types
        .iter()
        .map(|ty| offered_by_depth(ty, &concretes, &interfaces))
        .collect();
    let method_sets: Vec<MethodSet> = types
        .iter()
        .zip(&depths)
        .map(|(ty, depths)| full_method_set(ty, depths))
        .collect();
    let mut found: BTreeMap<StableKey, Resolved> = BTreeMap::new();
    for (ty, depths) in types.iter().zip(&depths) {
        for (method, promoted) in hidden_methods(ty, depths) {
            found.entry(method.package).or_default().observed(
                EdgeKind::Overrides,
                &method.repository,
                &method.path,
                method.key,
                method.span.start(),
                &[promoted.key],
            );
        }
    }
    let mut by_signature: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (index, set) in method_sets.iter().enumerate() {
        for signature in set.keys() {
            by_signature.entry(signature).or_default().push(index);
        }
    }
    for key in interfaces.keys() {
        let mut set = BTreeMap::new();
        if interface_method_set(*key, &interfaces, &mut BTreeSet::new(), &mut set).is_none()
            || set.is_empty()
        {
            continue;
        }
        // The rarest signature bounds the candidates.
        let Some(candidates) = set
            .keys()
            .map(|s| by_signature.get(s.as_str()).map_or(&[][..], Vec::as_slice))
            .min_by_key(|c| c.len())
        else {
            continue;
        };
        for index in candidates {
            let (ty, methods) = (types[*index], &method_sets[*index]);
            if !set.keys().all(|s| methods.contains_key(s)) {
                continue;
            }
            edge(
                found.entry(ty.declared.package).or_default(),
                &ty.declared,
                &[*key],
            );
            for (signature, targets) in &set {
                // A method promoted from an embedded interface declares nothing itself; one
                // promoted from an embedded type is credited in that type's package.
                if let (false, Some(Some(method))) = (targets.is_empty(), methods.get(signature)) {
                    edge(found.entry(method.package).or_default(), method, targets);
                }
            }
        }
    }
    found
        .into_iter()
        .map(|(package, resolved)| {
            let mut facts = FactSet::default();
            resolved.append_to(&mut facts);
            (package, facts)
        })
        .collect()
}

/// A type's method set by resolved signature: the method that provides each, or `None` for
/// one promoted from an embedded interface (or `error`).
type MethodSet<'a> = BTreeMap<String, Option<&'a Declared>>;

/// A promoted method: its resolved signature and the method providing it, if declared.
type Provided<'a> = (String, Option<&'a Declared>);

/// A method's name in its resolved signature (`Get`, or `path.get` when unexported).
fn method_name(signature: &str) -> &str {
    signature.split(' ').next().unwrap_or(signature)
}

/// What the embedded types of one depth offer, by name: each provider's (signature, method),
/// a field as `None`.
type Offered<'a> = BTreeMap<String, Vec<Option<Provided<'a>>>>;

/// Rule G14's walk over a type's embedded types, depth by depth: what each depth offers. It
/// stops before a depth holding a type the pass did not index (what that type offers, and
/// so what it makes ambiguous, is unknown), and after eight depths.
fn offered_by_depth<'a>(
    ty: &'a GoConcrete,
    concretes: &BTreeMap<StableKey, &'a GoConcrete>,
    interfaces: &BTreeMap<StableKey, &'a GoInterface>,
) -> Vec<Offered<'a>> {
    let mut depths = Vec::new();
    let mut frontier: Vec<&Embedded> = ty.embeds.iter().collect();
    let mut visited = BTreeSet::from([ty.declared.key]);
    for _ in 0..8 {
        if frontier.is_empty() {
            break;
        }
        let mut offered: Offered = BTreeMap::new();
        let mut next = Vec::new();
        for embedded in frontier {
            match embedded {
                Embedded::Unknown => return depths,
                Embedded::Error => offered
                    .entry("Error".into())
                    .or_default()
                    .push(Some((ERROR_METHOD.to_string(), None))),
                Embedded::Type(key) => {
                    if let Some(inner) = concretes.get(key) {
                        for (signature, method) in &inner.methods {
                            let name = method_name(signature).to_string();
                            offered
                                .entry(name)
                                .or_default()
                                .push(Some((signature.clone(), Some(method))));
                        }
                        for field in &inner.fields {
                            offered.entry(field.clone()).or_default().push(None);
                        }
                        if visited.insert(*key) {
                            next.extend(inner.embeds.iter());
                        }
                    } else if interfaces.contains_key(key) {
                        let mut methods = BTreeMap::new();
                        if interface_method_set(
                            *key,
                            interfaces,
                            &mut BTreeSet::new(),
                            &mut methods,
                        )
                        .is_none()
                        {
                            return depths;
                        }
                        for signature in methods.into_keys() {
                            let name = method_name(&signature).to_string();
                            offered
                                .entry(name)
                                .or_default()
                                .push(Some((signature, None)));
                        }
                    } else {
                        return depths;
                    }
                }
            }
        }
        depths.push(offered);
        frontier = next;
    }
    depths
}

/// Rule G14 for method sets: the methods a type declares, then those promoted from the
/// types it embeds, depth by depth — a name taken at a shallower depth (a method or a field)
/// hides the deeper ones, and a name two embedded types provide at one depth is nobody's.
fn full_method_set<'a>(ty: &'a GoConcrete, depths: &[Offered<'a>]) -> MethodSet<'a> {
    let mut set: MethodSet = ty
        .methods
        .iter()
        .map(|(s, d)| (s.clone(), Some(d)))
        .collect();
    let mut taken: BTreeSet<String> = ty.fields.clone();
    taken.extend(ty.methods.keys().map(|s| method_name(s).to_string()));
    for offered in depths {
        for (name, providers) in offered {
            if !taken.insert(name.clone()) {
                continue;
            }
            if let [Some((signature, method))] = providers.as_slice() {
                set.insert(signature.clone(), *method);
            }
        }
    }
    set
}

/// Rule G15: a method a type declares under the name its embedded types would promote
/// hides what the shallowest depth offering that name offers — `OVERRIDES` to each method
/// declared there (whatever its signature: Go hides by name; two embedded types offering
/// it at that depth are both hidden). A field or an interface's method there is no
/// declaration to name.
fn hidden_methods<'a>(
    ty: &'a GoConcrete,
    depths: &[Offered<'a>],
) -> Vec<(&'a Declared, &'a Declared)> {
    let mut hidden = Vec::new();
    for (signature, method) in &ty.methods {
        let name = method_name(signature);
        let Some(providers) = depths.iter().find_map(|offered| offered.get(name)) else {
            continue;
        };
        for provider in providers {
            if let Some((_, Some(promoted))) = provider {
                hidden.push((method, *promoted));
            }
        }
    }
    hidden
}

/// `IMPLEMENTS` from `implementer`, observed at its declaration's first line.
fn edge(out: &mut Resolved, implementer: &Declared, targets: &[StableKey]) {
    out.observed(
        EdgeKind::Implements,
        &implementer.repository,
        &implementer.path,
        implementer.key,
        implementer.span.start(),
        targets,
    );
}
