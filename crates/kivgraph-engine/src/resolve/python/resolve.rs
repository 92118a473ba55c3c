//! Python: imports bound to the module-level declaration they name, re-exports followed,
//! calls through module bindings and `self`, providers by top-level package (rules P1–P8 of
//! `docs/resolution.md`). A Python module is a mutable namespace — any importer can
//! rebind `module.name` before another reads it — so syntax proves no Python binding: every
//! edge here is a `CANDIDATE`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use kivgraph_facts::{EdgeKind, LineSpan, Reason, StableKey, SymbolFact};
use kivgraph_syntax::WHOLE_MODULE;

use crate::resolve::Resolved;
use crate::resolve::typescript::{
    CallBindings, ModuleFile, call_edges, class_members, resolve_calls,
};

/// The standard library's top-level modules (`sys.stdlib_module_names` of CPython 3.11): known,
/// never charged as a missing provider.
const PYTHON_STANDARD: &str = "__future__ _abc _aix_support _ast _asyncio _bisect _blake2 _bootsubprocess _bz2 \
    _codecs _codecs_cn _codecs_hk _codecs_iso2022 _codecs_jp _codecs_kr _codecs_tw \
    _collections _collections_abc _compat_pickle _compression _contextvars _crypt _csv \
    _ctypes _curses _curses_panel _datetime _dbm _decimal _elementtree _frozen_importlib \
    _frozen_importlib_external _functools _gdbm _hashlib _heapq _imp _io _json _locale \
    _lsprof _lzma _markupbase _md5 _msi _multibytecodec _multiprocessing _opcode \
    _operator _osx_support _overlapped _pickle _posixshmem _posixsubprocess _py_abc \
    _pydecimal _pyio _queue _random _scproxy _sha1 _sha256 _sha3 _sha512 _signal \
    _sitebuiltins _socket _sqlite3 _sre _ssl _stat _statistics _string _strptime _struct \
    _symtable _thread _threading_local _tkinter _tokenize _tracemalloc _typing _uuid \
    _warnings _weakref _weakrefset _winapi _zoneinfo abc aifc antigravity argparse array \
    ast asynchat asyncio asyncore atexit audioop base64 bdb binascii bisect builtins bz2 \
    cProfile calendar cgi cgitb chunk cmath cmd code codecs codeop collections colorsys \
    compileall concurrent configparser contextlib contextvars copy copyreg crypt csv \
    ctypes curses dataclasses datetime dbm decimal difflib dis distutils doctest email \
    encodings ensurepip enum errno faulthandler fcntl filecmp fileinput fnmatch \
    fractions ftplib functools gc genericpath getopt getpass gettext glob graphlib grp \
    gzip hashlib heapq hmac html http idlelib imaplib imghdr imp importlib inspect io \
    ipaddress itertools json keyword lib2to3 linecache locale logging lzma mailbox \
    mailcap marshal math mimetypes mmap modulefinder msilib msvcrt multiprocessing netrc \
    nis nntplib nt ntpath nturl2path numbers opcode operator optparse os ossaudiodev \
    pathlib pdb pickle pickletools pipes pkgutil platform plistlib poplib posix \
    posixpath pprint profile pstats pty pwd py_compile pyclbr pydoc pydoc_data pyexpat \
    queue quopri random re readline reprlib resource rlcompleter runpy sched secrets \
    select selectors shelve shlex shutil signal site smtpd smtplib sndhdr socket \
    socketserver spwd sqlite3 sre_compile sre_constants sre_parse ssl stat statistics \
    string stringprep struct subprocess sunau symtable sys sysconfig syslog tabnanny \
    tarfile telnetlib tempfile termios textwrap this threading time timeit tkinter token \
    tokenize tomllib trace traceback tracemalloc tty turtle turtledemo types typing \
    unicodedata unittest urllib uu uuid venv warnings wave weakref webbrowser winreg \
    winsound wsgiref xdrlib xml xmlrpc zipapp zipfile zipimport zlib zoneinfo";

/// Who provides the top-level package of an absolute import, as the registered
/// repositories say: the importer's own repository, else the one repository that holds it.
pub enum PythonProvider {
    Provided,
    Standard,
    Missing,
    Ambiguous(usize),
}

pub fn python_provider(
    top: &str,
    importer_repository: &str,
    holders: Option<&BTreeSet<String>>,
) -> PythonProvider {
    match holders {
        Some(holders) if holders.contains(importer_repository) || holders.len() == 1 => {
            PythonProvider::Provided
        }
        Some(holders) if holders.len() > 1 => PythonProvider::Ambiguous(holders.len()),
        _ if PYTHON_STANDARD.split_ascii_whitespace().any(|m| m == top) => PythonProvider::Standard,
        _ => PythonProvider::Missing,
    }
}

