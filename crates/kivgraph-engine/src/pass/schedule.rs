//! Running the exact analyzers' units: heaviest first, each language within its own budget
//! of loads at once, on as many workers as the pass allows.

use std::sync::atomic::{AtomicUsize, Ordering};

use kivgraph_facts::Language;
use rayon::prelude::*;

use super::engine::Engine;
use super::options::Progress;
use crate::analysis::{
    AnalyzerSettings, configured_units, go_unit, load_groups, python_unit, rust_unit,
    typescript_unit,
};
use crate::database::EngineDatabase;
use crate::inputs::{PackageInput, RepositoryInput, Workspace, analyzers_deferred};

impl Engine {
    /// Runs the analyzer units that need it, heaviest first, each language within its own
    /// budget (TypeScript/JavaScript and Python `maximum_workers`, Rust and Go their loads at
    /// once); merging then reads their memos in unit order.
    /// Runs every analyzer unit, each budget on its own threads, and `meanwhile` on this
    /// thread while they run.
    pub(super) fn analyze_units(
        &self,
        workspace: Workspace,
        progress: &(dyn Fn(Progress) + Sync),
        meanwhile: impl FnOnce(),
    ) {
        let Some(settings) = AnalyzerSettings::try_get(&self.db) else {
            meanwhile();
            return;
        };
        let typescript = settings.typescript(&self.db).is_some();
        let python = settings.python(&self.db).is_some();
        let rust = settings.rust(&self.db).is_some();
        let go = settings.go(&self.db).is_some();
        let bytes = |packages: &[PackageInput], languages: &[Language]| -> u64 {
            packages
                .iter()
                .flat_map(|p| p.files(&self.db))
                .filter(|f| languages.contains(&f.language(&self.db)))
                .map(|f| f.byte_len(&self.db))
                .sum()
        };
        // Per budget: the modules' (TypeScript, Python), the Cargo workspaces', the Go modules'.
        let mut budgets: [(usize, Vec<(u64, Unit)>); 3] = [
            (self.maximum_workers, Vec::new()),
            (self.loads_at_once.rust_workspaces, Vec::new()),
            (self.loads_at_once.go_modules, Vec::new()),
        ];
        for repository in workspace.repositories(&self.db) {
            // A deferred repository's units run in the pass after this one.
            if analyzers_deferred(&self.db, repository.name(&self.db)) {
                continue;
            }
            let packages = repository.packages(&self.db);
            for package in packages {
                let modules = bytes(
                    std::slice::from_ref(package),
                    &[Language::TypeScript, Language::JavaScript],
                );
                if typescript && modules > 0 {
                    budgets[0].1.push((modules, Unit::Typescript(*package)));
                }
            }
            let python_bytes = bytes(packages, &[Language::Python]);
            if python && python_bytes > 0 {
                budgets[0].1.push((python_bytes, Unit::Python(*repository)));
            }
            let name = repository.name(&self.db);
            let configured: Vec<Language> = Language::ALL
                .iter()
                .copied()
                .filter(|l| {
                    settings
                        .scip_indexers(&self.db)
                        .iter()
                        .any(|i| i.covers(name, *l))
                })
                .collect();
            let configured_bytes = bytes(packages, &configured);
            if configured_bytes > 0 {
                budgets[0]
                    .1
                    .push((configured_bytes, Unit::Configured(*repository)));
            }
            let groups = load_groups(&self.db, *repository);
            for (language, enabled, budget) in [(Language::Rust, rust, 1), (Language::Go, go, 2)] {
                if !enabled {
                    continue;
                }
                for (_, owner) in groups.owners(language) {
                    let Some((_, members)) = groups.owned_by(owner, language) else {
                        continue;
                    };
                    let unit = match language {
                        Language::Rust => Unit::Rust(owner),
                        _ => Unit::Go(owner),
                    };
                    budgets[budget].1.push((bytes(members, &[language]), unit));
                }
            }
        }
        let total: usize = budgets.iter().map(|(_, units)| units.len()).sum();
        let completed = AtomicUsize::new(0);
        let run = |db: &EngineDatabase, unit: &Unit| {
            match unit {
                Unit::Typescript(package) => {
                    typescript_unit(db, *package);
                }
                Unit::Python(repository) => {
                    python_unit(db, *repository);
                }
                Unit::Rust(package) => {
                    rust_unit(db, *package);
                }
                Unit::Go(package) => {
                    go_unit(db, *package);
                }
                Unit::Configured(repository) => {
                    configured_units(db, *repository);
                }
            }
            let done = completed.fetch_add(1, Ordering::Relaxed) + 1;
            progress(Progress {
                phase: "analyze",
                repository: None,
                completed: done,
                total,
            });
        };
        std::thread::scope(|threads| {
            for (workers, mut units) in budgets {
                if units.is_empty() {
                    continue;
                }
                units.sort_by_key(|(bytes, _)| std::cmp::Reverse(*bytes));
                let db = self.db.clone();
                let run = &run;
                threads.spawn(move || {
                    let work = move || {
                        units
                            .par_iter()
                            .for_each_with(db, |db, (_, unit)| run(db, unit));
                    };
                    match rayon::ThreadPoolBuilder::new()
                        .num_threads(workers.max(1))
                        .build()
                    {
                        Ok(pool) => pool.install(work),
                        Err(_) => work(),
                    }
                });
            }
            meanwhile();
        });
    }
}

/// One analyzer unit to run: a TypeScript/JavaScript package, a repository's Python, a
/// Cargo workspace or a Go module (by the package that owns it).
enum Unit {
    Typescript(PackageInput),
    Python(RepositoryInput),
    Rust(PackageInput),
    Go(PackageInput),
    /// The indexers the configuration plugs in, over one repository.
    Configured(RepositoryInput),
}
