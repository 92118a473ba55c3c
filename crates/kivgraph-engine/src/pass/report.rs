//! What a pass says of each repository: its files, symbols and parse failures, and what each
//! analyzer made of it.

use kivgraph_facts::Language;
use serde::{Deserialize, Serialize};

use super::engine::Engine;
use super::options::AnalyzerOptions;
use super::sync::LoadedRepository;
use crate::analysis::{
    AnalyzerSettings, UnitAnalysis, configured_units, go_unit, load_groups, package_summary,
    python_unit, rust_unit, typescript_unit,
};
use crate::inputs::{Workspace, analyzers_deferred};

impl Engine {
    /// What each exact analyzer did for one repository: TypeScript per package, Python as
    /// the workspace's unit; an absent analyzer is reported where the repository has files
    /// it would have read.
    pub fn analyzer_runs(&self, repository: &str, options: &AnalyzerOptions) -> Vec<AnalyzerRun> {
        let Some(workspace) = Workspace::try_get(&self.db) else {
            return Vec::new();
        };
        let Some(input) = workspace
            .repositories(&self.db)
            .iter()
            .find(|r| r.name(&self.db) == repository)
        else {
            return Vec::new();
        };
        let has = |languages: &[Language]| {
            input.packages(&self.db).iter().any(|p| {
                p.files(&self.db)
                    .iter()
                    .any(|f| languages.contains(&f.language(&self.db)))
            })
        };
        let absent = |language: Language| AnalyzerRun {
            language,
            analyzer: None,
            units: 0,
            failures: Vec::new(),
            patched: Vec::new(),
            not_built: Vec::new(),
            absent: options
                .absent
                .iter()
                .find(|(l, _)| *l == language)
                .map(|(_, why)| why.clone()),
            deferred: false,
        };
        let mut runs = Vec::new();
        let name = input.name(&self.db);
        let indexers = AnalyzerSettings::try_get(&self.db)
            .map(|settings| settings.scip_indexers(&self.db).clone())
            .unwrap_or_default();
        let covered = |language: Language| indexers.iter().any(|i| i.covers(name, language));
        if analyzers_deferred(&self.db, name) {
            // Nothing is asked of a unit (that would run its analyzer): each language an
            // analyzer would read is owed to the next generation.
            return [
                Language::TypeScript,
                Language::Python,
                Language::Rust,
                Language::Go,
            ]
            .into_iter()
            .filter(|language| match language {
                Language::TypeScript => has(&[Language::TypeScript, Language::JavaScript]),
                _ => has(&[*language]),
            })
            .map(|language| {
                let located =
                    AnalyzerSettings::try_get(&self.db).is_some_and(|settings| match language {
                        Language::TypeScript => settings.typescript(&self.db).is_some(),
                        Language::Python => settings.python(&self.db).is_some(),
                        Language::Rust => settings.rust(&self.db).is_some(),
                        _ => settings.go(&self.db).is_some(),
                    });
                let owed = located || covered(language);
                let run = absent(language);
                AnalyzerRun {
                    absent: run.absent.filter(|_| !owed),
                    deferred: owed,
                    ..run
                }
            })
            .collect();
        }
        for (indexer, unit) in indexers.iter().zip(configured_units(&self.db, *input)) {
            for language in indexer.languages.iter().filter(|l| has(&[**l])) {
                if !indexer.covers(name, *language) {
                    continue;
                }
                runs.push(AnalyzerRun {
                    language: *language,
                    analyzer: Some(indexer.indexer.identity()),
                    units: usize::from(unit.is_some()),
                    failures: unit
                        .as_deref()
                        .and_then(|unit| unit.failure.clone())
                        .map(|why| format!("{name}: {why}"))
                        .into_iter()
                        .collect(),
                    absent: None,
                    patched: Vec::new(),
                    not_built: Vec::new(),
                    deferred: false,
                });
            }
        }
        if has(&[Language::TypeScript, Language::JavaScript])
            && !(covered(Language::TypeScript) && covered(Language::JavaScript))
        {
            let mut run = absent(Language::TypeScript);
            for package in input.packages(&self.db) {
                let Some(unit) = typescript_unit(&self.db, *package) else {
                    continue;
                };
                run.analyzer = Some(unit.analyzer.clone());
                run.absent = None;
                run.units += 1;
                if let Some(why) = &unit.failure {
                    let directory = package
                        .files(&self.db)
                        .first()
                        .map(|f| f.unit(&self.db).package_path.clone())
                        .unwrap_or_default();
                    run.failures.push(format!("{directory}: {why}"));
                }
            }
            runs.push(run);
        }
        // Python: one unit for the whole repository; Rust and Go: one per Cargo workspace
        // and per module.
        let groups = load_groups(&self.db, *input);
        let owned = |language: Language| -> Vec<(String, &UnitAnalysis)> {
            match language {
                Language::Python => python_unit(&self.db, *input)
                    .as_deref()
                    .map(|unit| ("Python unit".to_string(), unit))
                    .into_iter()
                    .collect(),
                _ => groups
                    .owners(language)
                    .filter_map(|(root, owner)| {
                        let unit = match language {
                            Language::Rust => rust_unit(&self.db, owner),
                            _ => go_unit(&self.db, owner),
                        };
                        let root = if root.is_empty() { "." } else { root };
                        unit.as_deref().map(|unit| (root.to_string(), unit))
                    })
                    .collect(),
            }
        };
        for language in [Language::Python, Language::Rust, Language::Go] {
            if !has(&[language]) || covered(language) {
                continue;
            }
            let mut run = absent(language);
            for (label, unit) in owned(language) {
                run.analyzer = Some(unit.analyzer.clone());
                run.absent = None;
                run.units += 1;
                if let Some(why) = &unit.failure {
                    run.failures.push(format!("{label}: {why}"));
                }
                for (_, path) in &unit.skipped_files {
                    run.failures.push(format!(
                        "{path}: the analyzer crashed on this file; its uses keep syntax-layer facts"
                    ));
                }
                for what in &unit.not_loaded {
                    run.failures.push(format!("WORKSPACE_NOT_LOADED {what}"));
                }
                for (package, why) in &unit.unloaded {
                    run.failures
                        .push(format!("MODULE_NOT_LOADED {package}: {why}"));
                }
                run.patched
                    .extend(unit.patched.iter().map(|p| format!("{label}: {p}")));
                if let Some((_, example)) = unit.not_built.first() {
                    run.not_built.push(format!(
                        "{label}: {} of its files no crate of the configured build compiles (a module behind an inactive feature or cfg, or one no module declares), e.g. {example}",
                        unit.not_built.len()
                    ));
                }
            }
            runs.push(run);
        }
        runs
    }

