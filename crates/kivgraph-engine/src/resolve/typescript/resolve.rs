//! TypeScript and JavaScript: imports followed through re-exports to the declaration, module
//! specifiers through package manifests and `tsconfig.json`, calls, type names, values,
//! heritage and receivers bound through the module's bindings (rules T1–T11 and H1 of
//! `docs/resolution.md`). Python's resolver shares the binding machinery.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use kivgraph_discovery::{ModuleMaps, PackageEntries, join_inside};
use kivgraph_facts::{
    EdgeKind, FileFact, Language, LineSpan, Reason, StableKey, SymbolFact, SymbolKind,
};
use kivgraph_syntax::{ReferenceSite, WHOLE_MODULE};
use serde::{Deserialize, Serialize};

use crate::resolve::Resolved;

/// An import, re-export, local export clause or call of a bare name, as one file's memo
/// keeps it (TypeScript, JavaScript and Python).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModuleSite {
    /// `IMPORTS_SYMBOL`, `REEXPORTS`, `EXPORTS` or `CALLS_DIRECT`.
    pub kind: EdgeKind,
    /// The module specifier (`./cache`); `None` for a local export clause or a call.
    pub specifier: Option<String>,
    pub name: String,
    pub alias: Option<String>,
    pub span: LineSpan,
    /// A call's innermost enclosing declaration, as an index among the file's symbols.
    pub enclosing: Option<u32>,
    /// A call whose name (or operand) the enclosing top-level declaration binds locally.
    pub locally_bound: bool,
    /// A member call's operand, when it is a single identifier: `ns` in `ns.f(…)`.
    #[serde(default)]
    pub operand: Option<String>,
    /// `this.m(…)` where `this` is the enclosing class's object (rule T9), or Python's
    /// `self.m(…)` on a method's receiver parameter (rule P8).
    #[serde(default)]
    pub through_receiver: bool,
    /// Rust: the implementing type of an `impl Trait for Type` (rule R5).
    #[serde(default)]
    pub implementer: Option<String>,
    /// TypeScript/JavaScript: `C` in `new C(…).m(…)` (rule T10).
    #[serde(default)]
    pub constructed: Option<String>,
    /// Rust: a method called on a value (`x.f()`, `make().f()`). The syntax cannot know the
    /// value's type, so the resolver binds nothing here; the site is kept for an exact
    /// analyzer, whose target it classes as a call.
    #[serde(default)]
    pub through_value: bool,
}

pub fn module_sites(sites: Vec<ReferenceSite>) -> Vec<ModuleSite> {
    sites
        .into_iter()
        .filter(|s| match s.kind {
            EdgeKind::ImportsSymbol | EdgeKind::Reexports | EdgeKind::Exports => true,
            // Calls, type uses and value uses where the scopes were read: `f(…)`, `new C(…)`,
            // `T`, `g(f)`, and `ns.f(…)`, `ns.T`, `g(ns.f)` through a single identifier.
            EdgeKind::CallsDirect
            | EdgeKind::TypeUses
            | EdgeKind::Extends
            | EdgeKind::Implements
            | EdgeKind::PassesAsCallback
            | EdgeKind::AssignsFunction
            | EdgeKind::ReturnsFunction => {
                s.locally_bound.is_some()
                    && (s.operand_type.is_some()
                        || s.qualifier.as_deref().is_none_or(is_js_identifier))
            }
            _ => false,
        })
        .map(|s| {
            let call = s.kind != EdgeKind::ImportsSymbol
                && s.kind != EdgeKind::Reexports
                && s.kind != EdgeKind::Exports;
            ModuleSite {
                kind: s.kind,
                specifier: if call { None } else { s.qualifier.clone() },
                operand: if call { s.qualifier } else { None },
                name: s.name,
                alias: s.alias,
                span: s.span,
                enclosing: s.enclosing,
                locally_bound: s.locally_bound.unwrap_or(false),
                through_receiver: s.through_receiver,
                implementer: None,
                constructed: s.operand_type,
                through_value: false,
            }
        })
        .collect()
}

/// What one module-level name of a file denotes, for its calls: the declarations and
/// whether the binding is proven.
pub type CallBindings = BTreeMap<String, (Vec<StableKey>, bool)>;

