//! Rust: `use` declarations, calls and type names bound through the crate's own module tree
//! (rules R1–R3 of `docs/resolution.md`). Paths into other crates, the standard library,
//! macros and method calls on values are left unbound: the identifier census accounts for
//! them.

use std::collections::{BTreeMap, BTreeSet};

use kivgraph_facts::{EdgeKind, StableKey, SymbolFact, SymbolKind};
use kivgraph_syntax::{ReferenceSite, WHOLE_MODULE};

use super::Resolved;
use super::typescript::{ModuleFile, ModuleSite, call_edges};

/// Keeps what the resolver reads of a Rust file: `use` trees, and calls and type names that
/// are bare or reached through a path (`a::b::f`), with their scopes read. Calls on values
/// (`x.f()`) need the value's type and are not kept.
pub fn rust_sites(sites: Vec<ReferenceSite>) -> Vec<ModuleSite> {
    sites
        .into_iter()
        .filter(|s| match s.kind {
            EdgeKind::ImportsSymbol => true,
            EdgeKind::CallsDirect | EdgeKind::TypeUses => {
                s.locally_bound.is_some() && (s.qualifier.is_none() || s.through_path)
            }
            _ => false,
        })
        .map(|s| {
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
    /// The modules the file's glob imports open, resolved once (without globs, so that one
    /// glob never searches through another).
    globs: Vec<String>,
}

impl<'a> Scope<'a> {
    fn new(items: &'a Items, uses: &'a Uses, module: &'a str) -> Self {
        let mut scope = Scope {
            items,
            uses,
            module,
            globs: Vec::new(),
        };
        scope.globs = uses
            .globs
            .iter()
            .filter_map(|glob| scope.path(glob, 0).map(|(opened, _)| opened))
            .collect();
        scope
    }
}

impl Scope<'_> {
    /// The item path a module-relative path denotes, and whether every step was explicit
    /// (a glob import is not). `None` for a path that leaves the crate (another crate, the
    /// standard library) or names nothing the crate declares.
    fn path(&self, segments: &[String], depth: usize) -> Option<(String, bool)> {
        if depth > 8 {
            return None;
        }
        let (first, rest) = segments.split_first()?;
        let (mut base, mut certain) = match first.as_str() {
            "crate" => (String::new(), true),
            "self" => (self.module.to_string(), true),
            "super" => (parent(self.module).to_string(), true),
            _ => {
                if self
                    .items
                    .contains_key(&(self.module.to_string(), first.clone()))
                {
                    (join(self.module, first), true)
                } else if let Some(path) = self.uses.names.get(first) {
                    self.path(path, depth + 1)?
                } else {
                    let glob = self.globs.iter().find(|opened| {
                        self.items.contains_key(&((*opened).clone(), first.clone()))
                    })?;
                    (join(glob, first), false)
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
        Some((base, certain))
    }

    /// The declarations an item path names.
    fn declarations(&self, item: &str) -> Option<&Vec<(StableKey, SymbolKind)>> {
        let (holder, name) = item.rsplit_once("::").unwrap_or(("", item));
        self.items.get(&(holder.to_string(), name.to_string()))
    }
}

/// Rules R1–R3. R1: a `use` names an item through the crate's module tree — `crate::`,
/// `self::`, `super::`, a module or item declared in the current module, or a name another
/// `use` binds — and is a `STRUCTURAL_CERTAIN` `IMPORTS_SYMBOL` edge from the file to the
/// declaration. R2: a bare call or type name binds the item the current module declares of
/// that name, else the name a `use` binds, else (a candidate) one a glob import opens.
/// R3: a path (`a::b::f`, `Type::new`) is walked the same way, one segment at a time. Rust
/// rejects two items of one name in one namespace, so one declaration is certain; several
/// (`#[cfg]` twins) are candidates, as is a name the enclosing function rebinds.
pub fn resolve_rust(files: &[RustFile], symbols: &[SymbolFact], out: &mut Resolved) {
    let items = items(symbols);
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
        for site in placed.sites {
            // Items inside an inline `mod` live in that module: the longest module path
            // that holds the enclosing declaration.
            let module = site
                .enclosing
                .and_then(|i| declared.get(i as usize))
                .and_then(|symbol| inline_module(&symbol.qualified_name, file.module, &modules))
                .unwrap_or(file.module);
            let scope = scopes
                .entry(module)
                .or_insert_with(|| Scope::new(&items, &uses, module));
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
            let Some((item, certain)) = scope.path(&segments, 0) else {
                continue;
            };
            let Some(keys) = scope.declarations(&item) else {
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
            if site.kind == EdgeKind::ImportsSymbol {
                out.edges(
                    EdgeKind::ImportsSymbol,
                    placed.file,
                    placed.file.key,
                    site.span,
                    &keys,
                    certain && keys.len() == 1,
                );
            } else {
                call_edges(placed, declared, site, &keys, certain, out);
            }
        }
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
