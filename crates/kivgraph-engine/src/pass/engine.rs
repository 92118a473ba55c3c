//! The engine: a salsa database that lives across passes (watch mode) or across processes
//! (through the fact cache), and the workspace's facts asked of it.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use super::options::{LoadsAtOnce, Progress};
use crate::cache::{self, CacheIdentity, CacheLoad};
use crate::database::{EngineDatabase, ExecutionLog};
use crate::files::file_facts;
use crate::inputs::Workspace;
use crate::merge::{WorkspaceFacts, workspace_facts};

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(
        "fact cache verification failed: {repository}:{path}: the cached facts disagree with a fresh analysis ({detail})"
    )]
    VerifyMismatch {
        repository: String,
        path: String,
        detail: String,
    },
    #[error(transparent)]
    CacheWrite(#[from] cache::CacheWriteError),
    #[error("could not record what the published pass was computed from: {0}")]
    RecordWrite(String),
}

/// The engine: a salsa database that lives across passes (watch mode) or across processes
/// (through the fact cache).
#[derive(Default)]
pub struct Engine {
    pub(super) db: EngineDatabase,
    pub(super) maximum_workers: usize,
    pub(super) loads_at_once: LoadsAtOnce,
    /// What the last update made of each repository, by name.
    pub(super) synced: HashMap<String, Synced>,
    /// The source texts were dropped (the cache was saved): the next update gives every one
    /// again.
    pub(super) sources_cleared: bool,
}

/// What the last update made of one repository: the discovery it was read by (shared, so
/// the same discovery is known by its pointer), its input, and each discovered file's input
/// (`None` where the file could not be read).
pub(super) struct Synced {
    pub(super) discovered: Arc<kivgraph_discovery::DiscoveredRepository>,
    pub(super) input: crate::inputs::RepositoryInput,
    pub(super) files: Vec<Option<crate::inputs::FileInput>>,
}

impl Engine {
    pub fn new() -> Self {
        Engine::default()
    }

    /// Restores memos from the fact cache in `directory`.
    pub fn from_cache(directory: &std::path::Path, identity: &CacheIdentity) -> (Self, CacheLoad) {
        let mut engine = Engine::new();
        let load = cache::load(&mut engine.db, directory, identity);
        (engine, load)
    }

    pub fn save_cache(
        &mut self,
        directory: &std::path::Path,
        identity: &CacheIdentity,
    ) -> Result<u64, EngineError> {
        self.db.clear_sources();
        self.sources_cleared = true;
        Ok(cache::save(&mut self.db, directory, identity)?)
    }

    pub fn execution_log(&self) -> &ExecutionLog {
        self.db.execution_log()
    }

    pub fn database(&self) -> &EngineDatabase {
        &self.db
    }

    /// Analyses every file that needs it, in parallel, then merges in unit order. The result
    /// shares structure with the memos: call [`WorkspaceFacts::to_fact_set`] to flatten it.
    pub fn facts(&self, progress: &(dyn Fn(Progress) + Sync)) -> Arc<WorkspaceFacts> {
        let Some(workspace) = Workspace::try_get(&self.db) else {
            return Arc::default();
        };
        // The analyzers read the files' texts, not their syntax facts: they run while the
        // syntax layer parses, and the merge waits for both.
        self.analyze_units(workspace, progress, || {
            for repository in workspace.repositories(&self.db) {
                let files = self.repository_files(*repository);
                let name = repository.name(&self.db).clone();
                let completed = AtomicUsize::new(0);
                let total = files.len();
                let step = (total / 20).max(256);
                files.par_iter().for_each_with(self.db.clone(), |db, file| {
                    file_facts(db, *file);
                    let done = completed.fetch_add(1, Ordering::Relaxed) + 1;
                    if done.is_multiple_of(step) {
                        progress(Progress {
                            phase: "parse",
                            repository: Some(name.clone()),
                            completed: done,
                            total,
                        });
                    }
                });
                progress(Progress {
                    phase: "parse",
                    repository: Some(name),
                    completed: total,
                    total,
                });
            }
        });
        progress(Progress {
            phase: "merge",
            repository: None,
            completed: 0,
            total: 1,
        });
        workspace_facts(&self.db, workspace)
    }
}
