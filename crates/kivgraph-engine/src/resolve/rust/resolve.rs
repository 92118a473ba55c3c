//! Rust: `use` declarations, calls and type names bound through the crate's own module tree
//! (rules R1–R3 of `docs/resolution.md`) and, through `Cargo.toml` dependency names, through
//! another registered crate's (rule R4). The standard library, macros and method calls on
//! values are left unbound: the identifier census accounts for them.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use kivgraph_facts::{EdgeKind, Reason, StableKey, SymbolFact, SymbolKind};
use kivgraph_syntax::{ReferenceSite, WHOLE_MODULE};

use crate::resolve::Resolved;
use crate::resolve::typescript::{ModuleFile, ModuleSite, call_edges};

/// Keeps what the resolver reads of a Rust file: `use` trees, and calls and type names that
/// are bare or reached through a path (`a::b::f`), with their scopes read. Calls on values
/// (`x.f()`) need the value's type: they are kept for an exact analyzer to class, marked so
/// that the resolver leaves them alone.
pub fn rust_sites(sites: Vec<ReferenceSite>) -> Vec<ModuleSite> {
    let on_value = |s: &ReferenceSite| {
        s.kind == EdgeKind::CallsDirect
            && s.qualifier.is_some()
            && !s.through_path
            && !s.through_receiver
    };
    sites
        .into_iter()
        .filter(|s| match s.kind {
            EdgeKind::ImportsSymbol => true,
            EdgeKind::CallsDirect
            | EdgeKind::TypeUses
            | EdgeKind::Implements
            | EdgeKind::Extends => {
                on_value(s)
                    || (s.locally_bound.is_some()
                        && (s.qualifier.is_none() || s.through_path || s.through_receiver))
            }
            _ => false,
        })
        .map(|s| {
            let through_value = on_value(&s);
            let import = s.kind == EdgeKind::ImportsSymbol;
            ModuleSite {
                kind: s.kind,
                specifier: if import { s.qualifier.clone() } else { None },
                operand: if import { None } else { s.qualifier },
                name: s.name,
                alias: s.alias,
                span: s.span,
                enclosing: s.enclosing,
                locally_bound: s.locally_bound.unwrap_or(false),
                through_receiver: s.through_receiver,
                implementer: s.implementer,
                constructed: None,
                through_value,
            }
        })
        .collect()
}

/// One Rust file of a crate, with the module path its items live in (`""` for the root).
pub struct RustFile<'a> {
    pub placed: ModuleFile<'a>,
    pub module: &'a str,
}

/// The crate's items by (path of what holds them, name): modules, types, functions, and the
/// members of types and traits (`Parser::parse` is held by `parser::Parser`).
type Items = BTreeMap<(String, String), Vec<(StableKey, SymbolKind)>>;

/// What another crate's paths read of a crate: its items, and the names each of its modules
/// binds by `use` (a re-export, `pub use ser::Serialize`, is one).
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct CrateNames {
    /// The crate's package, which a `use` of it depends on.
    package: Option<StableKey>,
    items: Items,
    uses: BTreeMap<String, BTreeMap<String, Vec<String>>>,
}

pub fn crate_names(files: &[RustFile], symbols: &[SymbolFact]) -> CrateNames {
    let mut uses: BTreeMap<String, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    for file in files {
        uses.entry(file.module.to_string())
            .or_default()
            .extend(Uses::of(file.placed.sites).names);
    }
    CrateNames {
        package: symbols.first().map(|s| s.package),
        items: items(symbols),
        uses,
    }
}

impl CrateNames {
    /// The item a path names inside this crate, from `module`: through its items, and through
    /// the `use` bindings of each module on the way. A path into yet another crate is not
    /// followed.
    fn path(&self, module: &str, segments: &[String], depth: usize) -> Option<String> {
        if depth > 8 {
            return None;
        }
        let (first, rest) = segments.split_first()?;
        let mut base = match first.as_str() {
            "crate" => String::new(),
            "self" => module.to_string(),
            "super" => parent(module).to_string(),
            _ => self.step(module, first, depth)?,
        };
        for segment in rest {
            base = match segment.as_str() {
                "super" => parent(&base).to_string(),
                "self" => base,
                _ => self.step(&base, segment, depth)?,
            };
        }
        Some(base)
    }