/// Adds the file's own top-level declarations to `bindings` (`certain` says whether the
/// language forbids rebinding them), then binds each bare call of the file to what its name
/// denotes there. A name bound twice (an import and a declaration) is only a candidate; a
/// call whose enclosing declaration binds the name locally is only a candidate.
pub fn resolve_calls(
    file: &ModuleFile,
    symbols: &[SymbolFact],
    mut bindings: CallBindings,
    declared_certain: &dyn Fn(&SymbolFact) -> bool,
    members: &ClassMembers,
    out: &mut Resolved,
) {
    let declared = &symbols[file.first_symbol..file.first_symbol + file.symbol_count];
    for symbol in declared.iter().filter(|s| s.parent.is_none()) {
        let certain = declared_certain(symbol);
        match bindings.get_mut(&symbol.name) {
            Some((keys, proven)) => {
                keys.push(symbol.key);
                *proven = false;
            }
            None => {
                bindings.insert(symbol.name.clone(), (vec![symbol.key], certain));
            }
        }
    }
    for site in file
        .sites
        .iter()
        .filter(|s| s.operand.is_none() && is_use(s.kind))
    {
        // A value use the enclosing declaration binds is a local, not a reference.
        if is_value_use(site.kind) && site.locally_bound {
            continue;
        }
        let Some((keys, certain)) = bindings.get(&site.name) else {
            continue;
        };
        call_edges(file, declared, site, keys, *certain, out);
    }
    resolve_this_calls(file, declared, &bindings, members, out);
    resolve_constructed_calls(file, declared, &bindings, members, out);
}

/// Rule T10: `new C(…).m(…)` — the object is a `C`, whatever `C` is bound to — calls what
/// the class declares as `m`, when `C` binds a class of this package (T4): certain in
/// TypeScript where the binding is, a candidate in JavaScript. Rule T11 is the same for
/// `x.m(…)` where `x` is bound once in the enclosing declaration with a declared class or
/// interface — `(x: C)`, `let x: C`, `const x = new C()` —: TypeScript's types are static,
/// so the checker resolves the call to `C`'s member whatever object `x` later holds.
fn resolve_constructed_calls(
    file: &ModuleFile,
    declared: &[SymbolFact],
    bindings: &CallBindings,
    members: &ClassMembers,
    out: &mut Resolved,
) {
    let typescript = file.file.language == Language::TypeScript;
    for site in file
        .sites
        .iter()
        .filter(|s| s.kind == EdgeKind::CallsDirect)
    {
        let Some((classes, certain)) = site.constructed.as_ref().and_then(|c| bindings.get(c))
        else {
            continue;
        };
        let keys: Vec<StableKey> = classes
            .iter()
            .filter_map(|class| members.get(&(*class, site.name.clone())))
            .flatten()
            .copied()
            .collect();
        if keys.is_empty() {
            continue;
        }
        let certain = *certain && classes.len() == 1 && typescript;
        // `x` itself is the local binding the rule reads; whether `C` is rebound was checked
        // where the type was read.
        let typed_binding = site.operand.as_deref().is_some_and(is_js_identifier);
        let certain = certain && (typed_binding || !site.locally_bound);
        holder_edges(file, declared, site, &keys, certain, out);
    }
}

