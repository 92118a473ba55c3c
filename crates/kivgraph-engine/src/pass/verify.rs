//! `fact_cache: verify`: the pass recomputed from nothing beside the cached one, and the
//! first file or unit whose facts disagree.

use std::collections::HashMap;

use kivgraph_facts::Language;

use super::engine::{Engine, EngineError};
use super::options::AnalyzerOptions;
use super::sync::LoadedRepository;
use crate::analysis::{
    UnitAnalysis, go_unit, load_groups, python_unit, rust_unit, typescript_unit,
};
use crate::files::{FileFacts, file_facts};
use crate::inputs::Workspace;
use crate::merge::WorkspaceFacts;

impl Engine {
    /// Every file of the workspace with its facts, in merge order.
    pub fn all_file_facts(&self) -> Vec<(String, String, FileFacts)> {
        let Some(workspace) = Workspace::try_get(&self.db) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for repository in workspace.repositories(&self.db) {
            for file in self.repository_files(*repository) {
                out.push((
                    repository.name(&self.db).clone(),
                    file.path(&self.db).clone(),
                    FileFacts::clone(file_facts(&self.db, file)),
                ));
            }
        }
        out
    }

    /// Every analyzer unit's answer, by repository and unit name: a TypeScript unit per
    /// package directory, a Python unit per repository.
    pub fn all_unit_analyses(&self) -> Vec<(String, String, UnitAnalysis)> {
        let Some(workspace) = Workspace::try_get(&self.db) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for repository in workspace.repositories(&self.db) {
            for package in repository.packages(&self.db) {
                if let Some(unit) = typescript_unit(&self.db, *package) {
                    let directory = package
                        .files(&self.db)
                        .first()
                        .map(|f| f.unit(&self.db).package_path.clone())
                        .filter(|d| !d.is_empty())
                        .unwrap_or_else(|| ".".into());
                    out.push((
                        repository.name(&self.db).clone(),
                        format!("TypeScript unit {directory}"),
                        UnitAnalysis::clone(unit),
                    ));
                }
            }
            let name = repository.name(&self.db);
            if let Some(unit) = python_unit(&self.db, *repository) {
                out.push((
                    name.clone(),
                    "Python unit".into(),
                    UnitAnalysis::clone(unit),
                ));
            }
            let groups = load_groups(&self.db, *repository);
            for (language, label) in [(Language::Rust, "Rust unit"), (Language::Go, "Go unit")] {
                for (root, owner) in groups.owners(language) {
                    let unit = match language {
                        Language::Rust => rust_unit(&self.db, owner),
                        _ => go_unit(&self.db, owner),
                    };
                    if let Some(unit) = unit {
                        let root = if root.is_empty() { "." } else { root };
                        out.push((
                            name.clone(),
                            format!("{label} {root}"),
                            UnitAnalysis::clone(unit),
                        ));
                    }
                }
            }
        }
        out
    }
}

/// The first file whose facts differ between two engines, with what differs.
fn first_disagreement(cached: &Engine, fresh: &Engine) -> Option<(String, String, String)> {
    let cached_facts = cached.all_file_facts();
    let fresh_facts: HashMap<(String, String), FileFacts> = fresh
        .all_file_facts()
        .into_iter()
        .map(|(r, p, f)| ((r, p), f))
        .collect();
    for (repository, path, facts) in cached_facts {
        let Some(expected) = fresh_facts.get(&(repository.clone(), path.clone())) else {
            return Some((
                repository,
                path,
                "the file is absent from the fresh analysis".into(),
            ));
        };
        if facts != *expected {
            let detail = if facts.symbols.len() != expected.symbols.len() {
                format!(
                    "{} cached symbols, {} analysed",
                    facts.symbols.len(),
                    expected.symbols.len()
                )
            } else if let Some((a, b)) = facts
                .symbols
                .iter()
                .zip(&expected.symbols)
                .find(|(a, b)| a != b)
            {
                format!(
                    "cached {} {:?} differs from analysed {} {:?}",
                    a.declaration.qualified_name,
                    a.declaration.span,
                    b.declaration.qualified_name,
                    b.declaration.span
                )
            } else {
                "file or package facts differ".to_string()
            };
            return Some((repository, path, detail));
        }
    }
    None
}

/// `fact_cache: verify`: the cached engine's answers against a fresh engine's, file by file,
/// unit by unit, then whole; the first disagreement fails the pass.
pub(super) fn verify_against_fresh(
    engine: &Engine,
    workspace: &WorkspaceFacts,
    loaded: &[LoadedRepository],
    analyzers: &AnalyzerOptions,
) -> Result<(), EngineError> {
    let mut fresh = Engine::new();
    fresh.update(loaded);
    fresh.set_analyzers(analyzers);
    let fresh_facts = fresh.facts(&|_| {}).to_fact_set();
    if let Some((repository, path, detail)) = first_disagreement(engine, &fresh) {
        return Err(EngineError::VerifyMismatch {
            repository,
            path,
            detail,
        });
    }
    let fresh_units: HashMap<(String, String), UnitAnalysis> = fresh
        .all_unit_analyses()
        .into_iter()
        .map(|(repository, unit, analysis)| ((repository, unit), analysis))
        .collect();
    for (repository, unit, cached) in engine.all_unit_analyses() {
        let analysed = fresh_units.get(&(repository.clone(), unit.clone()));
        if analysed != Some(&cached) {
            let detail = match analysed {
                None => "the unit is absent from the fresh analysis".to_string(),
                Some(analysed) => format!(
                    "{} cached definitions and {} uses, {} and {} analysed",
                    cached.definitions.len(),
                    cached.references.len(),
                    analysed.definitions.len(),
                    analysed.references.len()
                ),
            };
            return Err(EngineError::VerifyMismatch {
                repository,
                path: unit,
                detail,
            });
        }
    }
    if fresh_facts != workspace.to_fact_set() {
        return Err(EngineError::VerifyMismatch {
            repository: "*".into(),
            path: "*".into(),
            detail: "the merged fact sets differ".into(),
        });
    }
    Ok(())
}