    fn step(&self, module: &str, name: &str, depth: usize) -> Option<String> {
        if self
            .items
            .contains_key(&(module.to_string(), name.to_string()))
        {
            return Some(join(module, name));
        }
        let path = self.uses.get(module)?.get(name)?;
        self.path(module, path, depth + 1)
    }
}

/// What the first segment of a path names when the crate does not declare it.
pub enum Extern {
    /// Not a dependency of the crate: a prelude name, a macro's, or unknown.
    NotDependency,
    /// `std`, `core`, `alloc`, `proc_macro`, `test`: known, not indexed, never charged.
    Standard,
    /// A dependency no registered crate provides, by package name.
    Missing(String),
    /// A dependency several registered crates provide and no version requirement decides.
    Ambiguous(String, usize),
    Found(Arc<CrateNames>),
}

pub const RUST_STANDARD: [&str; 5] = ["std", "core", "alloc", "proc_macro", "test"];

/// Whether a Cargo version requirement accepts a version: `^`/bare (the default), `~` and
/// `=` on their leading comparator; any other form, or an unknown version, accepts.
pub fn version_accepts(requirement: Option<&str>, version: Option<&str>) -> bool {
    let (Some(requirement), Some(version)) = (requirement, version) else {
        return true;
    };
    let requirement = requirement.split(',').next().unwrap_or("").trim();
    let numbers = |text: &str| -> Vec<u64> {
        text.split(['.', '-', '+'])
            .take(3)
            .map_while(|part| part.trim().parse().ok())
            .collect()
    };
    let have = numbers(version);
    let (operator, wanted) = match requirement.chars().next() {
        Some('^') => ('^', numbers(&requirement[1..])),
        Some('~') => ('~', numbers(&requirement[1..])),
        Some('=') => ('=', numbers(&requirement[1..])),
        Some(c) if c.is_ascii_digit() => ('^', numbers(requirement)),
        _ => return true,
    };
    if wanted.is_empty() {
        return true;
    }
    let fixed = match operator {
        '=' => wanted.len(),
        '~' => wanted.len().min(2),
        // Caret: up to and including the first non-zero component.
        _ => wanted
            .iter()
            .position(|n| *n != 0)
            .map_or(wanted.len(), |i| i + 1)
            .max(1)
            .min(wanted.len()),
    };
    have.len() >= fixed && have[..fixed] == wanted[..fixed]
}

/// Where a path leads: an item path of this crate or of a dependency.
enum Place {
    Local(String),
    Foreign(Arc<CrateNames>, String),
}

impl Place {
    /// The item `name` held by this one (a trait's method, a type's associated item).
    fn member(&self, name: &str) -> Place {
        match self {
            Place::Local(item) => Place::Local(join(item, name)),
            Place::Foreign(names, item) => Place::Foreign(names.clone(), join(item, name)),
        }
    }
}

fn items(symbols: &[SymbolFact]) -> Items {
    let mut items: Items = BTreeMap::new();
    for symbol in symbols {
        let (holder, name) = symbol
            .qualified_name
            .rsplit_once("::")
            .unwrap_or(("", &symbol.qualified_name));
        items
            .entry((holder.to_string(), name.to_string()))
            .or_default()
            .push((symbol.key, symbol.kind));
    }
    items
}

fn join(base: &str, name: &str) -> String {
    if base.is_empty() {
        name.to_string()
    } else {
        format!("{base}::{name}")
    }
}

fn parent(module: &str) -> &str {
    module.rsplit_once("::").map_or("", |(parent, _)| parent)
}

/// What one file's `use` declarations bind: a name to the path it stands for, and the paths
/// its glob imports open.
#[derive(Default)]
struct Uses {
    names: BTreeMap<String, Vec<String>>,
    globs: Vec<Vec<String>>,
}