/// A single JavaScript identifier (`x`, `_y`, `$z`), not a member chain or an expression.
fn is_js_identifier(text: &str) -> bool {
    text.chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

/// The members of a package's classes, by (class, name): methods and properties.
pub type ClassMembers = BTreeMap<(StableKey, String), Vec<StableKey>>;

pub fn class_members(symbols: &[SymbolFact]) -> ClassMembers {
    let mut members = ClassMembers::new();
    for symbol in symbols
        .iter()
        .filter(|s| matches!(s.kind, SymbolKind::Method | SymbolKind::Property))
    {
        if let Some(class) = symbol.parent {
            members
                .entry((class, symbol.name.clone()))
                .or_default()
                .push(symbol.key);
        }
    }
    members
}

/// Rule T9: `this.m(…)` in a member of class `C` (an arrow function keeps that `this`; any
/// other function binds its own, and is left alone) calls what `C` declares as `m`, else what
/// its direct base class — bound like a type name (H1) and declared in this package —
/// declares: the declaration a type checker resolves the call to, whichever override runs.
/// Certain in TypeScript where the class declares `m` or the base binding is certain;
/// JavaScript, whose members are plain properties, only gives candidates. Rule P8 is the same
/// for Python's `self.m(…)` (the receiver parameter of a method), always as a candidate: an
/// instance attribute can hide the method.
fn resolve_this_calls(
    file: &ModuleFile,
    declared: &[SymbolFact],
    bindings: &CallBindings,
    members: &ClassMembers,
    out: &mut Resolved,
) {
    let typescript = file.file.language == Language::TypeScript;
    let calls = file
        .sites
        .iter()
        .filter(|s| s.through_receiver && s.kind == EdgeKind::CallsDirect && s.operand.is_some());
    for site in calls {
        let Some(class_index) = site
            .enclosing
            .and_then(|i| declared.get(i as usize))
            .and_then(|holder| holder.parent)
            .and_then(|class| declared.iter().position(|d| d.key == class))
        else {
            continue;
        };
        let class = &declared[class_index];
        let member = |holder: StableKey| members.get(&(holder, site.name.clone()));
        let found = member(class.key)
            .map(|keys| (keys.clone(), true))
            .or_else(|| {
                let base = file.sites.iter().find(|s| {
                    s.kind == EdgeKind::Extends
                        && s.operand.is_none()
                        && s.enclosing == Some(class_index as u32)
                })?;
                let (bases, certain) = bindings.get(&base.name)?;
                let keys: Vec<StableKey> = bases
                    .iter()
                    .filter_map(|b| member(*b))
                    .flatten()
                    .copied()
                    .collect();
                (!keys.is_empty()).then_some((keys, *certain && bases.len() == 1))
            });
        if let Some((keys, certain)) = found {
            call_edges(file, declared, site, &keys, certain && typescript, out);
        }
    }
}

/// A call, a type name, a class's base or implemented interface, or a name used as a value:
/// the sites bindings resolve.
fn is_use(kind: EdgeKind) -> bool {
    matches!(
        kind,
        EdgeKind::CallsDirect | EdgeKind::TypeUses | EdgeKind::Extends | EdgeKind::Implements
    ) || is_value_use(kind)
}

/// A name passed, assigned or returned as a value.
fn is_value_use(kind: EdgeKind) -> bool {
    matches!(
        kind,
        EdgeKind::PassesAsCallback | EdgeKind::AssignsFunction | EdgeKind::ReturnsFunction
    )
}

/// The edges of one call or type use from its holder (the innermost enclosing declaration, or the
/// file's module scope) to what it binds: certain only where the binding is, the name is not
/// rebound locally, and one declaration answers.
pub fn call_edges(
    file: &ModuleFile,
    declared: &[SymbolFact],
    site: &ModuleSite,
    keys: &[StableKey],
    certain: bool,
    out: &mut Resolved,
) {
    holder_edges(
        file,
        declared,
        site,
        keys,
        certain && !site.locally_bound,
        out,
    );
}

/// [`call_edges`] where the caller has already decided what a local binding means.
fn holder_edges(
    file: &ModuleFile,
    declared: &[SymbolFact],
    site: &ModuleSite,
    keys: &[StableKey],
    certain: bool,
    out: &mut Resolved,
) {
    let holder = site.enclosing.map(|index| &declared[index as usize]);
    let source = holder.map_or(file.file.key, |h| h.key);
    // The declarations' kinds are not at hand here: a value use is a `REFERENCES`. A base
    // named by a class the pass does not declare (one inside a function or a block) is a
    // use of the type by whatever holds it; a Rust trait extends its supertraits.
    let kind = if is_value_use(site.kind) {
        EdgeKind::References
    } else if matches!(site.kind, EdgeKind::Extends | EdgeKind::Implements)
        && !holder.is_some_and(|h| {
            matches!(
                h.kind,
                SymbolKind::Class | SymbolKind::Interface | SymbolKind::Trait
            )
        })
    {
        EdgeKind::TypeUses
    } else {
        site.kind
    };
    out.edges(
        kind,
        file.file,
        source,
        site.span,
        keys,
        certain && keys.len() == 1,
    );
}

/// What a module exports under one name.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Exported {
    /// Declared in the module. `certain` is false when an export clause also renames the
    /// declaration, so the syntax cannot tell whether the original name is exported too.
    /// Several keys where declarations merge (an interface and a namespace of one name,
    /// overloads): the import binds them all.
    Declared { keys: Vec<StableKey>, certain: bool },
    /// `export { name as … } from "specifier"`.
    From { specifier: String, name: String },
    /// A namespace (`export * as ns from "…"`) or a binding the syntax cannot trace (an
    /// exported default or namespace import): exported, but not a declaration to credit.
    Namespace,
}

/// The exports of one module file.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct FileExports {
    pub names: BTreeMap<String, Exported>,
    /// `export * from "specifier"`.
    pub star: Vec<String>,
    /// Part of the module's declaration level could not be read, so a name's absence from
    /// `names` proves nothing.
    pub unreadable: bool,
}