/// Rule P6: an absolute import whose module no indexed file answers is charged by its
/// top-level package: nobody registered it (`PACKAGE_PROVIDER_NOT_FOUND`) or several
/// repositories hold it (`AMBIGUOUS_PACKAGE_PROVIDER`), once per import statement. A package
/// that is provided but lacks the module is not charged: a namespace package or a module
/// built at install time may answer it.
fn charge_unprovided(
    placed: &ModuleFile,
    span: LineSpan,
    module: &str,
    provider: &dyn Fn(&str) -> PythonProvider,
    out: &mut Resolved,
) {
    let top = module.split('.').next().unwrap_or(module);
    match provider(top) {
        PythonProvider::Missing => out.hole(
            placed.file,
            Reason::PackageProviderNotFound,
            span,
            None,
            Some(top),
            format!("no registered repository provides the Python package {top}"),
        ),
        PythonProvider::Ambiguous(count) => out.hole(
            placed.file,
            Reason::AmbiguousPackageProvider,
            span,
            None,
            Some(top),
            format!(
                "{count} registered repositories hold the Python package {top}; none is chosen"
            ),
        ),
        PythonProvider::Provided | PythonProvider::Standard => {}
    }
}

/// The module-level names of one Python module.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct ModuleNames {
    /// Declarations by name.
    pub names: BTreeMap<String, Vec<StableKey>>,
    /// Names the module binds by a from-import, by local name: the module they come from and
    /// their name there (rule P7).
    pub imported: BTreeMap<String, (String, String)>,
}

/// The module-level names of a package's Python modules, by dotted module name.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct PackageModules {
    pub modules: BTreeMap<String, ModuleNames>,
}

/// One Python file of a package, with its dotted module name.
pub struct PythonFile<'a> {
    pub module: &'a str,
    pub placed: ModuleFile<'a>,
}

pub fn package_modules(files: &[PythonFile], symbols: &[SymbolFact]) -> PackageModules {
    let mut modules = PackageModules::default();
    for file in files {
        let placed = &file.placed;
        let declared = &symbols[placed.first_symbol..placed.first_symbol + placed.symbol_count];
        let mut names = ModuleNames::default();
        for symbol in declared.iter().filter(|s| s.parent.is_none()) {
            names
                .names
                .entry(symbol.name.clone())
                .or_default()
                .push(symbol.key);
        }
        let path = &placed.file.path;
        let is_package = path.ends_with("__init__.py") || path.ends_with("__init__.pyi");
        let imports = placed
            .sites
            .iter()
            .filter(|s| s.kind == EdgeKind::ImportsSymbol && s.name != WHOLE_MODULE);
        for site in imports {
            let Some(from) = site
                .specifier
                .as_deref()
                .and_then(|specifier| absolute_module(file.module, is_package, specifier))
            else {
                continue;
            };
            let local = site.alias.clone().unwrap_or_else(|| site.name.clone());
            names.imported.insert(local, (from, site.name.clone()));
        }
        modules.modules.insert(file.module.to_string(), names);
    }
    modules
}

/// The declarations `module` (whose names are `names`) binds as `name`: its own, or —
/// rule P7 — those of the module it imported the name from, followed through at most eight
/// imports, so a name a package re-exports is credited to its declaration.
fn bound_in(
    module: &str,
    names: &ModuleNames,
    name: &str,
    lookup: &ModuleLookup,
) -> Option<Vec<StableKey>> {
    if let Some(keys) = names.names.get(name).filter(|keys| !keys.is_empty()) {
        return Some(keys.clone());
    }
    let mut seen = vec![module.to_string()];
    let (mut module, mut name) = names.imported.get(name)?.clone();
    for _ in 0..8 {
        if seen.contains(&module) {
            return None;
        }
        let (_, modules) = lookup(&module)?;
        let names = modules.modules.get(&module)?;
        if let Some(keys) = names.names.get(&name).filter(|keys| !keys.is_empty()) {
            return Some(keys.clone());
        }
        seen.push(module);
        (module, name) = names.imported.get(&name)?.clone();
    }
    None
}

/// The dotted module a `from` specifier names: `.m` is `m` in the importer's package, each
/// further dot one package up.
pub fn absolute_module(
    importer: &str,
    importer_is_package: bool,
    specifier: &str,
) -> Option<String> {
    let dots = specifier.chars().take_while(|c| *c == '.').count();
    let rest = &specifier[dots..];
    if dots == 0 {
        return Some(rest.to_string());
    }
    let mut package: Vec<&str> = importer.split('.').collect();
    if !importer_is_package {
        package.pop();
    }
    for _ in 1..dots {
        package.pop()?;
    }
    if !rest.is_empty() {
        package.push(rest);
    }
    Some(package.join("."))
}

/// Finds the indexed module of a dotted name, with its package's module tables.
pub type ModuleLookup<'a> = dyn Fn(&str) -> Option<(StableKey, Arc<PackageModules>)> + 'a;

