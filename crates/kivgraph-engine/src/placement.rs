//! A package's files placed within its merged declarations: where each file's symbols
//! start, and its syntax sites in the shape the resolvers and the layering read.

use kivgraph_facts::{FactSet, FileFact, Language};

use crate::database::Db;
use crate::files::FileFacts;
use crate::files::file_facts;
use crate::inputs::PackageInput;
use crate::inputs::{FileInput, Workspace};
use crate::resolve::typescript::ModuleFile;

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

pub(crate) fn placed_module_files<'db>(
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

pub(crate) fn module_file<'db>(
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

/// Every file of the given languages in the workspace, with its repository and package.
pub(crate) fn workspace_files<'db>(
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
pub(crate) fn placed_files<'db>(
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