/// The export tables of one package's module files, by repository-relative path: all an
/// importer's resolution reads of it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PackageExports {
    pub files: BTreeMap<String, FileExports>,
}

/// One module file of a package and where its symbols sit in the package's symbol table.
pub struct ModuleFile<'a> {
    pub file: &'a FileFact,
    pub first_symbol: usize,
    pub symbol_count: usize,
    pub sites: &'a [ModuleSite],
}

pub fn package_exports(files: &[ModuleFile], symbols: &[SymbolFact]) -> PackageExports {
    let mut exports = PackageExports::default();
    for file in files {
        let declared = &symbols[file.first_symbol..file.first_symbol + file.symbol_count];
        let top_level = |name: &str| {
            let keys: Vec<StableKey> = declared
                .iter()
                .filter(|s| s.parent.is_none() && s.name == name)
                .map(|s| s.key)
                .collect();
            (!keys.is_empty()).then_some(keys)
        };
        // The module's own import bindings, by the local name they bind.
        let imported = |local: &str| {
            file.sites.iter().find(|s| {
                s.kind == EdgeKind::ImportsSymbol
                    && s.alias.as_deref().unwrap_or(s.name.as_str()) == local
            })
        };
        let renamed: Vec<&str> = file
            .sites
            .iter()
            .filter(|s| {
                s.kind == EdgeKind::Exports && s.alias.as_deref().is_some_and(|a| a != s.name)
            })
            .map(|s| s.name.as_str())
            .collect();
        let mut table = FileExports {
            unreadable: file
                .file
                .parse_issues
                .iter()
                .any(|issue| !issue.hidden_names.is_empty()),
            ..FileExports::default()
        };
        for symbol in declared.iter().filter(|s| s.parent.is_none() && s.exported) {
            let certain = !renamed.contains(&symbol.name.as_str());
            let entry =
                table
                    .names
                    .entry(symbol.name.clone())
                    .or_insert_with(|| Exported::Declared {
                        keys: Vec::new(),
                        certain,
                    });
            if let Exported::Declared { keys, .. } = entry {
                keys.push(symbol.key);
            }
        }
        for site in file.sites {
            let exported_as = site.alias.clone().unwrap_or_else(|| site.name.clone());
            match (site.kind, &site.specifier) {
                (EdgeKind::Exports, None) => {
                    let exported = match (top_level(&site.name), imported(&site.name)) {
                        (Some(keys), _) => Exported::Declared {
                            keys,
                            certain: true,
                        },
                        // `import { a } from "./x"; export { a }`: a re-export, followed.
                        (None, Some(import))
                            if import.name != "default" && import.name != WHOLE_MODULE =>
                        {
                            Exported::From {
                                specifier: import.specifier.clone().unwrap_or_default(),
                                name: import.name.clone(),
                            }
                        }
                        _ => Exported::Namespace,
                    };
                    table.names.insert(exported_as, exported);
                }
                (EdgeKind::Reexports, Some(specifier)) if site.name == WHOLE_MODULE => {
                    match &site.alias {
                        Some(namespace) => {
                            table.names.insert(namespace.clone(), Exported::Namespace);
                        }
                        None => table.star.push(specifier.clone()),
                    }
                }
                (EdgeKind::Reexports, Some(specifier)) => {
                    table.names.insert(
                        exported_as,
                        Exported::From {
                            specifier: specifier.clone(),
                            name: site.name.clone(),
                        },
                    );
                }
                _ => {}
            }
        }
        exports.files.insert(file.file.path.clone(), table);
    }
    exports
}

/// Where a specifier lands, and that module's exports.
pub struct Module {
    /// The repository holding the module, which its own relative specifiers are read in.
    pub repository: String,
    pub path: String,
    /// The package holding the module.
    pub package: StableKey,
    pub exports: Arc<PackageExports>,
    /// Reached as a directory's `index` file.
    pub directory: bool,
    /// The specifier names this file beyond doubt: a relative path does; a package name
    /// names whatever the importer's installation resolves, which the registered provider
    /// only plausibly is.
    pub certain: bool,
}

/// Finds the module a specifier names, from the importing file's repository and path, as
/// TypeScript's and Node's resolution would among the indexed files: a relative one in the
/// importer's repository, a package one in the registered package of that name.
pub type ModuleLookup<'a> = dyn Fn(&str, &str, &str) -> Option<Module> + 'a;

