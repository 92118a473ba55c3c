//! The salsa database and its content-addressed source store.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};

use kivgraph_facts::Fingerprint;

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

    /// The query of each execution the log holds, in order.
    pub fn names(&self) -> Vec<String> {
        self.0
            .lock()
            .expect("execution log lock")
            .iter()
            .map(|e| {
                e.split_once('(')
                    .map_or(e.as_str(), |(name, _)| name)
                    .to_string()
            })
            .collect()
    }

    /// How many executions of `query` the log holds.
    pub fn count(&self, query: &str) -> usize {
        self.names().iter().filter(|name| *name == query).count()
    }
}

#[salsa::db]
pub trait Db: salsa::Database {
    fn source_text(&self, fingerprint: Fingerprint) -> Option<Arc<str>>;
    /// Scratch space for analyzer runs.
    fn analyzer_scratch(&self) -> std::path::PathBuf;
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
}