/// Rule P1: `from m import x` where `m` is an indexed module declaring `x` at module level is
/// a `CANDIDATE` `IMPORTS_SYMBOL` edge from the importing file to each declaration of `x`.
/// Rule P2: a relative `m` that no indexed module answers, inside a parent package that is
/// indexed, is `IMPORT_NOT_RESOLVED`. Nothing else is charged: Python binds module-level
/// names in more ways than declarations (tuple targets, conditional and loop bindings,
/// `globals()`), so a name's absence from the declarations proves nothing, and a module
/// outside a regular package may be a namespace package the index names differently.
///
/// Rule P3: a bare call `f(…)` binds what the module binds as `f` — a name a from-import
/// resolved above, or a top-level `def`/`class` of the file — always as a `CANDIDATE`:
/// Python rebinds module-level names at run time.
pub fn resolve_imports(
    files: &[PythonFile],
    symbols: &[SymbolFact],
    lookup: &ModuleLookup,
    provider: &dyn Fn(&str) -> PythonProvider,
    out: &mut Resolved,
) {
    let members = &class_members(symbols);
    for file in files {
        let mut bindings = CallBindings::new();
        // Names bound to a module, by the dotted module they denote (rule P4).
        let mut namespaces: BTreeMap<String, String> = BTreeMap::new();
        let placed = &file.placed;
        let path = &placed.file.path;
        let is_package = path.ends_with("__init__.py") || path.ends_with("__init__.pyi");
        // `import a.b` binds `a`; `import a.b as m` binds `m` to `a.b`; a star import binds
        // no name of its own.
        let modules = placed
            .sites
            .iter()
            .filter(|s| s.kind == EdgeKind::ImportsSymbol && s.name == WHOLE_MODULE);
        for site in modules {
            let (Some(module), Some(bound)) = (site.specifier.as_deref(), site.alias.as_deref())
            else {
                continue;
            };
            let first = module.split('.').next().unwrap_or(module);
            let target = if bound == first { first } else { module };
            if let Some((package, _)) = lookup(target) {
                out.depends(placed.file, package, site.span, false);
                namespaces.insert(bound.to_string(), target.to_string());
            } else {
                charge_unprovided(placed, site.span, module, provider, out);
            }
        }
        let named = placed
            .sites
            .iter()
            .filter(|s| s.kind == EdgeKind::ImportsSymbol && s.name != WHOLE_MODULE);
        for site in named {
            let Some(specifier) = site.specifier.as_deref() else {
                continue;
            };
            let Some(module) = absolute_module(file.module, is_package, specifier) else {
                continue;
            };
            // A module's names are borrowed from its package's table: a large package's
            // `__init__` binds thousands, and it is imported from again and again.
            let found = lookup(&module).filter(|(_, m)| m.modules.contains_key(&module));
            let Some((package, package_modules)) = found else {
                if !specifier.starts_with('.') {
                    charge_unprovided(placed, site.span, &module, provider, out);
                    continue;
                }
                let parent = module.rsplit_once('.').map(|(parent, _)| parent);
                if specifier.starts_with('.') && parent.is_some_and(|p| lookup(p).is_some()) {
                    out.hole(
                        placed.file,
                        Reason::ImportNotResolved,
                        site.span,
                        None,
                        Some(specifier),
                        format!(
                            "package {} has no indexed module {module}",
                            parent.unwrap_or("")
                        ),
                    );
                }
                continue;
            };
            // Which file `import` executes depends on the path at run time: a candidate.
            out.depends(placed.file, package, site.span, false);
            let names = &package_modules.modules[&module];
            if let Some(keys) = bound_in(&module, names, &site.name, lookup) {
                out.edges(
                    EdgeKind::ImportsSymbol,
                    placed.file,
                    placed.file.key,
                    site.span,
                    &keys,
                    false,
                );
                let local = site.alias.clone().unwrap_or_else(|| site.name.clone());
                bindings.insert(local, (keys, false));
            } else {
                // `from package import module` binds a submodule the package does not declare.
                let submodule = format!("{module}.{}", site.name);
                if lookup(&submodule).is_some_and(|(_, m)| m.modules.contains_key(&submodule)) {
                    let local = site.alias.clone().unwrap_or_else(|| site.name.clone());
                    namespaces.insert(local, submodule);
                }
            }
        }
        resolve_calls(placed, symbols, bindings, &|_| false, members, out);
        // Rule P4: `m.f(…)` through a name bound to an indexed module calls that module's
        // module-level `f`, as a candidate; an operand rebound locally gives no edge.
        let declared = &symbols[placed.first_symbol..placed.first_symbol + placed.symbol_count];
        for site in placed.sites.iter().filter(|s| !s.locally_bound) {
            let Some(module) = site.operand.as_ref().and_then(|m| namespaces.get(m)) else {
                continue;
            };
            let keys = lookup(module)
                .and_then(|(_, m)| bound_in(module, m.modules.get(module)?, &site.name, lookup));
            if let Some(keys) = keys {
                call_edges(placed, declared, site, &keys, false, out);
            }
        }
    }
}