/// Who provides a package specifier (`zod`, `fp-ts/es6/Eq`, `@scope/name/sub`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NpmProvider {
    /// A Node.js built-in module: not indexed, never charged.
    Builtin,
    /// No registered `package.json` carries the name.
    Missing(String),
    /// Several do; none is chosen.
    Ambiguous(String, usize),
    /// One does: its repository, its directory, and the path the specifier asks for below it.
    Found {
        repository: String,
        root: String,
        subpath: String,
    },
}

const NODE_BUILTINS: &[&str] = &[
    "assert",
    "async_hooks",
    "buffer",
    "child_process",
    "cluster",
    "console",
    "constants",
    "crypto",
    "dgram",
    "diagnostics_channel",
    "dns",
    "domain",
    "events",
    "fs",
    "http",
    "http2",
    "https",
    "inspector",
    "module",
    "net",
    "os",
    "path",
    "perf_hooks",
    "process",
    "punycode",
    "querystring",
    "readline",
    "repl",
    "stream",
    "string_decoder",
    "sys",
    "test",
    "timers",
    "tls",
    "trace_events",
    "tty",
    "url",
    "util",
    "v8",
    "vm",
    "wasi",
    "worker_threads",
    "zlib",
];

/// A package specifier's package name and the subpath below it.
fn npm_package(specifier: &str) -> (&str, &str) {
    let cut = if specifier.starts_with('@') {
        specifier
            .match_indices('/')
            .nth(1)
            .map_or(specifier.len(), |(i, _)| i)
    } else {
        specifier.find('/').unwrap_or(specifier.len())
    };
    let (name, rest) = specifier.split_at(cut);
    (name, rest.trim_start_matches('/'))
}

/// Rule T5: a package specifier names the registered package whose `package.json` carries
/// that name, when exactly one does.
pub fn npm_provider(
    specifier: &str,
    providers: &BTreeMap<String, Vec<(String, String)>>,
) -> NpmProvider {
    let (name, subpath) = npm_package(specifier);
    if specifier.starts_with("node:") || NODE_BUILTINS.contains(&name) {
        return NpmProvider::Builtin;
    }
    match providers.get(name).map(Vec::as_slice) {
        None | Some([]) => NpmProvider::Missing(name.to_string()),
        Some([(repository, root)]) => NpmProvider::Found {
            repository: repository.clone(),
            root: root.clone(),
            subpath: subpath.to_string(),
        },
        Some(several) => NpmProvider::Ambiguous(name.to_string(), several.len()),
    }
}

/// The paths a package specifier may name below its provider's directory, as the provider's
/// `package.json` says (rule T5): an `exports` map decides alone — a subpath it does not
/// list is not exported —, without one `.` is `types`, `typings`, `module` or `main` before
/// an `index` file, and any subpath names a file of the package.
pub fn package_entry_paths(
    importer: &str,
    root: &str,
    subpath: &str,
    entries: Option<&PackageEntries>,
) -> Vec<(String, bool)> {
    let inside = |target: &str| {
        let file = importer.rsplit('/').next().unwrap_or(importer);
        candidate_paths(&join_path(root, file), target)
    };
    let targets = match entries.map(|e| (&e.exports, &e.main)) {
        Some((Some(exports), _)) => {
            let wanted = if subpath.is_empty() {
                ".".to_string()
            } else {
                format!("./{subpath}")
            };
            exported_targets(exports, &wanted).unwrap_or_default()
        }
        Some((None, main)) if subpath.is_empty() => main.clone(),
        _ => Vec::new(),
    };
    let mut paths: Vec<(String, bool)> = targets.iter().flat_map(|t| inside(t)).collect();
    if entries.is_none_or(|e| e.exports.is_none()) {
        paths.extend(package_candidate_paths(importer, root, subpath));
    }
    let mut seen = BTreeSet::new();
    paths.retain(|(path, _)| seen.insert(path.clone()));
    paths
}

fn join_path(directory: &str, rest: &str) -> String {
    if directory.is_empty() {
        rest.to_string()
    } else {
        format!("{directory}/{rest}")
    }
}