impl Uses {
    fn of(sites: &[ModuleSite]) -> Self {
        let mut uses = Uses::default();
        for site in sites.iter().filter(|s| s.kind == EdgeKind::ImportsSymbol) {
            let mut path: Vec<String> = site
                .specifier
                .as_deref()
                .map(|p| p.split("::").map(str::to_string).collect())
                .unwrap_or_default();
            if site.name == WHOLE_MODULE {
                uses.globs.push(path);
                continue;
            }
            // `use a::b::{self}` binds `b`.
            let local = if site.name == "self" {
                match path.last() {
                    Some(last) => site.alias.clone().unwrap_or_else(|| last.clone()),
                    None => continue,
                }
            } else {
                path.push(site.name.clone());
                site.alias.clone().unwrap_or_else(|| site.name.clone())
            };
            uses.names.insert(local, path);
        }
        uses
    }
}

/// Resolves paths in one module of the crate.
struct Scope<'a> {
    items: &'a Items,
    uses: &'a Uses,
    module: &'a str,
    externs: &'a dyn Fn(&str) -> Extern,
    /// The modules the file's glob imports open, resolved once (without globs, so that one
    /// glob never searches through another).
    globs: Vec<String>,
}

impl<'a> Scope<'a> {
    fn new(
        items: &'a Items,
        uses: &'a Uses,
        module: &'a str,
        externs: &'a dyn Fn(&str) -> Extern,
    ) -> Self {
        let mut scope = Scope {
            items,
            uses,
            module,
            externs,
            globs: Vec::new(),
        };
        scope.globs = uses
            .globs
            .iter()
            .filter_map(|glob| match scope.path(glob, 0) {
                Some((Place::Local(opened), _)) => Some(opened),
                _ => None,
            })
            .collect();
        scope
    }
}

impl Scope<'_> {
    /// The item a module-relative path denotes, and whether every step was explicit and
    /// inside the crate (a glob import is not; a dependency's item is only plausibly the one
    /// compiled). `None` for a path that names nothing a registered crate declares.
    fn path(&self, segments: &[String], depth: usize) -> Option<(Place, bool)> {
        if depth > 8 {
            return None;
        }
        // `::serde::Serialize` names the crate `serde` whatever the module declares.
        let (segments, absolute) = match segments.split_first() {
            Some((first, rest)) if first.is_empty() => (rest, true),
            _ => (segments, false),
        };
        let (first, rest) = segments.split_first()?;
        let (mut base, mut certain) = match first.as_str() {
            "crate" => (String::new(), true),
            "self" => (self.module.to_string(), true),
            "super" => (parent(self.module).to_string(), true),
            _ if absolute => return self.foreign(first, rest),
            _ => {
                if self
                    .items
                    .contains_key(&(self.module.to_string(), first.clone()))
                {
                    (join(self.module, first), true)
                } else if let Some(path) = self.uses.names.get(first) {
                    match self.path(path, depth + 1)? {
                        (Place::Local(base), certain) => (base, certain),
                        (Place::Foreign(names, base), _) => {
                            let item = names.path(&base, &rest_with_self(rest), 0)?;
                            return Some((Place::Foreign(names, item), false));
                        }
                    }
                } else if let Some(glob) = self
                    .globs
                    .iter()
                    .find(|opened| self.items.contains_key(&((*opened).clone(), first.clone())))
                {
                    (join(glob, first), false)
                } else {
                    return self.foreign(first, rest);
                }
            }
        };
        for segment in rest {
            match segment.as_str() {
                "super" => base = parent(&base).to_string(),
                "self" => {}
                _ => {
                    if !self.items.contains_key(&(base.clone(), segment.clone())) {
                        return None;
                    }
                    base = join(&base, segment);
                }
            }
        }
        certain &= !base.is_empty();
        Some((Place::Local(base), certain))
    }

    /// Rule R4: a path whose first segment is a dependency's name, walked through the crate
    /// that provides it.
    fn foreign(&self, name: &str, rest: &[String]) -> Option<(Place, bool)> {
        let Extern::Found(names) = (self.externs)(name) else {
            return None;
        };
        let item = if rest.is_empty() {
            String::new()
        } else {
            names.path("", rest, 0)?
        };
        Some((Place::Foreign(names, item), false))
    }

    /// The declarations an item path names.
    fn declarations<'p>(&'p self, place: &'p Place) -> Option<&'p Vec<(StableKey, SymbolKind)>> {
        let (items, item) = match place {
            Place::Local(item) => (self.items, item),
            Place::Foreign(names, item) => (&names.items, item),
        };
        let (holder, name) = item.rsplit_once("::").unwrap_or(("", item));
        items.get(&(holder.to_string(), name.to_string()))
    }
}

