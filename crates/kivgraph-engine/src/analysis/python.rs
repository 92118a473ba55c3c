//! Python units: a repository's Python checked by pyright (through `scip-python`), every
//! registered import root ahead of installed copies.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;

use kivgraph_analyzers::PythonUnit;
use kivgraph_facts::{FactSet, Fingerprint, Language, SymbolFact};

use super::recorded::recorded_units;
use super::scip_join::unit_analysis;
use super::settings::{AnalyzerSettings, configured_covers};
use super::unit::{UnitAnalysis, failed};
use crate::database::Db;
use crate::inputs::{FileInput, RepositoryInput, Workspace};
use crate::packages::package_symbols;
use crate::stored::Stored;

/// A repository's Python checked by pyright, in a project where every registered
/// repository with Python is importable. `None` when the repository has no Python, or when
/// no Python analyzer is installed. A crash of the analyzer costs this repository's unit
/// only.
#[salsa::tracked(returns(ref), persist, lru = 0)]
pub fn python_unit(db: &dyn Db, repository: RepositoryInput) -> Option<Stored<UnitAnalysis>> {
    if let Some(recorded) = recorded_units(db, repository.name(db)) {
        return recorded.python.clone().map(Stored::new);
    }
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

/// This module's share of [`crate::persisted::attach_restored_queries`].
pub(super) fn attach_restored_queries(db: &mut dyn Db) {
    python_unit::set_lru_capacity(db, 0);
}