/// The targets an `exports` map gives `wanted` (`.` or `./sub/path`): an exact key, else
/// the `*` pattern with the longest prefix (its match substituted), else a `./dir/` folder.
fn exported_targets(exports: &[(String, Vec<String>)], wanted: &str) -> Option<Vec<String>> {
    if let Some((_, targets)) = exports.iter().find(|(key, _)| key == wanted) {
        return Some(targets.clone());
    }
    let pattern = exports
        .iter()
        .filter_map(|(key, targets)| {
            let (prefix, suffix) = key.split_once('*')?;
            let matched = wanted.strip_prefix(prefix)?.strip_suffix(suffix)?;
            let substituted = targets.iter().map(|t| t.replace('*', matched)).collect();
            Some((prefix.len(), substituted))
        })
        .max_by_key(|(length, _)| *length)
        .map(|(_, targets)| targets);
    pattern.or_else(|| {
        exports
            .iter()
            .filter(|(key, _)| key.ends_with('/'))
            .find_map(|(key, targets)| {
                let rest = wanted.strip_prefix(key.as_str())?;
                Some(targets.iter().map(|t| format!("{t}{rest}")).collect())
            })
    })
}

/// Rule T8: the paths a bare specifier names through the nearest `tsconfig.json` above the
/// importer that maps anything: its `paths` (exact, or the `*` pattern with the longest
/// prefix), then `baseUrl`.
pub fn mapped_paths(importer: &str, specifier: &str, maps: &ModuleMaps) -> Vec<(String, bool)> {
    let file = importer.rsplit('/').next().unwrap_or(importer);
    let directory = importer.rsplit_once('/').map_or("", |(dir, _)| dir);
    let Some(mapping) = maps.path_mapping(directory) else {
        return Vec::new();
    };
    let mut paths = Vec::new();
    let targets = exported_targets(&mapping.paths, specifier).unwrap_or_default();
    for target in targets {
        paths.extend(candidate_paths(file, &target));
    }
    if let Some(base) = &mapping.base_url
        && let Some(under) = join_inside(base, specifier)
    {
        paths.extend(candidate_paths(file, &under));
    }
    paths
}

/// The paths a package specifier may name below its provider's directory, tried in the order
/// the importer's language prefers.
pub fn package_candidate_paths(importer: &str, root: &str, subpath: &str) -> Vec<(String, bool)> {
    let file = importer.rsplit('/').next().unwrap_or(importer);
    let inside = if root.is_empty() {
        file.to_string()
    } else {
        format!("{root}/{file}")
    };
    let specifier = if subpath.is_empty() {
        ".".to_string()
    } else {
        format!("./{subpath}")
    };
    candidate_paths(&inside, &specifier)
}

/// The paths a relative specifier may name, in the order resolution tries them: a TypeScript
/// importer prefers the sources and declarations behind an emitted `.js` name, a JavaScript
/// importer the JavaScript file itself. Each path says whether it is a directory's `index`
/// file (whose `package.json` may point the types elsewhere).
pub fn candidate_paths(importer: &str, specifier: &str) -> Vec<(String, bool)> {
    const TYPESCRIPT: [&str; 7] = [".ts", ".tsx", ".d.ts", ".mts", ".d.mts", ".cts", ".d.cts"];
    const JAVASCRIPT: [&str; 4] = [".js", ".jsx", ".mjs", ".cjs"];
    const EMITTED: [(&str, &[&str]); 4] = [
        (".js", &[".ts", ".tsx", ".d.ts"]),
        (".mjs", &[".mts", ".d.mts"]),
        (".cjs", &[".cts", ".d.cts"]),
        (".jsx", &[".tsx"]),
    ];
    let directory = importer.rsplit_once('/').map_or("", |(dir, _)| dir);
    let mut segments: Vec<&str> = directory.split('/').filter(|s| !s.is_empty()).collect();
    for part in specifier.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                segments.pop();
            }
            part => segments.push(part),
        }
    }
    let base = segments.join("/");
    let with = |stem: &str, extensions: &[&str]| -> Vec<String> {
        extensions
            .iter()
            .map(|ext| format!("{stem}{ext}"))
            .collect()
    };
    let typescript_importer = TYPESCRIPT.iter().any(|ext| importer.ends_with(ext));
    let (first, second) = if typescript_importer {
        (&TYPESCRIPT[..], &JAVASCRIPT[..])
    } else {
        (&JAVASCRIPT[..], &TYPESCRIPT[..])
    };
    let mut paths = Vec::new();
    if typescript_importer {
        for (emitted, sources) in EMITTED {
            if let Some(stem) = base.strip_suffix(emitted) {
                paths.extend(with(stem, sources));
            }
        }
    }
    paths.push(base.clone());
    paths.extend(with(&base, first));
    paths.extend(with(&base, second));
    let files = paths.into_iter().map(|path| (path, false));
    let index = format!("{base}/index");
    let indexes = with(&index, first).into_iter().chain(with(&index, second));
    files.chain(indexes.map(|path| (path, true))).collect()
}