/// The rest of a path after a `use` binding that named a module, read from that module.
fn rest_with_self(rest: &[String]) -> Vec<String> {
    std::iter::once("self".to_string())
        .chain(rest.iter().cloned())
        .collect()
}

/// Rules R1–R3. R1: a `use` names an item through the crate's module tree — `crate::`,
/// `self::`, `super::`, a module or item declared in the current module, or a name another
/// `use` binds — and is a `STRUCTURAL_CERTAIN` `IMPORTS_SYMBOL` edge from the file to the
/// declaration. R2: a bare call or type name binds the item the current module declares of
/// that name, else the name a `use` binds, else (a candidate) one a glob import opens.
/// R3: a path (`a::b::f`, `Type::new`) is walked the same way, one segment at a time. Rust
/// rejects two items of one name in one namespace, so one declaration is certain; several
/// (`#[cfg]` twins) are candidates, as is a name the enclosing function rebinds.
pub fn resolve_rust(
    files: &[RustFile],
    symbols: &[SymbolFact],
    externs: &dyn Fn(&str) -> Extern,
    out: &mut Resolved,
) {
    let items = items(symbols);
    let by_key: HashMap<StableKey, &SymbolFact> = symbols.iter().map(|s| (s.key, s)).collect();
    let modules: BTreeSet<&str> = symbols
        .iter()
        .filter(|s| s.kind == SymbolKind::Module)
        .map(|s| s.qualified_name.as_str())
        .collect();
    for file in files {
        let placed = &file.placed;
        let declared = &symbols[placed.first_symbol..placed.first_symbol + placed.symbol_count];
        let uses = Uses::of(placed.sites);
        let mut scopes: BTreeMap<&str, Scope> = BTreeMap::new();
        for site in placed.sites.iter().filter(|s| !s.through_value) {
            // Items inside an inline `mod` live in that module: the longest module path
            // that holds the enclosing declaration.
            let module = site
                .enclosing
                .and_then(|i| declared.get(i as usize))
                .and_then(|symbol| inline_module(&symbol.qualified_name, file.module, &modules))
                .unwrap_or(file.module);
            let scope = scopes
                .entry(module)
                .or_insert_with(|| Scope::new(&items, &uses, module, externs));
            if site.kind == EdgeKind::ImportsSymbol {
                charge_unprovided(placed, scope, site, out);
            }
            if site.through_receiver {
                self_call(placed, declared, (&by_key, &items), site, out);
                continue;
            }
            let mut segments: Vec<String> = match site.kind {
                EdgeKind::ImportsSymbol => match &site.specifier {
                    Some(path) if site.name != WHOLE_MODULE && site.name != "self" => {
                        path.split("::").map(str::to_string).collect()
                    }
                    _ => continue,
                },
                _ => site
                    .operand
                    .as_deref()
                    .map(|p| p.split("::").map(str::to_string).collect())
                    .unwrap_or_default(),
            };
            segments.push(site.name.clone());
            // A bare name is a one-segment path: the module's own item, then the `use`
            // bindings, then the globs.
            let Some((place, certain)) = scope.path(&segments, 0) else {
                continue;
            };
            let Some(keys) = scope.declarations(&place) else {
                continue;
            };
            let keys: Vec<StableKey> = keys
                .iter()
                .filter(|(_, kind)| fits(site.kind, *kind))
                .map(|(key, _)| *key)
                .collect();
            if keys.is_empty() {
                continue;
            }
            if site.kind == EdgeKind::Implements {
                implements(scope, placed, declared, site, (&place, &keys, certain), out);
            } else if site.kind == EdgeKind::ImportsSymbol {
                out.edges(
                    EdgeKind::ImportsSymbol,
                    placed.file,
                    placed.file.key,
                    site.span,
                    &keys,
                    certain && keys.len() == 1,
                );
                // Rule D1: a `use` resolved into another crate is a dependency on it.
                if let Place::Foreign(names, _) = &place
                    && let Some(provider) = names.package
                {
                    out.depends(placed.file, provider, site.span, false);
                }
            } else {
                call_edges(placed, declared, site, &keys, certain, out);
            }
        }
    }
}

