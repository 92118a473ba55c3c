//! The salsa database and its content-addressed source store.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};

use kivgraph_facts::{Fingerprint, Language};

/// Source texts by fingerprint. Reading it inside a query is sound without tracking: the text
/// is a pure function of the fingerprint, and the fingerprint is a tracked input.
pub type SourceStore = Arc<RwLock<HashMap<Fingerprint, Arc<str>>>>;

/// The names of the queries salsa executed (not served from memo), in execution order.
#[derive(Clone, Default)]
pub struct ExecutionLog(Arc<Mutex<Vec<String>>>);

impl ExecutionLog {
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().expect("execution log lock"))
    }

    /// How many executions of `query` the log holds.
    pub fn count(&self, query: &str) -> usize {
        let prefix = format!("{query}(");
        self.0
            .lock()
            .expect("execution log lock")
            .iter()
            .filter(|e| e.starts_with(&prefix))
            .count()
    }
}

/// How many loads a Rust or Go unit runs at once; each holds a whole crate graph or type
/// universe in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadsAtOnce {
    pub rust_workspaces: usize,
    pub go_modules: usize,
}

impl Default for LoadsAtOnce {
    fn default() -> Self {
        LoadsAtOnce {
            rust_workspaces: 1,
            go_modules: 1,
        }
    }
}

#[salsa::db]
pub trait Db: salsa::Database {
    fn source_text(&self, fingerprint: Fingerprint) -> Option<Arc<str>>;
    /// Scratch space for analyzer runs.
    fn analyzer_scratch(&self) -> std::path::PathBuf;
    /// How many loads one unit runs at once: Cargo workspaces (`rust.maximum_workspaces`) or
    /// Go modules (`go.maximum_loads`).
    fn loads_at_once(&self, language: Language) -> usize;
}

#[salsa::db]
#[derive(Clone)]
pub struct EngineDatabase {
    storage: salsa::Storage<Self>,
    sources: SourceStore,
    log: ExecutionLog,
    /// Where analyzers write their project files and indexes: the state directory, never a
    /// repository. Shared by every clone; not an input, since it changes no answer.
    scratch: Arc<RwLock<std::path::PathBuf>>,
    /// Likewise how many loads a Rust and a Go unit run at once.
    loads: Arc<RwLock<LoadsAtOnce>>,
}

impl Default for EngineDatabase {
    fn default() -> Self {
        let log = ExecutionLog::default();
        let sink = log.clone();
        let callback = move |event: salsa::Event| {
            if let salsa::EventKind::WillExecute { database_key } = event.kind {
                sink.0
                    .lock()
                    .expect("execution log lock")
                    .push(format!("{database_key:?}"));
            }
        };
        EngineDatabase {
            storage: salsa::Storage::new(Some(Box::new(callback))),
            sources: SourceStore::default(),
            scratch: Arc::default(),
            loads: Arc::default(),
            log,
        }
    }
}

impl EngineDatabase {
    pub fn execution_log(&self) -> &ExecutionLog {
        &self.log
    }

    pub fn add_source(&self, fingerprint: Fingerprint, text: Arc<str>) {
        self.sources
            .write()
            .expect("source store lock")
            .insert(fingerprint, text);
    }

    pub fn set_analyzer_scratch(&self, directory: std::path::PathBuf) {
        *self.scratch.write().expect("scratch lock") = directory;
    }

    pub fn set_loads_at_once(&self, loads: LoadsAtOnce) {
        *self.loads.write().expect("loads lock") = loads;
    }

    /// Drops every source text; memos stay.
    pub fn clear_sources(&self) {
        self.sources.write().expect("source store lock").clear();
    }
}

#[salsa::db]
impl salsa::Database for EngineDatabase {}

#[salsa::db]
impl Db for EngineDatabase {
    fn source_text(&self, fingerprint: Fingerprint) -> Option<Arc<str>> {
        self.sources
            .read()
            .expect("source store lock")
            .get(&fingerprint)
            .cloned()
    }

    fn analyzer_scratch(&self) -> std::path::PathBuf {
        self.scratch.read().expect("scratch lock").clone()
    }

    fn loads_at_once(&self, language: Language) -> usize {
        let loads = self.loads.read().expect("loads lock");
        match language {
            Language::Go => loads.go_modules,
            _ => loads.rust_workspaces,
        }
        .max(1)
    }
}