pub fn is_relative(specifier: &str) -> bool {
    specifier.starts_with("./")
        || specifier.starts_with("../")
        || specifier == "."
        || specifier == ".."
}

/// How following one imported name ended.
pub enum Found {
    /// The declarations, whether the chain to them is certain, and the module declaring them.
    Declaration(Vec<StableKey>, bool, String),
    /// Not exported by the module or anything it re-exports, and no unreadable region of
    /// theirs could hide it.
    Missing,
    /// A namespace, a module outside the index, several `export *` candidates or a cycle:
    /// nothing to credit and nothing provably missing.
    Undecided,
}

/// Follows `name` from `module` through re-exports to its declaration (identity is credited
/// to the declaring symbol, never to a barrel).
pub fn follow(module: &Module, name: &str, lookup: &ModuleLookup, depth: usize) -> Found {
    if depth > 16 {
        return Found::Undecided;
    }
    let Some(exports) = module.exports.files.get(&module.path) else {
        return Found::Undecided;
    };
    // A binding reached through a package name is only as certain as that name's provider.
    let through = |found: Found| match found {
        Found::Declaration(keys, certain, path) => {
            Found::Declaration(keys, certain && module.certain, path)
        }
        other => other,
    };
    match exports.names.get(name) {
        Some(Exported::Declared { keys, certain }) => {
            return through(Found::Declaration(
                keys.clone(),
                *certain,
                module.path.clone(),
            ));
        }
        Some(Exported::Namespace) => return Found::Undecided,
        Some(Exported::From { specifier, name }) => {
            return match lookup(&module.repository, &module.path, specifier) {
                Some(next) => through(follow(&next, name, lookup, depth + 1)),
                None => Found::Undecided,
            };
        }
        // A directory's `package.json` may point its types elsewhere than the index file.
        None if exports.unreadable || module.directory => return Found::Undecided,
        None => {}
    }
    let mut found = Vec::new();
    for specifier in &exports.star {
        match lookup(&module.repository, &module.path, specifier)
            .map(|next| follow(&next, name, lookup, depth + 1))
        {
            Some(Found::Declaration(keys, certain, path)) => found.push((keys, certain, path)),
            Some(Found::Missing) => {}
            Some(Found::Undecided) | None => return Found::Undecided,
        }
    }
    match found.as_slice() {
        [] => Found::Missing,
        [(keys, certain, path)] => {
            through(Found::Declaration(keys.clone(), *certain, path.clone()))
        }
        _ => Found::Undecided,
    }
}