/// Rule R6: `self.m()` in a method of an `impl` block calls the method `m` of the impl's
/// type: an inherent one wins over every trait's (method lookup tries inherent methods
/// first at each step), so one inherent `m` is certain; without one, the type's trait
/// methods of that name the crate declares are candidates.
fn self_call(
    placed: &ModuleFile,
    declared: &[SymbolFact],
    (symbols, items): (&HashMap<StableKey, &SymbolFact>, &Items),
    site: &ModuleSite,
    out: &mut Resolved,
) {
    let Some(self_type) = site
        .enclosing
        .and_then(|i| declared.get(i as usize))
        .and_then(|method| method.parent)
        .and_then(|parent| symbols.get(&parent))
    else {
        return;
    };
    let Some(found) = items.get(&(self_type.qualified_name.clone(), site.name.clone())) else {
        return;
    };
    let methods: Vec<&SymbolFact> = found
        .iter()
        .filter(|(_, kind)| fits(EdgeKind::CallsDirect, *kind))
        .filter_map(|(key, _)| symbols.get(key).copied())
        .collect();
    let inherent: Vec<StableKey> = methods
        .iter()
        .filter(|m| m.key_discriminator == "none")
        .map(|m| m.key)
        .collect();
    if inherent.is_empty() {
        let keys: Vec<StableKey> = methods.iter().map(|m| m.key).collect();
        if !keys.is_empty() {
            call_edges(placed, declared, site, &keys, false, out);
        }
    } else {
        call_edges(placed, declared, site, &inherent, true, out);
    }
}

/// Rule R5: `impl Trait for Type` — `IMPLEMENTS` from the type to the trait, and from each
/// method of the block (keyed with the trait's name, see `stable-keys.md`) to the trait's
/// method of that name; as certain as both paths are.
fn implements(
    scope: &Scope,
    placed: &ModuleFile,
    declared: &[SymbolFact],
    site: &ModuleSite,
    (trait_place, traits, trait_certain): (&Place, &[StableKey], bool),
    out: &mut Resolved,
) {
    let Some(implementer) = &site.implementer else {
        return;
    };
    let Some((place, type_certain)) = scope.path(std::slice::from_ref(implementer), 0) else {
        return;
    };
    let Some(types) = scope.declarations(&place) else {
        return;
    };
    let types: Vec<StableKey> = types
        .iter()
        .filter(|(_, kind)| fits(EdgeKind::TypeUses, *kind))
        .map(|(key, _)| *key)
        .collect();
    let [implementing] = types.as_slice() else {
        return;
    };
    let certain = trait_certain && type_certain && traits.len() == 1;
    let span = site.span;
    out.edges(
        EdgeKind::Implements,
        placed.file,
        *implementing,
        span,
        traits,
        certain,
    );
    if traits.len() != 1 {
        return;
    }
    let methods = declared
        .iter()
        .filter(|s| s.parent == Some(*implementing) && s.key_discriminator == site.name);
    for method in methods {
        let provided = trait_place.member(&method.name);
        let Some(targets) = scope.declarations(&provided) else {
            continue;
        };
        let targets: Vec<StableKey> = targets
            .iter()
            .filter(|(_, kind)| *kind == SymbolKind::TraitMethod)
            .map(|(key, _)| *key)
            .collect();
        if !targets.is_empty() {
            let span = method.span.start();
            out.edges(
                EdgeKind::Implements,
                placed.file,
                method.key,
                span,
                &targets,
                certain,
            );
        }
    }
}