    /// What the pass did for one loaded repository: its files, declarations and recovered
    /// files, from its packages' summaries.
    pub(super) fn repository_report(&self, loaded: &LoadedRepository) -> RepositoryReport {
        let discovered = &loaded.discovered;
        let mut report = RepositoryReport {
            name: discovered.name.clone(),
            root: discovered.root.to_string_lossy().to_string(),
            skipped: discovered.skipped.clone(),
            build_output: discovered.build_output.clone(),
            ..RepositoryReport::default()
        };
        let input = Workspace::try_get(&self.db).and_then(|workspace| {
            workspace
                .repositories(&self.db)
                .iter()
                .find(|r| r.name(&self.db) == &discovered.name)
                .copied()
        });
        for package in input.iter().flat_map(|r| r.packages(&self.db)) {
            let summary = package_summary(&self.db, *package);
            report.files += summary.files;
            report.symbols += summary.symbols;
            report
                .parse_failures
                .extend(summary.parse_failures.iter().cloned());
        }
        report.parse_failures.sort();
        report
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepositoryReport {
    pub name: String,
    pub root: String,
    pub files: usize,
    pub symbols: usize,
    /// Files tree-sitter had to recover, with their issue count.
    pub parse_failures: Vec<(String, usize)>,
    /// Entries discovery declined, with why.
    pub skipped: Vec<(String, String)>,
    /// What discovery treated as the repository's own build output.
    pub build_output: Vec<kivgraph_discovery::BuildOutput>,
    /// Why the repository could not be read at all.
    pub unavailable: Option<String>,
    /// Per language with an exact analyzer, what it did for this repository.
    pub analyzers: Vec<AnalyzerRun>,
}

/// An exact analyzer's work on one repository's files of one language.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnalyzerRun {
    pub language: Language,
    /// `name version`; `None` when the analyzer is absent on this machine.
    pub analyzer: Option<String>,
    /// Units analysed (a TypeScript package directory, the repository's Python).
    pub units: usize,
    /// `unit: why` for each unit the analyzer failed on; its files keep syntax facts.
    pub failures: Vec<String>,
    /// Why the analyzer is absent, when it is.
    pub absent: Option<String>,
    /// `unit: package from repository` for each dependency a unit was loaded against a
    /// registered source for.
    pub patched: Vec<String>,
    /// `unit: how many files, e.g. one` per unit whose build leaves some of its own
    /// files out (Rust: a module behind an inactive feature or `cfg`).
    pub not_built: Vec<String>,
    /// The analyzer did not run for this generation: the repository changed, its syntax
    /// layer was published at once, and the analyzer's layer follows in the next one.
    #[serde(default)]
    pub deferred: bool,
}