/// Rules T1–T3: a named import of a relative module binds the declaration the module (or a
/// module it re-exports, followed) exports under that name — ES modules are static, so the
/// binding is `STRUCTURAL_CERTAIN`. A relative specifier that names no indexed file is
/// `MODULE_NOT_RESOLVED`; a name the module provably does not export is `EXPORT_NOT_FOUND`.
///
/// Rule T4: a bare call `f(…)` (or `new F(…)`) binds what the module binds as `f`: a named
/// import resolved above, or a top-level declaration of the file. ES module bindings are
/// static and TypeScript forbids assigning to an import, a function or a class, so the edge
/// is `STRUCTURAL_CERTAIN` unless the enclosing declaration binds `f` locally, `f` is bound
/// twice, or the declaration is a variable or a JavaScript function (reassignable).
pub fn resolve_modules(
    files: &[ModuleFile],
    symbols: &[SymbolFact],
    lookup: &ModuleLookup,
    npm: &dyn Fn(&str) -> NpmProvider,
    out: &mut Resolved,
) {
    let members = class_members(symbols);
    for file in files {
        let mut bindings = CallBindings::new();
        let mut namespaces: BTreeMap<String, Module> = BTreeMap::new();
        for site in file
            .sites
            .iter()
            .filter(|s| s.kind == EdgeKind::ImportsSymbol)
        {
            let Some(specifier) = site.specifier.as_deref() else {
                continue;
            };
            let Some(module) = lookup(&file.file.repository, &file.file.path, specifier) else {
                if is_relative(specifier) {
                    out.hole(
                        file.file,
                        Reason::ModuleNotResolved,
                        site.span,
                        None,
                        Some(specifier),
                        format!("no indexed file of this repository is the module {specifier}"),
                    );
                    continue;
                }
                // Rule T5: charged once per import of a package nobody (or several) provides.
                // A found provider whose `exports` map does not list the subpath, or whose
                // file is not indexed, leaves the import unbound and uncharged.
                match npm(specifier) {
                    NpmProvider::Missing(name) => out.hole(
                        file.file,
                        Reason::PackageProviderNotFound,
                        site.span,
                        None,
                        Some(&name),
                        format!("no registered package.json is named {name}"),
                    ),
                    NpmProvider::Ambiguous(name, count) => out.hole(
                        file.file,
                        Reason::AmbiguousPackageProvider,
                        site.span,
                        None,
                        Some(&name),
                        format!("{count} registered packages are named {name}; none is chosen"),
                    ),
                    NpmProvider::Builtin | NpmProvider::Found { .. } => {}
                }
                continue;
            };
            // ES modules bind the specifier statically: the importer depends on the package
            // holding the module whatever the import names.
            out.depends(file.file, module.package, site.span, module.certain);
            // A namespace import binds the module itself: its members are followed at the
            // calls through it (rule T6). A default import names no declaration the syntax
            // can identify.
            if site.name == WHOLE_MODULE {
                if let Some(namespace) = &site.alias {
                    namespaces.insert(namespace.clone(), module);
                }
                continue;
            }
            if site.name == "default" {
                continue;
            }
            match follow(&module, &site.name, lookup, 0) {
                Found::Declaration(keys, certain, _) => {
                    out.edges(
                        EdgeKind::ImportsSymbol,
                        file.file,
                        file.file.key,
                        site.span,
                        &keys,
                        certain,
                    );
                    let local = site.alias.clone().unwrap_or_else(|| site.name.clone());
                    bindings.insert(local, (keys, certain));
                }
                // From another repository, a provider definition no unit published.
                Found::Missing => out.hole(
                    file.file,
                    if module.repository == file.file.repository {
                        Reason::ExportNotFound
                    } else {
                        Reason::ProviderDefinitionNotIndexed
                    },
                    site.span,
                    Some(&site.name),
                    Some(specifier),
                    format!(
                        "{} exports no `{}`, directly or through its re-exports",
                        module.path, site.name
                    ),
                ),
                Found::Undecided => {}
            }
        }
        let typescript = file.file.language == Language::TypeScript;
        // A `let` or `var` holding a function can be reassigned; `const`, a function, class,
        // enum or namespace declaration cannot, in TypeScript.
        let reassignable = |symbol: &SymbolFact| {
            symbol.signature.starts_with("let ") || symbol.signature.starts_with("var ")
        };
        let declared_certain = |symbol: &SymbolFact| {
            typescript
                && !reassignable(symbol)
                && matches!(
                    symbol.kind,
                    SymbolKind::Function
                        | SymbolKind::Class
                        | SymbolKind::Enum
                        | SymbolKind::Namespace
                        | SymbolKind::Interface
                        | SymbolKind::TypeAlias
                )
        };
        resolve_calls(file, symbols, bindings, &declared_certain, &members, out);
        // Rule T6: `ns.f(…)` through a namespace import calls what the module exports as `f`.
        let declared = &symbols[file.first_symbol..file.first_symbol + file.symbol_count];
        for site in file.sites {
            // An operand the enclosing declaration rebinds is some other object: no edge.
            let Some(module) = site
                .operand
                .as_ref()
                .filter(|_| !site.locally_bound)
                .and_then(|ns| namespaces.get(ns))
            else {
                continue;
            };
            if let Found::Declaration(keys, certain, _) = follow(module, &site.name, lookup, 0) {
                call_edges(file, declared, site, &keys, certain, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::candidate_paths;

    #[test]
    fn typescript_importers_look_behind_emitted_names_and_javascript_ones_do_not() {
        let from_ts = candidate_paths("src/app.ts", "./util/x.js");
        assert_eq!(from_ts[0], ("src/util/x.ts".to_string(), false));
        assert_eq!(from_ts[2], ("src/util/x.d.ts".to_string(), false));
        assert_eq!(from_ts[3], ("src/util/x.js".to_string(), false));
        let from_js = candidate_paths("lib/a/app.js", "../b");
        assert_eq!(from_js[0], ("lib/b".to_string(), false));
        assert_eq!(from_js[1], ("lib/b.js".to_string(), false));
        assert!(from_js.contains(&("lib/b/index.js".to_string(), true)));
        assert!(
            !from_js
                .iter()
                .any(|(path, index)| *index != path.contains("/index."))
        );
    }
}