/// Rule R4's holes: a `use` whose first segment is a dependency no registered crate (or
/// several) provides, and that the module does not declare or bind itself.
fn charge_unprovided(placed: &ModuleFile, scope: &Scope, site: &ModuleSite, out: &mut Resolved) {
    let Some(first) = site
        .specifier
        .as_deref()
        .and_then(|path| path.split("::").find(|s| !s.is_empty()))
    else {
        return;
    };
    let local = scope
        .items
        .contains_key(&(scope.module.to_string(), first.to_string()))
        || scope.uses.names.contains_key(first);
    if local {
        return;
    }
    match (scope.externs)(first) {
        Extern::Missing(package) => out.hole(
            placed.file,
            Reason::CrateProviderNotFound,
            site.span,
            None,
            Some(&package),
            format!("no registered crate is the dependency {package}"),
        ),
        Extern::Ambiguous(package, count) => out.hole(
            placed.file,
            Reason::AmbiguousCrateProvider,
            site.span,
            None,
            Some(&package),
            format!(
                "{count} registered crates are named {package} and the version requirement picks none of them"
            ),
        ),
        Extern::NotDependency | Extern::Standard | Extern::Found(_) => {}
    }
}

/// The inline module (below the file's own) whose path is the longest prefix of a
/// declaration's qualified name, if any.
fn inline_module<'a>(
    qualified_name: &'a str,
    file_module: &str,
    modules: &BTreeSet<&str>,
) -> Option<&'a str> {
    let mut holder = qualified_name;
    while let Some((prefix, _)) = holder.rsplit_once("::") {
        if prefix == file_module || prefix.len() < file_module.len() {
            return None;
        }
        if modules.contains(prefix) {
            return Some(prefix);
        }
        holder = prefix;
    }
    None
}

/// Whether a declaration can be what a site of this kind names: a type name names a type, a
/// call a function, a constructor or a tuple struct; an import anything.
fn fits(site: EdgeKind, declaration: SymbolKind) -> bool {
    match site {
        EdgeKind::TypeUses => matches!(
            declaration,
            SymbolKind::Struct
                | SymbolKind::Enum
                | SymbolKind::Union
                | SymbolKind::Trait
                | SymbolKind::TypeAlias
                | SymbolKind::AssociatedType
        ),
        EdgeKind::Implements | EdgeKind::Extends => declaration == SymbolKind::Trait,
        EdgeKind::CallsDirect => matches!(
            declaration,
            SymbolKind::Function
                | SymbolKind::Method
                | SymbolKind::StaticMethod
                | SymbolKind::TraitMethod
                | SymbolKind::Struct
                | SymbolKind::EnumMember
        ),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::version_accepts;

    #[test]
    fn cargo_requirements_pick_compatible_versions() {
        let accepts = |requirement, version| version_accepts(Some(requirement), Some(version));
        assert!(accepts("1", "1.0.219"));
        assert!(accepts("^1.2", "1.9.0"));
        assert!(!accepts("1", "2.0.1"));
        assert!(accepts("0.4.19", "0.4.22"));
        assert!(!accepts("0.4", "0.5.0"));
        assert!(accepts("~1.2", "1.2.9"));
        assert!(!accepts("~1.2", "1.3.0"));
        assert!(accepts("=0.1.0", "0.1.0"));
        assert!(!accepts("=0.1.0", "0.1.1"));
        // Ranges and wildcards are not narrowed.
        assert!(accepts(">=1, <3", "2.0.0"));
        assert!(accepts("*", "9.9.9"));
        assert!(version_accepts(None, Some("1.0.0")));
    }
}
